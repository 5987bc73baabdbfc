import { createHmac } from "node:crypto";
import { z } from "zod";

/**
 * What a workspace export says about itself (manifest.json): which Mosaic and which database
 * migrations wrote it, a check value of the key its secrets are encrypted with (never the key), how
 * many rows each table holds, and each document collection with what an import must find again.
 */
export const EXPORT_FORMAT = 1;

export const collectionEntrySchema = z.object({
  kbId: z.string(),
  name: z.string(),
  documents: z.number().int(),
  language: z.string(),
  chunkMaxChars: z.number().int(),
  /** The collection's descriptor version and counts: the copy must describe itself the same way. */
  version: z.string(),
  stats: z.record(z.string(), z.unknown()),
});

export const manifestSchema = z.object({
  format: z.number().int(),
  appVersion: z.string(),
  exportedAt: z.string(),
  source: z.object({ engine: z.string(), location: z.string() }),
  migrations: z.array(z.string()),
  keyCheck: z.string(),
  /** How many encrypted values (connection passwords, API keys) the export holds. */
  secrets: z.number().int(),
  tables: z.record(z.string(), z.number().int()),
  collections: z.array(collectionEntrySchema),
  /** Knowledge bases whose storage directory (SQLite file, RDF store, collection file) was copied under files/kbs/. */
  kbFiles: z.array(z.string()),
});
export type Manifest = z.infer<typeof manifestSchema>;
export type CollectionEntry = z.infer<typeof collectionEntrySchema>;

/** Identifies a key without revealing it: an import compares it with its own key's. */
export function keyCheck(key: Buffer): string {
  return createHmac("sha256", key).update("mosaic workspace export key check").digest("hex").slice(0, 24);
}

/** Rows as JSON lines: dates and bytes tagged at the top level so they come back as they were. */
export function encodeRow(row: Record<string, unknown>): string {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (v instanceof Date) out[k] = { $date: v.toISOString() };
    else if (v instanceof Uint8Array) out[k] = { $bytes: Buffer.from(v).toString("base64") };
    else out[k] = v;
  }
  return JSON.stringify(out);
}

export function decodeRow(line: string): Record<string, unknown> {
  const row = JSON.parse(line) as Record<string, unknown>;
  for (const [k, v] of Object.entries(row)) {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const keys = Object.keys(v);
      if (keys.length === 1 && keys[0] === "$date") row[k] = new Date((v as { $date: string }).$date);
      else if (keys.length === 1 && keys[0] === "$bytes") row[k] = new Uint8Array(Buffer.from((v as { $bytes: string }).$bytes, "base64"));
    }
  }
  return row;
}
