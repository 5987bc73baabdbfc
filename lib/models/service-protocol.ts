import { z } from "zod";

/**
 * The inference service's HTTP API (npm run worker:inference), shared by the server and the app's
 * client (remote-runtime.ts). Vectors travel as base64 of little-endian float32, row after row.
 */

export const MAX_TEXTS_PER_REQUEST = 1024;
const text = z.string().max(100_000, "A text is limited to 100,000 characters.");

export const embedRequestSchema = z.object({
  texts: z.array(text).min(1, "Send at least one text.").max(MAX_TEXTS_PER_REQUEST, `At most ${MAX_TEXTS_PER_REQUEST} texts per request.`),
  kind: z.enum(["query", "passage"]).default("passage"),
  timeoutMs: z.number().int().min(100).max(600_000).optional(),
});
export type EmbedRequest = z.infer<typeof embedRequestSchema>;

export const scoreRequestSchema = z.object({
  pairs: z
    .array(z.tuple([text, text]))
    .min(1, "Send at least one pair.")
    .max(MAX_TEXTS_PER_REQUEST, `At most ${MAX_TEXTS_PER_REQUEST} pairs per request.`),
  timeoutMs: z.number().int().min(100).max(600_000).optional(),
});
export type ScoreRequest = z.infer<typeof scoreRequestSchema>;

/** Error bodies: `kind` lets the client raise the same error class the in-process runtime would. */
export type ServiceErrorKind = "invalid" | "busy" | "timeout" | "unavailable" | "failed" | "draining";

export interface ServiceError {
  error: { kind: ServiceErrorKind; message: string };
}

export function encodeVectors(vectors: Float32Array[]): string {
  const dims = vectors[0]?.length ?? 0;
  const flat = new Float32Array(vectors.length * dims);
  vectors.forEach((v, i) => flat.set(v, i * dims));
  return Buffer.from(flat.buffer, flat.byteOffset, flat.byteLength).toString("base64");
}

export function decodeVectors(base64: string, count: number, dims: number): Float32Array[] {
  const bytes = Buffer.from(base64, "base64");
  if (bytes.length !== count * dims * 4) throw new Error(`expected ${count} vectors of ${dims} floats, got ${bytes.length} bytes`);
  // Copy into an aligned buffer: a Buffer from base64 may start at any byte offset.
  const flat = new Float32Array(count * dims);
  new Uint8Array(flat.buffer).set(bytes);
  return Array.from({ length: count }, (_, i) => flat.subarray(i * dims, (i + 1) * dims));
}
