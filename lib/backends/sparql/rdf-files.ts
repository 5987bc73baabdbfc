import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { log } from "../../log";
import { ChildChannel } from "../child-channel";
import { BackendConfigError } from "../errors";
import { queryLimits } from "../limits";
import type { BackendContext } from "../types";
import { isStoreTrap, oxigraphProcessOptions, type StoreFailure } from "./embedded-engine";

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
    throw new BackendConfigError(
      `${file.name}: unknown RDF format. Use .ttl (Turtle), .nt (N-Triples) or .rdf/.owl (RDF/XML), or say which format it is.`,
    );
  }
  return format;
}

/**
 * Oxigraph says "Parser error between line 3 column 11 and line 4 column 1: Unexpected end of file";
 * a person wants "products.ttl: line 3: Unexpected end of file (column 11)". A WebAssembly trap
 * ("unreachable") is the parser running out of memory, not a message for people.
 */
export function describeParseError(fileName: string, failure: StoreFailure, memoryMb: number): string {
  if (isStoreTrap(failure)) {
    return `${fileName} could not be read: reading it needs more than the ${memoryMb} MB allowed (an XML file whose entities expand without end does this). Check the file, or upload it as Turtle or N-Triples.`;
  }
  // Oxigraph says "at line 3 column 11", "between line 3 column 11 and line 4 column 1" or "at line 1 between columns 1 and 4".
  const m =
    /^Parser error (?:at|between) line (\d+) (?:column (\d+)|between columns (\d+) and \d+)(?: and line \d+ column \d+)?:\s*(.*)$/s.exec(
      failure.message.trim(),
    );
  if (m) return `${fileName}: line ${m[1]}: ${m[4].trim()} (column ${m[2] ?? m[3]})`;
  // The parser's own sentence is about the file's content ("XML namespaces are required in RDF/XML").
  return `${fileName}: ${failure.message.trim().slice(0, 300)}`;
}

/**
 * Validates RDF uploads by parsing each with Oxigraph and stores them, merged with what the KB already
 * holds unless `replace`, as one N-Quads file. All or nothing: a malformed file stores nothing and the
 * error names the file and line. Parsing runs in a worker so a large upload does not block the server.
 */
export async function storeRdfFiles(ctx: BackendContext, files: RdfUpload[], options: { replace?: boolean } = {}): Promise<StoredRdf> {
  if (files.length === 0)
    throw new BackendConfigError("No RDF files were given. Upload Turtle (.ttl), N-Triples (.nt) or RDF/XML (.rdf) files.");
  const prepared = files.map((f) => ({ name: f.name, format: rdfFormatOf(f), bytes: new Uint8Array(f.bytes) }));
  const dataFile = rdfDataFile(ctx);

  const limits = queryLimits();
  let channel: ChildChannel;
  try {
    channel = await ChildChannel.start(oxigraphProcessOptions(limits));
  } catch (e) {
    throw new BackendConfigError(
      `The RDF files could not be read: the RDF store could not start (${e instanceof Error ? e.message : String(e)}).`,
    );
  }
  let outcome;
  try {
    outcome = await channel.call(
      { op: "normalize", files: prepared, existingFile: options.replace ? null : dataFile },
      { timeoutMs: NORMALIZE_TIMEOUT_MS },
    );
  } finally {
    channel.kill();
  }
  if (outcome.kind === "timeout")
    throw new BackendConfigError(`Reading the RDF files took longer than ${NORMALIZE_TIMEOUT_MS / 60_000} minutes. Upload smaller files.`);
  if (outcome.kind === "memory") {
    throw new BackendConfigError(
      `The RDF files could not be read: reading them needs more than the ${limits.engineMemoryMb} MB allowed. Upload smaller files.`,
    );
  }
  if (outcome.kind !== "reply") {
    log.warn(
      { outcome: outcome.kind, reason: outcome.kind === "crashed" ? outcome.message : undefined },
      "the RDF store stopped while reading an upload",
    );
    throw new BackendConfigError(
      "The RDF files could not be read: the RDF store stopped while reading them. Check the files and try again.",
    );
  }
  if (!outcome.reply.ok) {
    const failure = outcome.reply.error as StoreFailure;
    if (failure.file) throw new BackendConfigError(describeParseError(failure.file, failure, limits.engineMemoryMb));
    log.warn({ detail: failure.message }, "the RDF files could not be read");
    throw new BackendConfigError("The RDF files could not be read. Check that they are Turtle, N-Triples or RDF/XML.");
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
