import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { BackendConfigError } from "../errors";
import type { BackendContext } from "../types";
import { WorkerChannel, type WorkerFailure } from "./worker-channel";

export type RdfFormat = "turtle" | "ntriples" | "rdfxml";

export interface RdfUpload {
  name: string;
  bytes: Buffer;
  /** Taken from the file extension when absent. */
  format?: RdfFormat;
}

export interface StoredRdf {
  /** Triples in the store after the upload (duplicates across files count once). */
  triples: number;
  /** Triples each file added (a triple already stored or given by an earlier file is not counted again). */
  files: { name: string; triples: number }[];
}

/** Parsing and normalizing a large upload is slow but must still end. */
const NORMALIZE_TIMEOUT_MS = 10 * 60_000;

/** The embedded store's data: one normalized N-Quads file, reloaded by the worker on open. */
export function rdfDataFile(ctx: Pick<BackendContext, "storageDir">): string {
  return path.join(ctx.storageDir, "graph.nq");
}

const EXTENSIONS: Record<string, RdfFormat> = {
  ".ttl": "turtle",
  ".turtle": "turtle",
  ".nt": "ntriples",
  ".ntriples": "ntriples",
  ".rdf": "rdfxml",
  ".owl": "rdfxml",
  ".xml": "rdfxml",
};

export function rdfFormatOf(file: Pick<RdfUpload, "name" | "format">): RdfFormat {
  if (file.format) return file.format;
  const format = EXTENSIONS[path.extname(file.name).toLowerCase()];
  if (!format) {
    throw new BackendConfigError(`${file.name}: unknown RDF format. Use .ttl (Turtle), .nt (N-Triples) or .rdf/.owl (RDF/XML), or say which format it is.`);
  }
  return format;
}

/**
 * Oxigraph says "Parser error between line 3 column 11 and line 4 column 1: Unexpected end of file";
 * a person wants "products.ttl: line 3: Unexpected end of file (column 11)".
 */
export function describeParseError(fileName: string, message: string): string {
  const m = /^Parser error (?:at|between) line (\d+) column (\d+)(?: and line \d+ column \d+)?:\s*(.*)$/s.exec(message.trim());
  if (m) return `${fileName}: line ${m[1]}: ${m[3].trim()} (column ${m[2]})`;
  return `${fileName}: ${message.trim()}`;
}

/**
 * Validates RDF uploads by parsing each with Oxigraph and stores them, merged with what the KB already
 * holds unless `replace`, as one N-Quads file. All or nothing: a malformed file stores nothing and the
 * error names the file and line. Parsing runs in a worker so a large upload does not block the server.
 */
export async function storeRdfFiles(ctx: BackendContext, files: RdfUpload[], options: { replace?: boolean } = {}): Promise<StoredRdf> {
  if (files.length === 0) throw new BackendConfigError("No RDF files were given. Upload Turtle (.ttl), N-Triples (.nt) or RDF/XML (.rdf) files.");
  const prepared = files.map((f) => ({ name: f.name, format: rdfFormatOf(f), bytes: new Uint8Array(f.bytes) }));
  const dataFile = rdfDataFile(ctx);

  const channel = new WorkerChannel();
  let outcome;
  try {
    outcome = await channel.call(
      { op: "normalize", files: prepared, existingFile: options.replace ? null : dataFile },
      NORMALIZE_TIMEOUT_MS,
      undefined,
      prepared.map((f) => f.bytes.buffer as ArrayBuffer),
    );
  } finally {
    await channel.terminate();
  }
  if (outcome.kind === "timeout") throw new BackendConfigError(`Reading the RDF files took longer than ${NORMALIZE_TIMEOUT_MS / 60_000} minutes. Upload smaller files.`);
  if (outcome.kind !== "reply") throw new BackendConfigError(`The RDF files could not be read: ${outcome.kind === "crashed" ? outcome.message : outcome.kind}.`);
  if (!outcome.reply.ok) {
    const failure = outcome.reply.error as WorkerFailure;
    throw new BackendConfigError(failure.file ? describeParseError(failure.file, failure.message) : `The RDF files could not be read: ${failure.message}`);
  }

  mkdirSync(ctx.storageDir, { recursive: true });
  // Write then rename, so a reader never loads half a file.
  const tmp = `${dataFile}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(tmp, String(outcome.reply.nquads));
    renameSync(tmp, dataFile);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  return { triples: Number(outcome.reply.triples), files: outcome.reply.counts as StoredRdf["files"] };
}
