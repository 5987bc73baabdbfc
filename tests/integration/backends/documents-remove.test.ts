import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDocumentsBackend, type DocumentsConfig, documentsConfigSchema } from "@/lib/backends/documents";
import { collectionActions } from "@/lib/backends/documents/actions";
import { openSearchTarget, sqliteTarget } from "@/lib/backends/documents/ingest-target";
import { OpenSearchCollection } from "@/lib/backends/documents/opensearch/collection";
import { kbStorageDir } from "@/lib/backends/registry";
import type { BackendContext } from "@/lib/backends/types";
import { ingestFiles } from "@/lib/ingest/documents/ingest-files";

/**
 * Removing one document from a collection, on each engine: its passages, tables, table rows and
 * vectors go, the other documents stay searchable, the catalog views (size, source units) no longer
 * count it, and removing it again (or a document that never was) says there was none.
 */

const url = process.env.TEST_OPENSEARCH_URL;
const dataDir = mkdtempSync(path.join(tmpdir(), "mosaic-remove-"));
const run = Date.now().toString(36);
let counter = 0;

function context(): BackendContext {
  const kbId = `kb-${run}-${++counter}`;
  const storageDir = kbStorageDir(dataDir, kbId);
  mkdirSync(storageDir, { recursive: true });
  return { kbId, kbName: "Orchard notes", storageDir };
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const FILES = [
  { name: "apples.md", bytes: Buffer.from("# Apples\n\nThe orchard grows apples on the north slope. Apples are picked in September.") },
  { name: "pears.md", bytes: Buffer.from("# Pears\n\nPears ripen on the south slope in August.") },
  {
    name: "harvest.csv",
    bytes: Buffer.from("fruit,tonnes\napple,12\npear,7\n"),
  },
];

const ENGINES: { name: string; config: () => DocumentsConfig; skip: boolean }[] = [
  { name: "SQLite", config: () => documentsConfigSchema.parse({ chunkMaxChars: 300 }), skip: false },
  {
    name: "OpenSearch",
    config: () =>
      documentsConfigSchema.parse({
        chunkMaxChars: 300,
        engine: "opensearch",
        opensearch: { url, indexPrefix: "mosaic-test", replicas: 0 },
      }),
    skip: !url,
  },
];

for (const engine of ENGINES) {
  describe.skipIf(engine.skip)(`removing a document from a collection (${engine.name})`, () => {
    it("deletes its passages, tables and rows, keeps the others, and says when there is nothing to remove", async () => {
      const ctx = context();
      const config = engine.config();
      expect(await ingestFiles(ctx, FILES, { config })).toMatchObject({ added: 3, failed: [] });
      const target = () =>
        config.engine === "opensearch" ? openSearchTarget(ctx, config, {}) : Promise.resolve(sqliteTarget(ctx, config));

      const before = createDocumentsBackend(config, {}, ctx);
      let tableKey: string;
      try {
        const docs = await collectionActions(before).listDocuments(10);
        expect(docs.map((d) => d.id).sort()).toEqual(["apples-md", "harvest-csv", "pears-md"]);
        tableKey = (await before.sourceUnits()).find((u) => u.contentType === "TABLE")!.key;
        expect(tableKey).toBe("harvest-csv#table-1");
      } finally {
        await before.close();
      }

      for (const id of ["apples-md", "harvest-csv"]) {
        const t = await target();
        try {
          expect(await t.remove(id)).toBe(true);
        } finally {
          await t.close();
        }
      }

      const after = createDocumentsBackend(config, {}, ctx);
      try {
        expect((await collectionActions(after).listDocuments(10)).map((d) => d.id)).toEqual(["pears-md"]);
        const search = (text: string) => after.execute({ language: "search", text }, { maxRows: 10, timeoutMs: 10_000 });
        expect((await search("apples orchard")).records).toEqual([]);
        expect((await search("tonnes apple")).records).toEqual([]);
        expect((await search("pears ripen")).records.map((r) => r.documentId)).toEqual(["pears-md"]);
        // The removed document's table is no source unit any more, and the size counts one document.
        expect((await after.sourceUnits()).map((u) => u.key)).not.toContain(tableKey);
        expect((await after.describe()).text).toMatch(/: 1 document\b/);
      } finally {
        await after.close();
      }

      const again = await target();
      try {
        expect(await again.remove("apples-md")).toBe(false);
        expect(await again.remove("never-was")).toBe(false);
      } finally {
        await again.close();
      }
      if (config.engine === "opensearch") {
        // Nothing of the removed documents is left in either index.
        const c = OpenSearchCollection.open(config, {}, ctx);
        try {
          expect(await c.count(c.names.unitsAlias, { terms: { document_id: ["apples-md", "harvest-csv"] } })).toBe(0);
          expect(await c.count(c.names.contentAlias, { terms: { document_id: ["apples-md", "harvest-csv"] } })).toBe(0);
          expect(await c.count(c.names.contentAlias, { terms: { id: ["apples-md", "harvest-csv"] } })).toBe(0);
        } finally {
          await c.close();
        }
      }
    });
  });
}
