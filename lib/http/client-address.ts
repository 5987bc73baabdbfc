import { isTrustedProxy, normalizeAddress, type TrustedProxies } from "../net/ip";

/**
 * The client's address as the server sees it (issue 31, case 8). Mosaic's own HTTP server
 * (scripts/server.ts) writes the socket's remote address into PEER_HEADER on every request,
 * overwriting whatever a client sent under that name. X-Forwarded-For is read only when that peer is a
 * proxy named in TRUST_PROXY, and then from the right: each hop a trusted proxy appended is skipped,
 * and the first address no trusted proxy vouches for is the client. Anything left of it was written by
 * the client itself and is never read.
 */

/** Set by scripts/server.ts from the socket; a client's own value is overwritten before Next.js sees the request. */
export const PEER_HEADER = "x-mosaic-peer";

/**
 * Marks this process as served by scripts/server.ts (the only writer of PEER_HEADER). Under `next dev`
 * or a bare `next start` nobody overwrites the header, so it is not believed there.
 */
const SERVED_BY_MOSAIC = Symbol.for("mosaic.http.peerHeaderStamped");

export function markPeerHeaderStamped(): void {
  (globalThis as Record<symbol, unknown>)[SERVED_BY_MOSAIC] = true;
}

function peerHeaderStamped(): boolean {
  return (globalThis as Record<symbol, unknown>)[SERVED_BY_MOSAIC] === true;
}

/** Every X-Forwarded-For header's entries in order, several headers joined as one list (RFC 7230 §3.2.2). */
function forwardedEntries(forwardedFor: string | string[] | null | undefined): string[] {
  const values = Array.isArray(forwardedFor) ? forwardedFor : forwardedFor ? [forwardedFor] : [];
  return values.flatMap((v) => v.split(",")).map((e) => e.trim());
}

/**
 * The client's address from the socket's peer and X-Forwarded-For. Untrusted peer: the peer itself.
 * Trusted peer: walk X-Forwarded-For from the right, skipping trusted proxies; the first other address
 * is the client. An entry that is no address (a proxy that did not append, or garbage) stops the walk
 * at the last trusted hop, which is then the address throttled: never anything a client wrote.
 */
export function resolveClientAddress(
  peer: string | null | undefined,
  forwardedFor: string | string[] | null | undefined,
  proxies: TrustedProxies,
): string {
  const peerAddress = normalizeAddress(peer);
  if (!peerAddress) return "unknown";
  if (!isTrustedProxy(peerAddress, proxies)) return peerAddress;
  let nearest = peerAddress;
  const entries = forwardedEntries(forwardedFor);
  for (let i = entries.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(entries[i]);
    if (!hop) return nearest;
    if (!isTrustedProxy(hop, proxies)) return hop;
    nearest = hop;
  }
  return nearest;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined | unknown> | undefined | null;

function header(headers: HeaderBag, name: string): string | string[] | undefined {
  if (!headers) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const v = headers[name] ?? headers[name.toLowerCase()];
  return typeof v === "string" || Array.isArray(v) ? (v as string | string[]) : undefined;
}

let warnedUnstamped = false;

/**
 * The client address of a request, from its headers (a route handler's, or the plain object next-auth
 * hands to authorize). Outside scripts/server.ts (`next dev`) there is no peer stamp: the last
 * X-Forwarded-For entry (which Next.js fills from the socket when absent) is used, with a warning once,
 * because a client can write it there.
 */
export function requestClientAddress(headers: HeaderBag, proxies: TrustedProxies, warn: (msg: string) => void = () => {}): string {
  const forwardedFor = header(headers, "x-forwarded-for");
  if (peerHeaderStamped()) {
    const peer = header(headers, PEER_HEADER);
    return resolveClientAddress(Array.isArray(peer) ? peer[0] : peer, forwardedFor, proxies);
  }
  if (!warnedUnstamped) {
    warnedUnstamped = true;
    warn("Not started by Mosaic's server (npm start): client addresses come from X-Forwarded-For, which a client can write.");
  }
  const last = forwardedEntries(forwardedFor).pop();
  return normalizeAddress(last) ?? "unknown";
}
