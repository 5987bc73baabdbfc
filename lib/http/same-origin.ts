/**
 * The cross-site request rule for every state-changing request (issue 31, case 6): route handlers
 * through lib/http/route.ts, server actions through proxy.ts (Next.js checks their Origin too). A
 * browser on another origin, another port of the same host included, may send a POST with the user's
 * cookie and a "simple" content type without any preflight; what it cannot do is hide where it came from:
 * - Sec-Fetch-Site (every current browser sends it) must be same-origin;
 * - Origin, when sent, must be this app's origin: the Host (or X-Forwarded-Host) the request came to,
 *   as Next.js compares for server actions, or the public address in NEXTAUTH_URL.
 * A request with neither header comes from no browser (curl, scripts, the tests' client): a page on
 * another site cannot make a browser leave both out, so it is let through like Next.js lets server actions through.
 */

export const STATE_CHANGING_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export type OriginVerdict = { ok: true } | { ok: false; reason: string };

type HeaderGetter = (name: string) => string | null;

function firstForwardedHost(value: string | null): string | null {
  return value?.split(",")[0]?.trim() || null;
}

/** The hosts ("localhost:3000") this request may legitimately come from. */
function ownHosts(get: HeaderGetter, publicOrigin: string | undefined): Set<string> {
  const hosts = new Set<string>();
  const forwarded = firstForwardedHost(get("x-forwarded-host"));
  if (forwarded) hosts.add(forwarded.toLowerCase());
  const host = get("host");
  if (host) hosts.add(host.toLowerCase());
  if (publicOrigin) {
    try {
      hosts.add(new URL(publicOrigin).host.toLowerCase());
    } catch {
      // NEXTAUTH_URL is validated at start
    }
  }
  return hosts;
}

export function sameOriginVerdict(method: string, get: HeaderGetter, publicOrigin?: string): OriginVerdict {
  if (!STATE_CHANGING_METHODS.has(method.toUpperCase())) return { ok: true };
  const site = get("sec-fetch-site")?.trim().toLowerCase();
  if (site && site !== "same-origin") {
    return { ok: false, reason: `a ${site} request (Sec-Fetch-Site: ${site.slice(0, 20)})` };
  }
  const origin = get("origin");
  if (origin === null) return { ok: true };
  let originHost: string;
  try {
    originHost = origin === "null" ? "null" : new URL(origin).host.toLowerCase();
  } catch {
    return { ok: false, reason: "an unreadable Origin header" };
  }
  if (!ownHosts(get, publicOrigin).has(originHost)) {
    return { ok: false, reason: `a request from another origin (${origin.slice(0, 100)})` };
  }
  return { ok: true };
}
