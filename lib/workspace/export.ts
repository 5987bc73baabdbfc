import { cpSync, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { once } from "node:events";
import { createDocumentsBackend } from "../backends/documents/backend";
import type { DocumentsConfig } from "../backends/documents/config";
import { openIndexForRead, readMeta } from "../backends/documents/index-db";
import { storedDocuments } from "../backends/documents/stored-documents";
import { kbStorageDir, parseKbConfig } from "../backends/registry";
import type { BackendContext } from "../backends/types";
import type { CatalogDeps } from "../deps";
import type { DatabaseHandle } from "../db/connect";
import { AppError } from "../errors";
import { type CollectionEntry, encodeRow, EXPORT_FORMAT, keyCheck, type Manifest } from "./manifest";
import { CARRIED_TABLES } from "./tables";

/**
 * `npm run workspace:export`: writes a workspace (the application database and its knowledge bases'
 * stored files) into a new folder that `npm run workspace:import` reads into another deployment:
 * - catalog/<Model>.jsonl: every row of every carried table (users with their password hashes, groups,
 *   knowledge bases with their secrets still encrypted, source objects, guides, settings, history);
 * - collections/<kbId>.jsonl: each document collection kept on this server, document by document as
 *   stored (ids, passages, offsets, sentences, tables, content hashes), so it can be written into OpenSearch;
 * - files/kbs/<kbId>/: each knowledge base's storage directory as it is (SQLite files, RDF stores);
 * - manifest.json: versions, counts and a check value of the encryption key.
 * Reading only: the workspace is left as it was.
 */

export interface ExportReport {
  dir: string;
  manifest: Manifest;
}

function appVersion(): string {
  return (JSON.parse(readFileSync(path.join(process.cwd(), "package.json"), "utf8")) as { version: string }).version;
}

async function appliedMigrations(handle: DatabaseHandle): Promise<string[]> {
  const rows = await handle.prisma.$queryRaw<{ migration_name: string }[]>`
    SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`;
  return rows.map((r) => r.migration_name);
}

async function writeLines(file: string, lines: Iterable<string>): Promise<number> {
  const out = createWriteStream(file, { encoding: "utf8" });
  let n = 0;
  for (const line of lines) {
    if (!out.write(`${line}\n`)) await once(out, "drain");
    n++;
  }
  out.end();
  await once(out, "finish");
  return n;
}

export async function exportWorkspace(
  handle: DatabaseHandle,
  deps: Pick<CatalogDeps, "dataDir" | "encryptionKey">,
  outDir: string,
  log: (line: string) => void = () => undefined,
): Promise<ExportReport> {
  const dir = path.resolve(outDir);
  if (existsSync(dir) && readdirSync(dir).length)
    throw new AppError("VALIDATION", `${dir} is not empty: an export never overwrites; choose a new folder.`);
  for (const sub of ["catalog", "collections", "files/kbs"]) mkdirSync(path.join(dir, sub), { recursive: true });

  const tables: Record<string, number> = {};
  for (const t of CARRIED_TABLES) {
    const delegate = handle.prisma[t.delegate] as unknown as { findMany(): Promise<Record<string, unknown>[]> };
    const rows = await delegate.findMany();
    tables[t.model] = await writeLines(path.join(dir, "catalog", `${t.model}.jsonl`), rows.map(encodeRow));
    log(`${t.model}: ${rows.length.toLocaleString("en")} rows`);
  }

  const collections: CollectionEntry[] = [];
  const kbFiles: string[] = [];
  const kbs = await handle.prisma.knowledgeBase.findMany({ select: { id: true, name: true, kind: true, config: true } });
  for (const kb of kbs) {
    const storage = kbStorageDir(deps.dataDir, kb.id);
    if (existsSync(storage) && readdirSync(storage).length) {
      cpSync(storage, path.join(dir, "files", "kbs", kb.id), { recursive: true });
      kbFiles.push(kb.id);
    }
    if (kb.kind !== "DOCUMENTS") continue;
    const config = parseKbConfig("DOCUMENTS", kb.config) as DocumentsConfig;
    if (config.engine === "opensearch") continue; // already in a cluster: it stays where it is
    const ctx: BackendContext = { kbId: kb.id, kbName: kb.name, storageDir: storage };
    if (!existsSync(path.join(storage, "collection.sqlite"))) continue;
    const db = openIndexForRead(ctx);
    let entry: Omit<CollectionEntry, "version" | "stats">;
    try {
      const documents = await writeLines(
        path.join(dir, "collections", `${kb.id}.jsonl`),
        (function* () {
          for (const item of storedDocuments(db)) yield JSON.stringify(item);
        })(),
      );
      entry = {
        kbId: kb.id,
        name: kb.name,
        documents,
        language: readMeta(db, "language") ?? config.language,
        chunkMaxChars: Number(readMeta(db, "chunk_max_chars") ?? config.chunkMaxChars),
      };
    } finally {
      db.close();
    }
    const backend = createDocumentsBackend(config, {}, ctx);
    try {
      const d = await backend.describe();
      collections.push({ ...entry, version: d.version, stats: d.stats as Record<string, unknown> });
    } finally {
      await backend.close();
    }
    log(`Collection ${kb.name}: ${entry.documents.toLocaleString("en")} documents`);
  }

  const manifest: Manifest = {
    format: EXPORT_FORMAT,
    appVersion: appVersion(),
    exportedAt: new Date().toISOString(),
    source: { engine: handle.engine, location: handle.location },
    migrations: await appliedMigrations(handle),
    keyCheck: keyCheck(deps.encryptionKey),
    secrets:
      (await handle.prisma.knowledgeBase.count({ where: { secretsCiphertext: { not: null } } })) +
      (await handle.prisma.setting.count({ where: { secretCiphertext: { not: null } } })),
    tables,
    collections,
    kbFiles,
  };
  writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest, null, 2));
  return { dir, manifest };
}
