/**
 * Which credential a request carries, decided from its headers alone (before anything is read):
 * - "session": a next-auth session cookie (what browsers send by themselves, hence CSRF-able);
 * - "bearer": an `Authorization: Bearer` token and no session cookie (API keys, issue 29): a page on
 *   another site cannot make a browser attach it, so the same-origin rule does not apply to it;
 * - "none": neither.
 * A request that carries both is treated as a session request, so a cookie can never ride along on a
 * bearer request past the origin check.
 */

export const SESSION_COOKIE_NAMES = ["next-auth.session-token", "__Secure-next-auth.session-token"] as const;

export type RequestCredentials = { kind: "session" } | { kind: "bearer"; token: string } | { kind: "none" };

function hasSessionCookie(cookieHeader: string | null): boolean {
  if (!cookieHeader) return false;
  return cookieHeader.split(";").some((part) => {
    const name = part.split("=")[0]!.trim();
    // next-auth splits large tokens into "<name>.0", "<name>.1", …
    return SESSION_COOKIE_NAMES.some((n) => name === n || name.startsWith(`${n}.`));
  });
}

export function requestCredentials(get: (name: string) => string | null): RequestCredentials {
  if (hasSessionCookie(get("cookie"))) return { kind: "session" };
  const auth = /^Bearer\s+(\S+)\s*$/i.exec(get("authorization") ?? "");
  if (auth) return { kind: "bearer", token: auth[1]! };
  return { kind: "none" };
}
