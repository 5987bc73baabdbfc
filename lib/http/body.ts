import { AppError } from "../errors";
import { formatLimit } from "./limits";

/**
 * Reads a request body under a limit (issue 31, case 9): a declared Content-Length above it is
 * refused before a byte is read, and a body without one (chunked) is counted while it streams and cut
 * off at the limit, so neither is ever held whole in memory past the limit.
 */

export class BodyTooLargeError extends AppError {
  constructor(limitBytes: number, what: string) {
    super("PAYLOAD_TOO_LARGE", `The ${what} is larger than ${formatLimit(limitBytes)}, the most this endpoint accepts.`);
  }
}

/** The declared length, or null when none is declared; refuses a malformed one. */
export function declaredLength(value: string | null): number | null {
  if (value === null) return null;
  if (!/^\s*\d{1,15}\s*$/.test(value)) throw new AppError("VALIDATION", "The request's Content-Length is not a number.");
  return Number(value);
}

export async function readBoundedBody(req: Request, maxBytes: number, what = "request body"): Promise<Buffer> {
  const declared = declaredLength(req.headers.get("content-length"));
  if (declared !== null && declared > maxBytes) throw new BodyTooLargeError(maxBytes, what);
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Stop reading: the connection is closed with the 413 (lib/http/route.ts), so the rest is never received.
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(maxBytes, what);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/** The media type of a Content-Type header, lower-case, without parameters ("application/json"). */
export function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}
