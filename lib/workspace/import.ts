import { cpSync, createReadStream, existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { createDocumentsBackend } from "../backends/documents/backend";
import { type DocumentsConfig, openSearchSettingsSchema } from "../backends/documents/config";
import { enqueueCollectionEmbedding } from "../ingest/documents/embedding-queue";
import { openSearchTarget } from "../backends/documents/ingest-target";
import { checkOpenSearchCluster } from "../backends/documents/opensearch/cluster";
import type { DocumentToCommit } from "../backends/documents/store";
import { ingestJobKey } from "../ingest/documents/upload-queue";
import { ingestUploadsJob } from "../jobs/definitions";
import { enqueueJob } from "../jobs/queue";
import { closeAllBackends, kbStorageDir } from "../backends/registry";
import type { CatalogDeps } from "../deps";
import { checkKnowledgeBase } from "../catalog/refresh";
import { decryptSecret, encryptSecret } from "../crypto/secrets";
import { type DatabaseHandle, openDatabase } from "../db/connect";
import { Prisma } from "../db/generated/client";
import { applyPendingMigrations } from "../db/migrations";
import { MIGRATIONS_DIR } from "../db/schema-engine";
import { AppError } from "../errors";
import { type CollectionEntry, decodeRow, EXPORT_FORMAT, keyCheck, type Manifest, manifestSchema } from "./manifest";
import { CARRIED_TABLES } from "./tables";

/**
 * `npm run workspace:import`: reads a workspace export into a new deployment: PostgreSQL (DATABASE_URL)
 * for the catalog and, with a search URL, OpenSearch for the document collections that were kept as
 * SQLite files. Checked before anything is written: the export's format and database version match
 * this Mosaic, the encryption key opens its secrets (or the old key is given, and they are encrypted
 * again with the new one), the cluster answers, and the target database and storage are empty.
 * Collections are written first (re-running after a failure skips what the cluster holds) and each is
 * verified (the same descriptor version and counts); the catalog then goes in as one transaction, so
 * a failed import leaves the target database empty and can simply be run again. The export is only read.
 */

export interface ImportOptions {
  from: string;
  target: {
    databaseUrl?: string;
    dataDir: string;
    datasetsDir: string;
    /** Where kbs/<id> goes (STORAGE_DIR); absent: dataDir. */ storageDir?: string;
  };
  /** The new deployment's encryption key. */
  encryptionKey: Buffer;
  /** The old deployment's key, when it differs: the secrets are decrypted with it and encrypted again. */
  sourceKey?: Buffer;
  /** OpenSearch for the collections kept as SQLite files; absent: they stay files under the target DATA_DIR. */
  search?: { url: string; /** False when it is the deployment's SEARCH_URL (then the collections follow that variable). */ store: boolean };
  log?: (line: string) => void;
}

export interface ImportReport {
  tables: Record<string, number>;
  collectionsMoved: string[];
}

const BATCH = 200;

function readManifest(dir: string): Manifest {
  const file = path.join(dir, "manifest.json");
  if (!existsSync(file))
    throw new AppError(
      "VALIDATION",
      `${dir} is not a workspace export (it has no manifest.json). Create one with npm run workspace:export -- --out <folder>.`,
    );
  const parsed = manifestSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new AppError("VALIDATION", `${file} is damaged or not a workspace manifest; export the workspace again.`);
  if (parsed.data.format !== EXPORT_FORMAT) {
    throw new AppError(
      "VALIDATION",
      `The export is in format ${parsed.data.format}; this Mosaic reads format ${EXPORT_FORMAT}. Export again with the same Mosaic version as the import.`,
    );
  }
  return parsed.data;
}

/** The export's database must be at exactly this code's migrations: rows of another schema would not fit. */
function checkVersion(m: Manifest): void {
  const ours = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const theirs = [...m.migrations].sort();
  const unknown = theirs.filter((n) => !ours.includes(n));
  const missing = ours.filter((n) => !theirs.includes(n));
  if (unknown.length) {
    throw new AppError(
      "VALIDATION",
      `The export was made by a newer Mosaic (${m.appVersion}; its database has ${unknown.length} change(s) this version lacks, such as ${unknown[0]}). Import it with that version or a later one.`,
    );
  }
  if (missing.length) {
    throw new AppError(
      "VALIDATION",
      `The export was made by an older Mosaic (${m.appVersion}; its database lacks ${missing.length} change(s), such as ${missing[0]}). Start the old workspace once with this version (it upgrades its database), then export again.`,
    );
  }
}

function secretTranslator(m: Manifest, opts: ImportOptions): (ciphertext: string | null) => string | null {
  if (m.secrets === 0 || keyCheck(opts.encryptionKey) === m.keyCheck) return (c) => c;
  if (!opts.sourceKey) {
    throw new AppError(
      "VALIDATION",
      "The export's passwords and API keys are encrypted with another key than this deployment's. Pass the old key (--source-secrets <old DATA_DIR>/secrets.json, or --source-key) so they are encrypted again with the new one, or set MOSAIC_ENCRYPTION_KEY to the old key.",
    );
  }
  if (keyCheck(opts.sourceKey) !== m.keyCheck)
    throw new AppError("VALIDATION", "The old key given is not the one the export's secrets are encrypted with.");
  const from = opts.sourceKey;
  return (c) => (c === null ? null : encryptSecret(decryptSecret(c, from), opts.encryptionKey));
}

async function* jsonLines(file: string): AsyncGenerator<string> {
  if (!existsSync(file)) return;
  for await (const line of createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity })) if (line.trim()) yield line;
}

function targetConfig(entry: CollectionEntry, search: NonNullable<ImportOptions["search"]>): DocumentsConfig {
  return {
    language: entry.language,
    chunkMaxChars: entry.chunkMaxChars,
    engine: "opensearch",
    opensearch: openSearchSettingsSchema.parse(search.store ? { url: search.url } : {}),
  };
}

/** Writes one collection into OpenSearch as stored, then checks it describes itself as before. */
async function copyCollection(dir: string, entry: CollectionEntry, config: DocumentsConfig, storageDir: string): Promise<void> {
  const ctx = { kbId: entry.kbId, kbName: entry.name, storageDir };
  const writer = await openSearchTarget(ctx, config, {});
  try {
    let batch: DocumentToCommit[] = [];
    for await (const line of jsonLines(path.join(dir, "collections", `${entry.kbId}.jsonl`))) {
      const item = JSON.parse(line) as
        { input: DocumentToCommit } | { failed: { sourceName: string; mediaType: string; contentHash: string; error: string } };
      if ("failed" in item) {
        await writer.recordFailure(item.failed);
        continue;
      }
      batch.push(item.input);
      if (batch.length >= BATCH) {
        await writer.commitMany(batch);
        batch = [];
      }
    }
    if (batch.length) await writer.commitMany(batch);
  } finally {
    await writer.close();
  }
  const backend = createDocumentsBackend(config, {}, ctx);
  try {
    const d = await backend.describe();
    if (d.version !== entry.version || JSON.stringify(d.stats) !== JSON.stringify(entry.stats)) {
      throw new AppError(
        "UNAVAILABLE",
        `The copy of ${entry.name} in OpenSearch does not match the export (${JSON.stringify(d.stats)} instead of ${JSON.stringify(entry.stats)}); nothing was written to the database. Run the import again.`,
      );
    }
  } finally {
    await backend.close();
  }
}

async function openTarget(opts: ImportOptions): Promise<DatabaseHandle> {
  let handle: DatabaseHandle | undefined;
  try {
    handle = await openDatabase({ DATABASE_URL: opts.target.databaseUrl, DATA_DIR: opts.target.dataDir });
    await applyPendingMigrations(handle.adapterFactory);
    return handle;
  } catch (e) {
    await handle?.close().catch(() => undefined);
    if (e instanceof AppError) throw e;
    const where = handle?.location ?? (opts.target.databaseUrl ? "the target PostgreSQL server" : opts.target.dataDir);
    throw new AppError(
      "UNAVAILABLE",
      `The target database (${where}) cannot be used: ${(e as Error).message.split("\n")[0]}. Check DATABASE_URL (or --to-database) and that the server is running.`,
    );
  }
}

export async function importWorkspace(opts: ImportOptions): Promise<ImportReport> {
  const log = opts.log ?? (() => undefined);
  const dir = path.resolve(opts.from);
  const manifest = readManifest(dir);
  checkVersion(manifest);
  const secret = secretTranslator(manifest, opts);
  const moving = opts.search ? manifest.collections : [];
  if (opts.search && moving.length) {
    const health = await checkOpenSearchCluster(targetConfig(moving[0]!, { url: opts.search.url, store: true }), {});
    if (!health.ok) throw new AppError("UNAVAILABLE", `${health.message} Nothing was imported.`);
  }
  for (const kbId of manifest.kbFiles) {
    const target = kbStorageDir(storageRoot(opts), kbId);
    if (existsSync(target) && readdirSync(target).length)
      throw new AppError(
        "VALIDATION",
        `${target} already holds a knowledge base's files: import into an empty storage directory (STORAGE_DIR, or DATA_DIR when unset), so nothing there is overwritten.`,
      );
  }

  const handle = await openTarget(opts);
  try {
    const [users, kbs] = await Promise.all([handle.prisma.user.count(), handle.prisma.knowledgeBase.count()]);
    if (users || kbs) {
      throw new AppError(
        "VALIDATION",
        `The target database (${handle.location}) already holds a workspace (${users} users, ${kbs} knowledge bases): import only into an empty database, so nothing there is overwritten.`,
      );
    }

    const movedConfigs = new Map<string, DocumentsConfig>();
    for (const entry of moving) {
      const config = targetConfig(entry, opts.search!);
      log(`Copying ${entry.name} (${entry.documents.toLocaleString("en")} documents) into OpenSearch…`);
      await copyCollection(dir, entry, config, kbStorageDir(storageRoot(opts), entry.kbId));
      movedConfigs.set(entry.kbId, config);
    }

    const tables: Record<string, number> = {};
    await handle.prisma.$transaction(
      async (tx) => {
        for (const t of CARRIED_TABLES) {
          const delegate = tx[t.delegate as keyof typeof tx] as unknown as {
            createMany(args: { data: object[] }): Promise<{ count: number }>;
          };
          let batch: Record<string, unknown>[] = [];
          let n = 0;
          const flush = async () => {
            if (batch.length) n += (await delegate.createMany({ data: batch })).count;
            batch = [];
          };
          for await (const line of jsonLines(path.join(dir, "catalog", `${t.model}.jsonl`))) {
            const row = decodeRow(line);
            for (const f of t.nullableJson ?? []) if (row[f] === null) row[f] = Prisma.DbNull;
            if (t.model === "KnowledgeBase") {
              const moved = movedConfigs.get(row.id as string);
              if (moved) row.config = moved;
              row.secretsCiphertext = secret(row.secretsCiphertext as string | null);
            }
            if (t.model === "Setting") row.secretCiphertext = secret(row.secretCiphertext as string | null);
            batch.push(row);
            if (batch.length >= 500) await flush();
          }
          await flush();
          if (n !== (manifest.tables[t.model] ?? 0))
            throw new AppError(
              "VALIDATION",
              `${t.model}: ${n} rows read, the export lists ${manifest.tables[t.model] ?? 0}; the export is incomplete. Export again.`,
            );
          tables[t.model] = n;
          log(`${t.model}: ${n.toLocaleString("en")} rows`);
        }
      },
      { timeout: 30 * 60_000, maxWait: 60_000 },
    );

    for (const kbId of manifest.kbFiles) {
      if (movedConfigs.has(kbId)) continue;
      cpSync(path.join(dir, "files", "kbs", kbId), kbStorageDir(storageRoot(opts), kbId), { recursive: true });
    }
    // What the new deployment must do: vectors for the moved collections, documents still waiting.
    const deps: CatalogDeps = { dataDir: storageRoot(opts), encryptionKey: opts.encryptionKey, datasetsDir: opts.target.datasetsDir };
    for (const kbId of movedConfigs.keys()) {
      await checkKnowledgeBase(handle.prisma, deps, kbId);
      await enqueueCollectionEmbedding(handle.prisma, kbId);
    }
    for (const { kbId } of await handle.prisma.pendingUpload.groupBy({ by: ["kbId"] })) {
      await enqueueJob(
        handle.prisma,
        ingestUploadsJob,
        { kbId },
        { activeKey: ingestJobKey(kbId), kbId, message: "Waiting to add the documents." },
      );
    }
    return { tables, collectionsMoved: [...movedConfigs.keys()] };
  } finally {
    await closeAllBackends();
    await handle.close();
  }
}

/** The directory that receives kbs/<id>: STORAGE_DIR when the deployment shares one, else DATA_DIR. */
function storageRoot(opts: { target: { dataDir: string; storageDir?: string } }): string {
  return opts.target.storageDir ?? opts.target.dataDir;
}
