import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/options";

// next-auth's own handler (sign-in, sign-out, session, CSRF). Credentials are checked in lib/auth/authenticate.ts.
const handler = (req: Request, ctx: unknown) => NextAuth(authOptions())(req, ctx);
export { handler as GET, handler as POST };
