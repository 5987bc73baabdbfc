import { SERVER_ACTION_MAX_BYTES, formatLimit } from "./limits";

/**
 * What Mosaic's HTTP server (scripts/server.ts) decides from a request's first line and headers,
 * before Next.js reads a byte of its body (issue 31, case 9). Next.js itself would start streaming a
 * page request's body into a buffer for proxy.ts, and drain any unread body after answering; a declared
 * length larger than anything the path accepts is refused here instead, and the connection closed.
 * - /api/…: the largest route limit (uploads); each route handler applies its own, smaller one, and
 *   cuts a chunked body at it (lib/http/route.ts).
 * - everything else (pages, whose POSTs are server actions): the server-action limit, and a body of
 *   unknown length (chunked) is refused: browsers always declare the length of a form or action body.
 */

export interface DoorLimits {
  apiMaxBytes: number;
  pageMaxBytes: number;
}

export type DoorVerdict = { ok: true } | { ok: false; status: 400 | 411 | 413; message: string };

export function doorLimits(env: { UPLOAD_MAX_BYTES: number; HTTP_MAX_BODY_BYTES: number }): DoorLimits {
  return { apiMaxBytes: Math.max(env.UPLOAD_MAX_BYTES, env.HTTP_MAX_BODY_BYTES), pageMaxBytes: SERVER_ACTION_MAX_BYTES };
}

export function doorVerdict(
  request: { method: string; url: string; contentLength: string | undefined; transferEncoding: string | undefined },
  limits: DoorLimits,
): DoorVerdict {
  const path = request.url.split("?")[0]!;
  const api = path === "/api" || path.startsWith("/api/");
  const max = api ? limits.apiMaxBytes : limits.pageMaxBytes;
  if (request.contentLength !== undefined) {
    if (!/^\d{1,15}$/.test(request.contentLength.trim())) return { ok: false, status: 400, message: "The Content-Length is not a number." };
    if (Number(request.contentLength) > max) {
      return { ok: false, status: 413, message: `The request body is larger than ${formatLimit(max)}, the most this address accepts.` };
    }
    return { ok: true };
  }
  if (request.transferEncoding !== undefined && !api) {
    return { ok: false, status: 411, message: "Requests to pages must declare their body's length (Content-Length)." };
  }
  return { ok: true };
}
