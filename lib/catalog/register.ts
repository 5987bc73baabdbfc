import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import type { DocumentsConfig } from "../backends/documents";
import { closeBackend, kbStorageDir, openBackendFrom, parseKbConfig } from "../backends/registry";
import type { BackendContext, HealthResult } from "../backends/types";
import { encryptSecrets } from "../crypto/secrets";
import { Prisma, type PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { asAppError } from "./backend-errors";
import { checkOpenSearchCluster } from "../backends/documents/opensearch/cluster";
import { splitConnection } from "./connection";
import { removeKbData } from "./kb-data";
import type { CatalogDeps } from "../deps";
import { type RegisterKbInput, needsUpload, registerKbSchema } from "./knowledge-bases.validation";
import { type RefreshReport, refreshCatalogEntry } from "./refresh";

export interface RegisterResult {
  id: string;
  refresh: RefreshReport;
  /** Per-file problems that did not stop the registration (e.g. one malformed document among ten). */
  warnings: string[];
}

/** Where a KB built from files gets them (lib/ingest/register.ts places uploads; loaders fill it directly). */
export type PopulateKb = (
  ctx: BackendContext,
  source: {
    /** What the kind is built from, when it is built from files. */
    upload: ReturnType<typeof needsUpload>;
    config: Record<string, unknown>;
    secrets: Record<string, string>;
  },
) => Promise<string[] | void>;

export interface RegisterOptions {
  origin?: "user" | "demo" | "benchmark";
  /** Register a SQLite file already on disk (copied, never read into memory). */
  sqliteSourcePath?: string;
  /** Fills the KB's storage (uploads, a benchmark loader); returns per-file warnings. */
  populate?: PopulateKb;
}

/**
 * Registers a KB: validates, stores the row (secrets encrypted), fills its storage (`populate`),
 * checks the connection, then describes it and creates its source objects. If the source cannot be
 * reached or nothing usable was given, everything is rolled back and the error says what to fix.
 * Uploads come through lib/ingest/register.ts, which also asks for the new content's vectors.
 */
export async function registerCatalogEntry(
  prisma: PrismaClient,
  deps: CatalogDeps,
  actorId: string | null,
  raw: RegisterKbInput,
  opts: RegisterOptions = {},
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
        openToEveryone: input.openToEveryone,
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
      warnings = (await opts.populate(ctx, { upload, config, secrets })) ?? [];
    } else if (upload === "sqlite" && opts.sqliteSourcePath) {
      // Benchmark/demo loaders register files already on disk without reading them into memory.
      copyFileSync(opts.sqliteSourcePath, path.join(ctx.storageDir, "database.sqlite"));
    } else if (upload) {
      throw new Error(`A ${input.kind} knowledge base is built from files: register it through lib/ingest/register.ts.`);
    }
    const refresh = await refreshCatalogEntry(prisma, deps, kb.id);
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
