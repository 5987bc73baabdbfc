import { writeFileSync } from "node:fs";
import path from "node:path";
import type { DocumentsConfig } from "../backends/documents/config";
import { parseKbConfig } from "../backends/registry";
import { storeRdfFiles } from "../backends/sparql/rdf-files";
import type { BackendContext } from "../backends/types";
import { asAppError } from "../catalog/backend-errors";
import type { RegisterKbInput } from "../catalog/knowledge-bases.validation";
import { type RegisterOptions, type RegisterResult, registerCatalogEntry } from "../catalog/register";
import type { PrismaClient } from "../db/generated/client";
import type { CatalogDeps } from "../deps";
import { AppError } from "../errors";
import { ingestFiles, type UploadedFile } from "./documents/ingest-files";
import { queueEmbeddingsAfterRefresh } from "./refresh";

/**
 * Registers a knowledge base with what it is built from: uploaded documents are parsed and stored,
 * an uploaded SQLite file or RDF files placed where their engine reads them (lib/catalog/register.ts
 * stores the record, checks and describes it, and rolls everything back on failure). Then the new
 * content's vectors are asked for.
 */
export async function registerKnowledgeBase(
  prisma: PrismaClient,
  deps: CatalogDeps,
  actorId: string | null,
  raw: RegisterKbInput,
  files: UploadedFile[] = [],
  opts: RegisterOptions = {},
): Promise<RegisterResult> {
  const populate: RegisterOptions["populate"] =
    opts.populate ??
    (opts.sqliteSourcePath
      ? undefined
      : async (ctx, { upload, config, secrets }) => (upload ? placeUploads(upload, ctx, files, config, secrets) : []));
  const result = await registerCatalogEntry(prisma, deps, actorId, raw, { ...opts, populate });
  await queueEmbeddingsAfterRefresh(prisma, result.id, result.refresh);
  return result;
}

const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");

/** Puts uploads where the backend expects them; returns per-file warnings. Throws when nothing usable was uploaded. */
async function placeUploads(
  kind: "documents" | "sqlite" | "rdf",
  ctx: BackendContext,
  files: UploadedFile[],
  config: Record<string, unknown>,
  secrets: Record<string, string>,
): Promise<string[]> {
  if (!files.length) {
    const what = {
      documents: "at least one document",
      sqlite: "a SQLite database file",
      rdf: "at least one RDF file (Turtle, N-Triples or RDF/XML)",
    }[kind];
    throw new AppError("VALIDATION", `Upload ${what}.`, { files: "Required." });
  }
  if (kind === "sqlite") {
    if (files.length > 1) throw new AppError("VALIDATION", "Upload exactly one SQLite database file.", { files: "One file only." });
    const [file] = files;
    if (file.bytes.length < 100 || !file.bytes.subarray(0, 16).equals(SQLITE_MAGIC)) {
      throw new AppError("VALIDATION", `${file.name} is not a SQLite database (its header does not start with "SQLite format 3").`, {
        files: "Not a SQLite file.",
      });
    }
    writeFileSync(path.join(ctx.storageDir, "database.sqlite"), file.bytes);
    return [];
  }
  if (kind === "documents") {
    // The stored config names the engine (SQLite file or OpenSearch cluster) and its settings.
    const report = await ingestFiles(ctx, files, { config: parseKbConfig("DOCUMENTS", config) as Partial<DocumentsConfig>, secrets });
    const warnings = report.failed.map((f) => `${f.name}: ${f.error}`);
    if (report.added + report.skipped === 0) {
      throw new AppError("VALIDATION", `None of the files could be ingested. ${warnings.join(" ")}`, { files: "No usable document." });
    }
    return warnings;
  }
  try {
    await storeRdfFiles(
      ctx,
      files.map((f) => ({ name: f.name, bytes: f.bytes })),
    );
  } catch (e) {
    throw asAppError(e);
  }
  return [];
}
