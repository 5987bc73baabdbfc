import "server-only";
import type { NextAuthOptions } from "next-auth";
import { headers } from "next/headers";
import CredentialsProvider from "next-auth/providers/credentials";
import type { OAuthConfig } from "next-auth/providers/oauth";
import { audit } from "../audit/audit";
import { db } from "../db/client";
import { loadEnv } from "../env";
import { requestClientAddress } from "../http/client-address";
import { safeRedirectUrl } from "../http/safe-redirect";
import { getSecrets } from "../local-secrets";
import { log } from "../log";
import { SignInThrottle, tooManyAttemptsCode } from "./sign-in-throttle";
import { throttledSignIn } from "./throttled-sign-in";
import { signInSchema } from "./sign-in.validation";
import { claimMapping } from "./oidc-claims";
import { provisionOidcUser } from "./oidc-provision";
import { OIDC_PROVIDER_ID, oidcConfigured, ssoErrorCode } from "./sso";

type OidcClaims = Record<string, unknown> & { sub: string; email?: string; name?: string };

/**
 * The generic OpenID Connect provider (next-auth's "oauth" type with discovery): authorization code with
 * PKCE and state, the ID token's signature, issuer, audience and expiry checked by openid-client, and
 * the authorization response's `iss` checked when the provider sends it (RFC 9207, mix-up defence).
 */
function oidcProvider(env: ReturnType<typeof loadEnv>): OAuthConfig<OidcClaims> {
  const issuer = env.OIDC_ISSUER!.replace(/\/$/, "");
  return {
    id: OIDC_PROVIDER_ID,
    name: env.OIDC_NAME,
    type: "oauth",
    wellKnown: `${issuer}/.well-known/openid-configuration`,
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET,
    authorization: { params: { scope: env.OIDC_SCOPES } },
    idToken: true,
    checks: ["pkce", "state"],
    // The id is replaced by Mosaic's own in the signIn callback, once the user is provisioned.
    profile: (claims) => ({ id: claims.sub, email: claims.email ?? null, name: claims.name ?? claims.email ?? null }),
  };
}

/**
 * The client's address inside next-auth's callbacks, which run in the request's scope but are not
 * handed the request; null outside a request.
 */
async function callbackAddress(env: ReturnType<typeof loadEnv>): Promise<string | null> {
  try {
    return requestClientAddress(await headers(), env.TRUST_PROXY);
  } catch {
    return null;
  }
}

export function authOptions(): NextAuthOptions {
  const env = loadEnv();
  const sso = oidcConfigured(env);
  const mapping = claimMapping(env);
  const credentials = CredentialsProvider({
    name: "Email and password",
    credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
    async authorize(credentials, req) {
      const parsed = signInSchema.safeParse(credentials);
      if (!parsed.success) return null;
      const prisma = await db();
      // The socket's address (or, behind a proxy named in TRUST_PROXY, the client it forwarded for).
      const address = requestClientAddress(req?.headers, env.TRUST_PROXY, (m) => log.warn(m));
      const outcome = await throttledSignIn(prisma, new SignInThrottle(prisma), parsed.data.email, parsed.data.password, address);
      const attempt = { actorEmail: parsed.data.email, address, targetType: "user", detail: { method: "password" } };
      if (outcome.ok) {
        audit({ ...attempt, action: "signin.success", actorId: outcome.user.id, targetId: outcome.user.id });
        return { id: outcome.user.id, email: outcome.user.email, name: outcome.user.name, role: outcome.user.role };
      }
      audit({ ...attempt, action: "signin.failure", outcome: "failure", detail: { method: "password", reason: outcome.reason } });
      if (outcome.reason === "throttled") throw new Error(tooManyAttemptsCode(outcome.retryAfterMs));
      return null;
    },
  });
  return {
    secret: getSecrets(env).nextAuthSecret,
    session: { strategy: "jwt", maxAge: 8 * 60 * 60 },
    pages: { signIn: "/signin", error: "/signin" },
    // OIDC_ONLY: the password provider is not there at all, so no request can sign in with a password.
    providers: [...(env.OIDC_ONLY ? [] : [credentials]), ...(sso ? [oidcProvider(env)] : [])],
    logger: {
      // next-auth's errors, among them a refused single sign-on (wrong state, wrong issuer, a bad token):
      // logged, and recorded in the audit log as a failed sign-in.
      error(code, metadata) {
        log.error({ code, err: metadata instanceof Error ? metadata : (metadata as { error?: unknown })?.error }, "sign-in error");
        if (code.startsWith("OAUTH")) {
          const err = metadata instanceof Error ? metadata : (metadata as { error?: Error })?.error;
          void callbackAddress(env).then((address) =>
            audit({
              address,
              action: "signin.failure",
              outcome: "failure",
              targetType: "user",
              detail: { method: "oidc", provider: env.OIDC_NAME, code, reason: err?.message?.slice(0, 300) ?? null },
            }),
          );
        }
      },
      warn(code) {
        log.warn({ code }, "next-auth warning");
      },
      debug() {},
    },
    callbacks: {
      async signIn({ user, account, profile }) {
        if (account?.provider !== OIDC_PROVIDER_ID) return true;
        const claims = (profile ?? {}) as Record<string, unknown>;
        const prisma = await db();
        const outcome = await provisionOidcUser(prisma, { issuer: String(claims.iss ?? env.OIDC_ISSUER), claims }, mapping);
        const email = typeof claims.email === "string" ? claims.email.toLowerCase() : null;
        const address = await callbackAddress(env);
        if (!outcome.ok) {
          audit({
            address,
            action: "signin.failure",
            outcome: "failure",
            actorId: outcome.userId ?? null,
            actorEmail: email,
            targetType: "user",
            targetId: outcome.userId ?? null,
            detail: { method: "oidc", provider: env.OIDC_NAME, reason: outcome.reason },
          });
          return `/signin?error=${ssoErrorCode(outcome.reason)}`;
        }
        audit({
          address,
          action: outcome.created ? "signin.success.created" : "signin.success",
          actorId: outcome.user.id,
          actorEmail: outcome.user.email,
          targetType: "user",
          targetId: outcome.user.id,
          before: outcome.before,
          after: outcome.after,
          detail: { method: "oidc", provider: env.OIDC_NAME, unmappedGroups: outcome.unmappedGroups },
        });
        // With JWT sessions and no adapter, next-auth hands this same object to the jwt callback: the
        // session then carries Mosaic's user id, not the provider's subject.
        Object.assign(user, { id: outcome.user.id, email: outcome.user.email, name: outcome.user.name, role: outcome.user.role });
        return true;
      },
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
