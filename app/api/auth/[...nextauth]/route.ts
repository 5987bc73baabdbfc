import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/options";
import { AUTH_FORM_MAX_BYTES } from "@/lib/http/limits";
import { withPublicRoute } from "@/lib/http/route";

// next-auth's own handler (sign-in, sign-out, session, CSRF). Credentials are checked in lib/auth/authenticate.ts.
// Its form bodies are read under a small limit first and handed on whole (lib/http/route.ts).
const handler = withPublicRoute<{ nextauth: string[] }>({ name: "auth", bodyLimitBytes: AUTH_FORM_MAX_BYTES }, ({ req, ctx }) =>
  NextAuth(authOptions())(req, ctx),
);
export { handler as GET, handler as POST };
