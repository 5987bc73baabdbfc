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
 * content's vectors are asked for, in background jobs whose ids are returned (`jobIds`).
 */
export async function registerKnowledgeBase(
  prisma: PrismaClient,
  deps: CatalogDeps,
  actorId: string | null,
  raw: RegisterKbInput,
  files: UploadedFile[] = [],
  opts: RegisterOptions = {},
): Promise<RegisterResult & { jobIds: string[] }> {
  const populate: RegisterOptions["populate"] =
    opts.populate ??
    (opts.sqliteSourcePath
      ? undefined
      : async (ctx, { upload, config, secrets }) => (upload ? placeUploads(upload, ctx, files, config, secrets) : []));
  let result: RegisterResult;
  try {
    result = await registerCatalogEntry(prisma, deps, actorId, raw, { ...opts, populate });
  } catch (e) {
    // The engine names the file it opened, which is Mosaic's own copy; the person uploaded theirs.
    const sqlite = files.length === 1 && !opts.sqliteSourcePath ? files[0].name : null;
    if (sqlite && e instanceof AppError && e.message.includes(SQLITE_FILE)) {
      throw new AppError(e.code, e.message.split(SQLITE_FILE).join(sqlite), e.fields);
    }
    throw e;
  }
  // The background jobs that go on with the new content (its vectors): the page and the API name them.
  const jobIds = await queueEmbeddingsAfterRefresh(prisma, result.id, result.refresh);
  return { ...result, jobIds };
}

const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");
/** Where an uploaded SQLite database is kept (lib/catalog/connection.ts names it in the knowledge base's settings). */
const SQLITE_FILE = "database.sqlite";

/**
 * The size a SQLite file's header declares (page size × page count), or null when the header does not
 * say reliably (the count is valid only when the change counter matches "version-valid-for"). A file
 * shorter than that lost its end on the way (an interrupted copy or upload).
 */
export function declaredSqliteSize(bytes: Buffer): number | null {
  if (bytes.length < 100) return null;
  const raw = bytes.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const pages = bytes.readUInt32BE(28);
  const valid = pages > 0 && bytes.readUInt32BE(24) === bytes.readUInt32BE(92);
  return valid && pageSize >= 512 ? pageSize * pages : null;
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} bytes`;
}

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
    const declared = declaredSqliteSize(file.bytes);
    if (declared !== null && file.bytes.length < declared) {
      throw new AppError(
        "VALIDATION",
        `${file.name} is cut short: its header says the database is ${formatBytes(declared)}, but the upload has ${formatBytes(file.bytes.length)}. Upload the whole file again.`,
        { files: "The file is incomplete." },
      );
    }
    writeFileSync(path.join(ctx.storageDir, SQLITE_FILE), file.bytes);
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
