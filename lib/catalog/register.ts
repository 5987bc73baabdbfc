import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ingestFiles } from "../backends/documents";
import type { DocumentsConfig } from "../backends/documents";
import { closeBackend, kbStorageDir, openBackendFrom, parseKbConfig } from "../backends/registry";
import { storeRdfFiles } from "../backends/sparql";
import type { BackendContext, HealthResult } from "../backends/types";
import { encryptSecrets } from "../crypto/secrets";
import { Prisma, type PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { asAppError } from "./backend-errors";
import { checkOpenSearchCluster } from "../backends/documents/opensearch/cluster";
import { splitConnection } from "./connection";
import { removeKbData } from "./kb-data";
import type { CatalogDeps } from "./deps";
import { type RegisterKbInput, needsUpload, registerKbSchema } from "./knowledge-bases.validation";
import { type RefreshReport, refreshKnowledgeBase } from "./refresh";

export interface UploadedFile {
  name: string;
  bytes: Buffer;
  mediaType?: string;
}

export interface RegisterResult {
  id: string;
  refresh: RefreshReport;
  /** Per-file problems that did not stop the registration (e.g. one malformed document among ten). */
  warnings: string[];
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

/**
 * Registers a KB: validates, stores the row (secrets encrypted), places uploads, checks the connection,
 * then describes it and creates its source objects. If the source cannot be reached or nothing usable
 * was uploaded, everything is rolled back and the error says what to fix.
 */
export async function registerKnowledgeBase(
  prisma: PrismaClient,
  deps: CatalogDeps,
  actorId: string | null,
  raw: RegisterKbInput,
  files: UploadedFile[] = [],
  opts: {
    origin?: "user" | "demo" | "benchmark";
    /** Register a SQLite file already on disk (copied, never read into memory). */
    sqliteSourcePath?: string;
    /** Fill the KB's storage with a loader instead of uploads (benchmark datasets). */
    populate?: (ctx: BackendContext) => Promise<void>;
  } = {},
): Promise<RegisterResult> {
  const input = registerKbSchema.parse(raw);
  const { config, secrets } = splitConnection(input);
  if (input.groupIds.length) {
    const found = await prisma.group.count({ where: { id: { in: input.groupIds } } });
    if (found !== new Set(input.groupIds).size)
      throw new AppError("VALIDATION", "One of the chosen groups no longer exists.", { groupIds: "Unknown group." });
  }
  const acceptRisk = input.kind === "SQL" && input.connection.dialect === "postgres" && input.connection.acceptPrivilegeRisk;
  const acceptedBy =
    acceptRisk && actorId ? ((await prisma.user.findUnique({ where: { id: actorId }, select: { email: true } }))?.email ?? null) : null;
  let kb;
  try {
    kb = await prisma.knowledgeBase.create({
      data: {
        ...(acceptRisk ? { riskAcceptedAt: new Date(), riskAcceptedBy: acceptedBy } : {}),
        name: input.name,
        kind: input.kind,
        description: input.description,
        config: config as Prisma.InputJsonValue,
        secretsCiphertext: Object.keys(secrets).length ? encryptSecrets(secrets, deps.encryptionKey) : null,
        origin: opts.origin ?? "user",
        createdById: actorId,
        groupAccess: { create: [...new Set(input.groupIds)].map((groupId) => ({ groupId })) },
      },
    });
  } catch (e) {
    if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002") {
      throw new AppError("CONFLICT", `A knowledge base named "${input.name}" already exists.`, { name: "This name is taken." });
    }
    throw e;
  }
  const ctx: BackendContext = { kbId: kb.id, kbName: kb.name, storageDir: kbStorageDir(deps.dataDir, kb.id) };
  try {
    mkdirSync(ctx.storageDir, { recursive: true });
    const upload = needsUpload(input);
    let warnings: string[] = [];
    if (opts.populate) {
      await opts.populate(ctx);
    } else if (upload === "sqlite" && opts.sqliteSourcePath) {
      // Benchmark/demo loaders register files already on disk without reading them into memory.
      copyFileSync(opts.sqliteSourcePath, path.join(ctx.storageDir, "database.sqlite"));
    } else if (upload) {
      warnings = await placeUploads(upload, ctx, files, config, secrets);
    }
    const refresh = await refreshKnowledgeBase(prisma, deps, kb.id);
    if (refresh.refused) {
      throw new AppError("VALIDATION", refresh.message, {
        acceptPrivilegeRisk: "Tick this to register the knowledge base with this role anyway.",
      });
    }
    if (refresh.status !== "HEALTHY") throw new AppError("UNAVAILABLE", refresh.message);
    return { id: kb.id, refresh, warnings };
  } catch (e) {
    await closeBackend(kb.id);
    await prisma.knowledgeBase.delete({ where: { id: kb.id } }).catch(() => undefined);
    await removeKbData({ ...kb, kind: input.kind }, deps).catch(() => undefined);
    throw asAppError(e);
  }
}

/** "Test connection" from the registration form: opens the source with the given settings, saves nothing. */
export async function testConnection(deps: CatalogDeps, raw: RegisterKbInput): Promise<HealthResult> {
  const input = registerKbSchema.parse(raw);
  const { config, secrets } = splitConnection(input);
  if (input.kind === "DOCUMENTS" && input.connection.engine === "opensearch") {
    return checkOpenSearchCluster(parseKbConfig("DOCUMENTS", config) as DocumentsConfig, secrets);
  }
  if (needsUpload(input)) {
    return { ok: true, message: "Nothing to test: this kind is built from the files you upload.", latencyMs: 0 };
  }
  const scratch = path.join(deps.dataDir, "tmp", `test-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const accepted = input.kind === "SQL" && input.connection.dialect === "postgres" && input.connection.acceptPrivilegeRisk;
  const backend = openBackendFrom(input.kind, config, secrets, {
    kbId: "connection-test",
    kbName: input.name,
    storageDir: scratch,
    privilegeRiskAccepted: accepted,
  });
  try {
    return await backend.check();
  } catch (e) {
    return { ok: false, message: (e as Error).message, latencyMs: 0 };
  } finally {
    await backend.close().catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
  }
}
