import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { db } from "../db/client";
import { loadEnv } from "../env";
import { getSecrets } from "../local-secrets";
import { authenticate } from "./authenticate";
import { TOO_MANY_ATTEMPTS, signInThrottle } from "./sign-in-throttle";
import { signInSchema } from "./sign-in.validation";

export function authOptions(): NextAuthOptions {
  const env = loadEnv();
  return {
    secret: getSecrets(env).nextAuthSecret,
    session: { strategy: "jwt", maxAge: 8 * 60 * 60 },
    pages: { signIn: "/signin", error: "/signin" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials) {
          const parsed = signInSchema.safeParse(credentials);
          if (!parsed.success) return null;
          const throttle = signInThrottle();
          if (throttle.isBlocked(parsed.data.email)) throw new Error(TOO_MANY_ATTEMPTS);
          const user = await authenticate(await db(), parsed.data.email, parsed.data.password);
          if (!user) {
            throttle.recordFailure(parsed.data.email);
            return null;
          }
          throttle.recordSuccess(parsed.data.email);
          return { id: user.id, email: user.email, name: user.name, role: user.role };
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.uid = user.id;
          token.role = (user as { role?: string }).role;
        }
        return token;
      },
      session({ session, token }) {
        if (session.user) {
          session.user.id = token.uid as string;
          session.user.role = token.role as string;
        }
        return session;
      },
    },
  };
}
