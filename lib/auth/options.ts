import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { db } from "../db/client";
import { loadEnv } from "../env";
import { requestClientAddress } from "../http/client-address";
import { safeRedirectUrl } from "../http/safe-redirect";
import { getSecrets } from "../local-secrets";
import { log } from "../log";
import { SignInThrottle, tooManyAttemptsCode } from "./sign-in-throttle";
import { throttledSignIn } from "./throttled-sign-in";
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
        async authorize(credentials, req) {
          const parsed = signInSchema.safeParse(credentials);
          if (!parsed.success) return null;
          const prisma = await db();
          const outcome = await throttledSignIn(
            prisma,
            new SignInThrottle(prisma),
            parsed.data.email,
            parsed.data.password,
            // The socket's address (or, behind a proxy named in TRUST_PROXY, the client it forwarded for).
            requestClientAddress(req?.headers, env.TRUST_PROXY, (m) => log.warn(m)),
          );
          if (outcome.ok) return { id: outcome.user.id, email: outcome.user.email, name: outcome.user.name, role: outcome.user.role };
          if (outcome.reason === "throttled") throw new Error(tooManyAttemptsCode(outcome.retryAfterMs));
          return null;
        },
      }),
    ],
    callbacks: {
      // After sign-in or sign-out: only a path on this origin (lib/http/safe-redirect.ts), never another site.
      redirect({ url, baseUrl }) {
        return safeRedirectUrl(url, baseUrl);
      },
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
