import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDocumentsBackend,
  type DocumentsConfig,
  documentsConfigSchema,
  selectCoordinates,
  selectSentences,
} from "@/lib/backends/documents";
import { ingestFiles, type IngestReport } from "@/lib/ingest/documents/ingest-files";
import { loadSciFact } from "@/lib/ingest/benchmarks/scifact";
import { collectionActions } from "@/lib/backends/documents/actions";
import { OpenSearchDocumentsBackend } from "@/lib/backends/documents/opensearch/backend";
import { OpenSearchCollection } from "@/lib/backends/documents/opensearch/collection";
import { call } from "@/lib/backends/documents/opensearch/connection";
import { embedMissingVectors, openVectorStore } from "@/lib/backends/documents/vector-store";
import { BackendUnavailableError, QueryExecutionError, QueryRejectedError, QuerySyntaxError } from "@/lib/backends/errors";
import { kbStorageDir } from "@/lib/backends/registry";
import type { BackendContext, EvidencePiece, KnowledgeBackend } from "@/lib/backends/types";
import { ndcgAtK } from "@/lib/eval/metrics/retrieval";
import { SCIFACT_CLAIMS, scifactQuestions } from "@/lib/eval/suites/scifact";
import { knownVector } from "@/lib/models/known-vectors";
import { LocalModelRuntime } from "@/lib/models/local-runtime";
import type { Embedder } from "@/lib/models/types";
import { EMBEDDER, SHARED_MODELS_DIR, sharedModelsAvailable } from "@/tests/support/models/fixtures";
import { goodFixtures, malformedFixtures } from "@/tests/fixtures/documents/fixture-files";

/**
 * The documents backend's contract on both engines: the same files ingested into a SQLite collection
 * and into an OpenSearch one (the test node that `npm run test:services` starts, TEST_OPENSEARCH_URL)
 * must give the same catalog views and, for the same questions, the same evidence.
 *
 * Ranking tolerance: BM25 differs in detail between FTS5 and Lucene (FTS5's idf has no "+1", and
 * it folds all columns into one length), so scores differ; what must agree is the kinds of evidence,
 * the first hit, and at least 4 of each top 5 (the same holds for hybrid search, whose vector half is
 * exact in SQLite and approximate (HNSW) in OpenSearch). On these fixtures both engines currently
 * return identical orders.
 */

const url = process.env.TEST_OPENSEARCH_URL;
const dataDir = mkdtempSync(path.join(tmpdir(), "mosaic-engines-"));
const run = Date.now().toString(36);
const encryptionKey = Buffer.alloc(32, 3);

const sqliteConfig = documentsConfigSchema.parse({ chunkMaxChars: 300 });
const openSearchConfig = (prefix = "mosaic-test") =>
  documentsConfigSchema.parse({ chunkMaxChars: 300, engine: "opensearch", opensearch: { url, indexPrefix: prefix, replicas: 0 } });

let counter = 0;
function context(name = "Fixtures"): BackendContext {
  const kbId = `kb-${run}-${++counter}`;
  const storageDir = kbStorageDir(dataDir, kbId);
  mkdirSync(storageDir, { recursive: true });
  return { kbId, kbName: name, storageDir };
}

const QUESTIONS = [
  "How high was the storm surge the keeper recorded?",
  "Widget Mini price",
  "revenue in EMEA",
  "Rotterdam warehouse stock",
  "audit findings 2024",
  "Who manages the northern region?",
  "'); DROP TABLE chunks; --",
];

const search = (b: KnowledgeBackend, text: string, filters?: Record<string, unknown>, maxRows = 10, embedder?: Embedder) =>
  b.execute({ language: "search", text, filters }, { maxRows, timeoutMs: 10_000, embedder });

/** A piece without what legitimately differs between engines (the engine's score, and the engine named in the hybrid note). */
function comparable(p: EvidencePiece) {
  const data: Record<string, unknown> = { ...(p.data as unknown as Record<string, unknown>) };
  delete data.engineScore;
  return {
    id: p.id,
    kind: p.kind,
    text: p.text,
    entities: p.entities,
    data,
    sourceObject: p.provenance.sourceObject,
    location: p.provenance.location,
  };
}

function expectSameRanking(a: EvidencePiece[], b: EvidencePiece[]) {
  expect(new Set(a.map((p) => p.kind))).toEqual(new Set(b.map((p) => p.kind)));
  expect(a.length).toBe(b.length);
  if (!a.length) return;
  expect(comparable(a[0]!)).toEqual(comparable(b[0]!));
  const topA = new Set(a.slice(0, 5).map((p) => p.id));
  expect(b.slice(0, 5).filter((p) => topA.has(p.id)).length).toBeGreaterThanOrEqual(Math.min(4, topA.size));
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe.skipIf(!url)("document collections on SQLite and on OpenSearch answer alike", () => {
  let sqliteCtx: BackendContext;
  let osCtx: BackendContext;
  let sqlite: KnowledgeBackend;
  let os: OpenSearchDocumentsBackend;
  const reports: IngestReport[] = [];

  beforeAll(async () => {
    sqliteCtx = context();
    // One KB on two engines: evidence ids (which name the KB) must then be equal too.
    osCtx = { ...sqliteCtx };
    const files = [...goodFixtures(), ...malformedFixtures()];
    reports.push(await ingestFiles(sqliteCtx, files, { config: sqliteConfig }));
    reports.push(await ingestFiles(osCtx, files, { config: openSearchConfig() }));
    sqlite = createDocumentsBackend(sqliteConfig, {}, sqliteCtx);
    os = createDocumentsBackend(openSearchConfig(), {}, osCtx) as OpenSearchDocumentsBackend;
  });
  afterAll(async () => {
    await sqlite?.close();
    await os?.close();
  });

  it("ingests the same files with the same outcome, failures named alike", () => {
    expect(reports[1]).toEqual(reports[0]);
    expect(reports[0]).toMatchObject({ added: 6, failed: expect.arrayContaining([expect.objectContaining({ name: "broken.pdf" })]) });
  });

  it("reports the same size, and where the cluster is", async () => {
    const [a, b] = [await sqlite.check(), await os.check()];
    expect(b.ok).toBe(true);
    expect(b.message.startsWith(a.message)).toBe(true);
    // Green, or yellow where another test's index asks for a replica this single node cannot hold.
    expect(b.message).toMatch(new RegExp(`; OpenSearch at ${new URL(url!).origin.replace(/[.]/g, "\\.")}, cluster (green|yellow)$`));
  });

  it("gives the same descriptor (text and version), source units, entity index and structure", async () => {
    // KB names are the same; the descriptor does not depend on the engine.
    expect(await os.describe()).toEqual(await sqlite.describe());
    expect(await os.sourceUnits()).toEqual(await sqlite.sourceUnits());
    expect(await os.entityIndex()).toEqual(await sqlite.entityIndex());
    expect(await os.entityIndex({ limit: 7 })).toEqual(await sqlite.entityIndex({ limit: 7 }));
    expect(await os.structure()).toEqual(await sqlite.structure());
  });

  it("previews the collection, a document and a table alike, and refuses an unknown key alike", async () => {
    for (const key of ["collection", "field-notes-txt", "inventory-json#table-1", "quarterly-report-md"]) {
      expect(await os.preview(key, { limit: 4 })).toEqual(await sqlite.preview(key, { limit: 4 }));
    }
    await expect(os.preview("nope#table-3")).rejects.toThrow(QueryExecutionError);
  });

  it.each(QUESTIONS)("answers %j with the same evidence", async (question) => {
    const a = sqlite.verbalize(await search(sqlite, question));
    const b = os.verbalize(await search(os, question));
    expect(a.length).toBeGreaterThan(0);
    expectSameRanking(b, a);
    // Passages carry sentences and offsets, rows their table, headers and values: a hit both return is the same record.
    const byId = new Map(a.map((p) => [p.id, comparable(p)]));
    for (const piece of b.filter((p) => byId.has(p.id))) expect(comparable(piece)).toEqual(byId.get(piece.id));
  });

  it("treats query syntax in the text as words on both engines", async () => {
    for (const text of ['NEAR("storm" surge', "body:storm", "storm*", "NOT storm AND (", 'search_text:"x" OR {"match_all":{}}']) {
      expectSameRanking(os.verbalize(await search(os, text)), sqlite.verbalize(await search(sqlite, text)));
    }
    expect(await search(os, "?!* ( ) :")).toMatchObject({ records: [], truncated: false });
  });

  it("applies the same filters", async () => {
    const text = "widget warehouse Rotterdam Hamburg";
    for (const filters of [
      { contentType: "text" },
      { contentType: "table" },
      { sourceObject: "inventory-json#table-2" },
      { sourceObject: "collection" },
      { sourceObject: "product-catalog-html" },
      { documentIds: ["audit-summary-pdf", "inventory-json"] },
    ]) {
      const b = (await search(os, text, filters)).records.map((r) => `${r.kind}:${r.sourceObject}:${r.documentId}`);
      const a = (await search(sqlite, text, filters)).records.map((r) => `${r.kind}:${r.sourceObject}:${r.documentId}`);
      expect(new Set(b), JSON.stringify(filters)).toEqual(new Set(a));
    }
  });

  it("refuses unknown source objects, malformed filters and other languages alike", async () => {
    await expect(search(os, "widget", { sourceObject: "nope#table-9" })).rejects.toThrow(/no source object "nope#table-9"/);
    await expect(search(os, "widget", { contentType: "graph" })).rejects.toThrow(QuerySyntaxError);
    await expect(os.execute({ language: "sql", text: "SELECT 1" })).rejects.toThrow(QueryRejectedError);
  });

  it("caps rows and says so", async () => {
    const text = "the widget warehouse storm table region audit";
    const capped = await search(os, text, undefined, 3);
    expect(capped.records).toHaveLength(3);
    expect(capped.truncated).toBe(true);
    expect((await search(os, text, undefined, 1000)).records.slice(0, 3)).toEqual(capped.records);
  });

  it("stops before searching when the caller already gave up", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(os.execute({ language: "search", text: "storm" }, { signal: controller.signal })).rejects.toThrow(/cancelled/);
  });

  it("runs the retrieval actions (SelectSentenceIdxs, SelectCoordinates) alike", async () => {
    expect(await os.selectSentences("field-notes-txt", [0, 2])).toEqual(selectSentences(sqliteCtx, "field-notes-txt", [0, 2]));
    expect(await os.selectCoordinates("product-catalog-html#table-1", [1], ["Product", 1])).toEqual(
      selectCoordinates(sqliteCtx, "product-catalog-html#table-1", [1], ["Product", 1]),
    );
    await expect(os.selectSentences("field-notes-txt", [99])).rejects.toThrow(/does not exist/);
    expect(await os.readSentences("field-notes-txt")).toEqual(await collectionActions(sqlite).readSentences("field-notes-txt"));
    await expect(os.readSentences("nope")).rejects.toThrow(/no document "nope"/);
    // The analyst's document picker: same documents, sentence and table counts.
    expect(await collectionActions(os).listDocuments(100)).toEqual(await collectionActions(sqlite).listDocuments(100));
  });

  describe.skipIf(!sharedModelsAvailable())("hybrid search with the shared sentence embedder", () => {
    let runtime: LocalModelRuntime;
    let embedder: Embedder;
    const kbOf = (ctx: BackendContext, config: DocumentsConfig) => ({ id: ctx.kbId, name: ctx.kbName, config, secretsCiphertext: null });

    beforeAll(async () => {
      runtime = new LocalModelRuntime({
        precision: "int8",
        embedder: EMBEDDER,
        crossEncoder: null,
        locations: { modelsDir: SHARED_MODELS_DIR, cacheDir: path.join(dataDir, "models") },
        threads: 1,
        batchWaitMs: 2,
        batchSize: 32,
        queueLimit: 1000,
        timeoutMs: 30_000,
      });
      embedder = await runtime.embedder();
      for (const [ctx, config] of [
        [sqliteCtx, sqliteConfig],
        [osCtx, openSearchConfig()],
      ] as const) {
        const store = openVectorStore(kbOf(ctx, config), { dataDir, encryptionKey });
        try {
          expect(await store.prepare(embedder.info.id, embedder.info.dimensions ?? 0)).toBe(true);
          const state = await embedMissingVectors(store, embedder, { stepTimeoutMs: 60_000 });
          expect(state).toMatchObject({ model: embedder.info.id, embedded: state.rows });
          expect(await store.prepare(embedder.info.id, embedder.info.dimensions ?? 0)).toBe(false);
        } finally {
          await store.close();
        }
      }
    }, 180_000);
    afterAll(async () => runtime?.close());

    it.each(["How tall was the flood wave at the lighthouse?", "cheapest small gadget", "money earned in Europe"])(
      "ranks %j alike, fused the same way",
      async (question) => {
        const a = sqlite.verbalize(await search(sqlite, question, undefined, 10, embedder));
        const b = os.verbalize(await search(os, question, undefined, 10, embedder));
        expectSameRanking(b, a);
        expect(b[0]!.provenance.query).toMatch(
          /\[hybrid search: BM25 \(OpenSearch\) \+ vector similarity \(.+; k-NN, Lucene HNSW\), weighted blend of normalised BM25 and cosine similarity, weights BM25 0.50 : vector 0.50\]$/,
        );
        // The stored vector travels with the piece, as in SQLite (the dense scorer reuses it).
        const va = knownVector(a[0]!, embedder.info.id);
        const vb = knownVector(b[0]!, embedder.info.id);
        expect(vb).not.toBeNull();
        expect(Array.from(vb!).map((x) => x.toFixed(4))).toEqual(Array.from(va!).map((x) => x.toFixed(4)));
      },
    );

    it("falls back to BM25 for a model whose vectors the collection does not hold", async () => {
      const other = { ...embedder, info: { ...embedder.info, id: "another-model@int8:0000" } } as Embedder;
      const result = await search(os, "storm surge", undefined, 5, other);
      expect(result.records[0]).not.toHaveProperty("retrieval");
    });
  });
});

const datasetsDir = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");
const SCIFACT_DOCS = 600;

describe.skipIf(!url || !existsSync(path.join(datasetsDir, SCIFACT_CLAIMS)))(
  `SciFact's first ${SCIFACT_DOCS} abstracts on both engines`,
  () => {
    let ctx: BackendContext;
    let sqlite: KnowledgeBackend;
    let os: KnowledgeBackend;
    let claims: { claim: string; cited: string[] }[];

    beforeAll(async () => {
      ctx = context("SciFact sample");
      const a = await loadSciFact(ctx, datasetsDir, { limit: SCIFACT_DOCS, config: sqliteConfig });
      const b = await loadSciFact(ctx, datasetsDir, { limit: SCIFACT_DOCS, config: openSearchConfig() });
      expect(b).toEqual(a);
      sqlite = createDocumentsBackend(sqliteConfig, {}, ctx);
      os = createDocumentsBackend(openSearchConfig(), {}, ctx);
      const loaded = new Set((await collectionActions(sqlite).listDocuments(SCIFACT_DOCS)).map((d) => d.id));
      // Claims whose cited abstracts are among the loaded ones, relevance restricted to those (BEIR's binary relevance).
      claims = scifactQuestions(datasetsDir)
        .map((q) => ({ claim: q.question, cited: (q.evidence?.documentIds ?? []).filter((id) => loaded.has(id)) }))
        .filter((c) => c.cited.length > 0)
        .slice(0, 60);
    }, 300_000);
    afterAll(async () => {
      await sqlite?.close();
      await os?.close();
    });

    it("ranks the claims' abstracts alike: NDCG@10 within 0.02, the same first abstract for at least 85% of claims", async () => {
      expect(claims.length).toBeGreaterThanOrEqual(30);
      const ndcg = { sqlite: 0, os: 0 };
      let sameFirst = 0;
      for (const c of claims) {
        const ranked = async (b: KnowledgeBackend) => [
          ...new Set((await search(b, c.claim, undefined, 100)).records.map((r) => String(r.documentId))),
        ];
        const [a, o] = [await ranked(sqlite), await ranked(os)];
        const ranks = (docs: string[]) => c.cited.map((id) => (docs.indexOf(id) >= 0 ? docs.indexOf(id) + 1 : null));
        ndcg.sqlite += ndcgAtK(ranks(a), 10) / claims.length;
        ndcg.os += ndcgAtK(ranks(o), 10) / claims.length;
        if (a[0] === o[0]) sameFirst++;
      }
      expect(Math.abs(ndcg.os - ndcg.sqlite), JSON.stringify(ndcg)).toBeLessThanOrEqual(0.02);
      expect(sameFirst / claims.length).toBeGreaterThanOrEqual(0.85);
      expect(ndcg.sqlite).toBeGreaterThan(0.5); // a sanity floor: BM25 finds cited abstracts in this sample
    });

    it("keeps SciFact's sentence numbering on both engines", async () => {
      const [doc] = await collectionActions(os).listDocuments(1);
      expect(await collectionActions(os).readSentences(doc!.id)).toEqual(await collectionActions(sqlite).readSentences(doc!.id));
    });
  },
);

describe.skipIf(!url)("an OpenSearch collection's lifecycle", () => {
  it("skips unchanged files, replaces a changed one in place (old words gone), retries a failed one, keeps a good version over a broken re-upload", async () => {
    const ctx = context();
    const config = openSearchConfig();
    const notes = { name: "notes.md", bytes: Buffer.from("# Notes\n\nThe first version mentions apples.") };
    const broken = { name: "data.json", bytes: Buffer.from("[{") };
    expect(await ingestFiles(ctx, [notes, broken], { config })).toMatchObject({
      added: 1,
      skipped: 0,
      replaced: 0,
      failed: [{ name: "data.json" }],
    });
    expect(await ingestFiles(ctx, [notes, { ...notes, name: "copy-of-notes.md" }], { config })).toMatchObject({ added: 0, skipped: 2 });
    const v2 = { name: "notes.md", bytes: Buffer.from("# Notes\n\nThe second version mentions pears.") };
    const fixed = { name: "data.json", bytes: Buffer.from('[{"fruit": "pear"}]') };
    expect(await ingestFiles(ctx, [v2, fixed], { config })).toMatchObject({ added: 1, replaced: 1, skipped: 0, failed: [] });
    expect(await ingestFiles(ctx, [{ name: "data.json", bytes: Buffer.from("[{") }], { config })).toMatchObject({
      failed: [{ name: "data.json" }],
    });

    const backend = createDocumentsBackend(config, {}, ctx);
    try {
      expect((await search(backend, "apples")).records).toEqual([]);
      expect((await search(backend, "pears", { contentType: "text" })).records.map((r) => r.documentId)).toEqual(["notes-md"]);
      expect((await search(backend, "pear", { contentType: "table" })).records.map((r) => r.sourceObject)).toEqual(["data-json#table-1"]);
      expect((await backend.check()).message).toMatch(/^2 documents, 1 passage, 1 table; OpenSearch at /);
      // Nothing of the first version is left in the index.
      const c = OpenSearchCollection.open(config, {}, ctx);
      try {
        expect(await c.count(c.names.unitsAlias, { match: { search_text: "apples" } })).toBe(0);
      } finally {
        await c.close();
      }
    } finally {
      await backend.close();
    }
  });

  it("shows a partly written new version to nobody: searches see the committed version until the switch", async () => {
    const ctx = context();
    const config = openSearchConfig();
    await ingestFiles(ctx, [{ name: "memo.txt", bytes: Buffer.from("The memo is about ferries.") }], { config });
    // A crashed writer left units of a newer version of the same document (no switch of the document record).
    const c = OpenSearchCollection.open(config, {}, ctx);
    try {
      await call(
        c.conn,
        "PUT",
        `/${c.names.unitsAlias}/_doc/memo-txt@ffffffffffffffff%23c0`,
        {
          kind: "chunk",
          document_id: "memo-txt",
          document_version: "ffffffffffffffff",
          seq: 99,
          search_text: "memo.txt\nThe memo is about trams.",
          heading: "memo.txt",
          body: "The memo is about trams.",
          title: "memo.txt",
          section: null,
          text: "The memo is about trams.",
          chunk_index: 0,
          start: 0,
          end: 24,
          first_sentence_index: 0,
          sentences: ["The memo is about trams."],
          location: {},
        },
        { querystring: { refresh: "true" } },
      );
    } finally {
      await c.close();
    }
    const backend = createDocumentsBackend(config, {}, ctx);
    try {
      expect((await search(backend, "trams")).records).toEqual([]);
      expect((await search(backend, "memo")).records.map((r) => r.text)).toEqual(["The memo is about ferries."]);
    } finally {
      await backend.close();
    }
    // The next write of that document removes the leftover.
    expect(await ingestFiles(ctx, [{ name: "memo.txt", bytes: Buffer.from("The memo is about buses.") }], { config })).toMatchObject({
      replaced: 1,
    });
    const again = createDocumentsBackend(config, {}, ctx);
    try {
      expect((await search(again, "trams ferries")).records).toEqual([]);
    } finally {
      await again.close();
    }
  });
});

describe.skipIf(!url)("an unreachable or misconfigured cluster is reported with the cause", () => {
  it("names a refused connection", async () => {
    const config = documentsConfigSchema.parse({ engine: "opensearch", opensearch: { url: "http://127.0.0.1:9" } });
    const backend = createDocumentsBackend(config, {}, context());
    try {
      const health = await backend.check();
      expect(health).toMatchObject({
        ok: false,
        message: expect.stringMatching(/OpenSearch at http:\/\/127\.0\.0\.1:9 refused the connection/),
      });
      await expect(search(backend, "anything")).rejects.toThrow(BackendUnavailableError);
    } finally {
      await backend.close();
    }
  });

  it("names a missing index", async () => {
    const backend = createDocumentsBackend(openSearchConfig(), {}, context());
    try {
      expect(await backend.check()).toMatchObject({
        ok: false,
        message: expect.stringMatching(/has no index "mosaic-test-kb-.+-content" for this collection/),
      });
      await expect(search(backend, "anything")).rejects.toThrow(/no index for this collection/);
    } finally {
      await backend.close();
    }
  });

  it("names an index built with an incompatible mapping", async () => {
    const ctx = context();
    const config = openSearchConfig();
    const c = OpenSearchCollection.open(config, {}, ctx);
    try {
      // Another layout under the collection's names (e.g. written by a future version).
      for (const [index, alias] of [
        [`${c.names.contentAlias}-v9`, c.names.contentAlias],
        [`${c.names.unitsAlias}-v9`, c.names.unitsAlias],
      ]) {
        await call(c.conn, "PUT", `/${index}`, {
          settings: { number_of_replicas: 0 },
          mappings: { _meta: { mosaic_layout: 9 } },
          aliases: { [alias]: {} },
        });
      }
    } finally {
      await c.close();
    }
    const backend = createDocumentsBackend(config, {}, ctx);
    try {
      expect(await backend.check()).toMatchObject({
        ok: false,
        message: expect.stringMatching(/has an incompatible mapping \(layout 9, this version reads layout 1\): re-index the collection/),
      });
    } finally {
      await backend.close();
    }
  });

  it("explains a missing cluster address", () => {
    const saved = process.env.SEARCH_URL;
    delete process.env.SEARCH_URL;
    try {
      expect(() => createDocumentsBackend(documentsConfigSchema.parse({ engine: "opensearch" }), {}, context())).toThrow(
        /no cluster address is set/,
      );
    } finally {
      if (saved !== undefined) process.env.SEARCH_URL = saved;
    }
  });
});
