/**
 * Body-size limits (issue 31, case 9). Route handlers read theirs from the environment
 * (HTTP_MAX_BODY_BYTES, UPLOAD_MAX_BYTES: lib/env.ts); server actions get Next.js's own limit, set in
 * next.config.ts from the constant below, which Next.js counts while it streams an action's body (it
 * does not look at Content-Length: Mosaic's server refuses a larger declared length at the door).
 */

/** Server actions carry form fields and JSON-like arguments, never files (uploads go to the upload routes). */
export const SERVER_ACTION_MAX_BYTES = 1024 * 1024;

/** next-auth's own requests (sign-in, sign-out: a few form fields). */
export const AUTH_FORM_MAX_BYTES = 64 * 1024;

/** "1 MB", "200 MB", "64 KB": limits as people read them in messages. */
export function formatLimit(bytes: number): string {
  if (bytes >= 1_000_000) return `${+(bytes / (bytes % (1024 * 1024) === 0 ? 1024 * 1024 : 1_000_000)).toFixed(1)} MB`;
  if (bytes >= 1_000) return `${+(bytes / (bytes % 1024 === 0 ? 1024 : 1_000)).toFixed(1)} KB`;
  return `${bytes} bytes`;
}
