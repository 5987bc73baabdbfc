import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  COLLECTION_UNIT,
  createDocumentsBackend,
  documentsConfigSchema,
  indexPath,
  readSentences,
  selectCoordinates,
  selectSentences,
} from "@/lib/backends/documents";
import { ingestFiles, type IngestReport } from "@/lib/ingest/documents/ingest-files";
import { initCollection } from "@/lib/backends/documents/ingest-target";
import {
  BackendUnavailableError,
  QueryExecutionError,
  QueryRejectedError,
  QuerySyntaxError,
  QueryTimeoutError,
} from "@/lib/backends/errors";
import { DESCRIPTOR_MAX_CHARS } from "@/lib/backends/descriptor";
import type { BackendContext, KnowledgeBackend, PassageData, RowData } from "@/lib/backends/types";
import { goodFixtures, malformedFixtures } from "@/tests/fixtures/documents/fixture-files";

const CONFIG = documentsConfigSchema.parse({ chunkMaxChars: 300 });
const dirs: string[] = [];

function freshContext(name = "Fixtures"): BackendContext {
  const dir = mkdtempSync(path.join(tmpdir(), "mosaic-docs-"));
  dirs.push(dir);
  return { kbId: `kb_${path.basename(dir).replace(/[^a-z0-9]/gi, "")}`, kbName: name, storageDir: dir };
}

/** Direct look at the index file, independent of the backend's own queries. */
function inspect<T>(ctx: BackendContext, fn: (db: Database.Database) => T): T {
  const db = new Database(indexPath(ctx), { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const search = (b: KnowledgeBackend, text: string, filters?: Record<string, unknown>, maxRows = 20) =>
  b.execute({ language: "search", text, filters }, { maxRows, timeoutMs: 5_000 });

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("documents backend on SQLite FTS5 + sqlite-vec", () => {
  let ctx: BackendContext;
  let backend: KnowledgeBackend;
  let report: IngestReport;

  beforeAll(async () => {
    ctx = freshContext();
    report = await ingestFiles(ctx, [...goodFixtures(), ...malformedFixtures()], { config: CONFIG });
    backend = createDocumentsBackend(CONFIG, {}, ctx);
  });
  afterAll(async () => backend.close());

  describe("ingestion", () => {
    it("stores every format as documents with passages and tables", () => {
      expect(report.added).toBe(6);
      const docs = inspect(ctx, (db) =>
        db
          .prepare(
            "SELECT id, title, media_type AS type, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) AS chunks, (SELECT count(*) FROM doc_tables t WHERE t.document_id = d.id) AS tables FROM documents d WHERE status = 'ready' ORDER BY id",
          )
          .all(),
      );
      expect(docs).toEqual([
        { id: "audit-summary-pdf", title: "Audit summary 2024", type: "application/pdf", chunks: 2, tables: 0 },
        {
          id: "field-notes-txt",
          title: "Field notes from the Northern Lighthouse survey",
          type: "text/plain",
          chunks: expect.any(Number),
          tables: 0,
        },
        { id: "inventory-json", title: "Warehouse inventory", type: "application/json", chunks: 1, tables: 2 },
        { id: "product-catalog-html", title: "Product Catalog 2024", type: "text/html", chunks: 3, tables: 1 },
        { id: "quarterly-report-md", title: "Quarterly Report Q3 2024", type: "text/markdown", chunks: expect.any(Number), tables: 1 },
        { id: "regional-sales-csv", title: "regional sales", type: "text/csv", chunks: 0, tables: 1 },
      ]);
      expect((docs as { id: string; chunks: number }[]).find((d) => d.id === "field-notes-txt")!.chunks).toBeGreaterThanOrEqual(4);
    });

    it("keeps passages whole-sentence, bounded and at their offsets in the document text", () => {
      const rows = inspect(ctx, (db) =>
        db
          .prepare(
            "SELECT d.text AS doc, c.text, c.start_offset AS start, c.end_offset AS end, c.sentences FROM chunks c JOIN documents d ON d.id = c.document_id",
          )
          .all(),
      ) as { doc: string; text: string; start: number; end: number; sentences: string }[];
      for (const r of rows) {
        expect(r.doc.slice(r.start, r.end)).toBe(r.text);
        expect(r.text.length).toBeLessThanOrEqual(300);
        const sentences = JSON.parse(r.sentences) as string[];
        expect(r.text.startsWith(sentences[0])).toBe(true);
        expect(r.text.endsWith(sentences[sentences.length - 1])).toBe(true);
      }
    });

    it("reads markdown headings as sections and its pipe table with caption and header", () => {
      const t = inspect(ctx, (db) =>
        db.prepare("SELECT key, caption, section, header, rows FROM doc_tables WHERE document_id = 'quarterly-report-md'").get(),
      ) as Record<string, string>;
      expect(t.key).toBe("quarterly-report-md#table-1");
      expect(t.caption).toBe("Table 1: Revenue by region (in millions of euros)");
      expect(t.section).toBe("Revenue by region");
      expect(JSON.parse(t.header)).toEqual(["Region", "Q3 2024", "Q3 2023"]);
      expect(JSON.parse(t.rows)).toEqual([
        ["EMEA", "41.2", "35.0"],
        ["Americas", "38.7", "36.1"],
        ["Asia Pacific", "19.4", "16.8"],
      ]);
      const sections = inspect(ctx, (db) =>
        db.prepare("SELECT DISTINCT section FROM chunks WHERE document_id = 'quarterly-report-md' ORDER BY chunk_index").pluck().all(),
      );
      expect(sections).toEqual([null, "Revenue by region", "Outlook"]);
    });

    it("drops script, style and navigation from HTML and reads its table", async () => {
      const text = inspect(ctx, (db) => db.prepare("SELECT text FROM documents WHERE id = 'product-catalog-html'").pluck().get()) as string;
      expect(text).toContain("Our widgets are assembled in Tilburg");
      expect(text).not.toMatch(/zzqx-secret-tracker|navigationonlyword|font-family|not content either/);
      expect((await search(backend, "zzqx secret tracker navigationonlyword")).records).toEqual([]);
      const preview = await backend.preview("product-catalog-html#table-1");
      expect(preview).toMatchObject({ kind: "table", title: "Price list", columns: ["Product", "Price (EUR)", "Stock"], totalRows: 3 });
    });

    it("keeps PDF page numbers with passages and the document title from the PDF", () => {
      const rows = inspect(ctx, (db) =>
        db.prepare("SELECT location, text FROM chunks WHERE document_id = 'audit-summary-pdf' ORDER BY chunk_index").all(),
      ) as { location: string; text: string }[];
      expect(rows.map((r) => JSON.parse(r.location))).toEqual([{ page: 1 }, { page: 2 }]);
      expect(rows[1].text).toBe("The auditors recommend a second count at the Hamburg depot (next year).");
    });

    it("turns CSV into one table (quoted commas kept) and JSON arrays into tables", () => {
      const tables = inspect(ctx, (db) =>
        db
          .prepare(
            "SELECT key, caption, header, rows FROM doc_tables WHERE document_id IN ('regional-sales-csv', 'inventory-json') ORDER BY key",
          )
          .all(),
      ) as Record<string, string>[];
      expect(tables.map((t) => [t.key, t.caption, JSON.parse(t.header)])).toEqual([
        ["inventory-json#table-1", "items", ["sku", "name", "quantity", "reorder", "note"]],
        ["inventory-json#table-2", "locations", ["locations"]],
        ["regional-sales-csv#table-1", "regional sales", ["region", "manager", "revenue_eur", "customers"]],
      ]);
      expect(JSON.parse(tables[0].rows)[2]).toEqual(["G-300", "Gadget Max", 15, true, '{"supplier":"Hanse Parts"}']);
      expect(JSON.parse(tables[2].rows)[2]).toEqual(["East, Central", "Chen Wei", "1510000", "410"]);
    });

    it("reports each malformed file with a clear reason and ingests the others", () => {
      expect(report.failed).toEqual([
        { name: "broken.pdf", error: expect.stringMatching(/^not a valid PDF \(.+\)$/) },
        { name: "bad.json", error: expect.stringMatching(/^not valid JSON \(.+\)$/) },
        { name: "empty.txt", error: "the file is empty" },
        { name: "contract.docx", error: "unsupported file type; upload .txt, .md, .html, .pdf, .csv or .json files" },
        { name: "latin1.txt", error: "not UTF-8 text (save it as UTF-8 and upload it again)" },
      ]);
      const failed = inspect(ctx, (db) =>
        db.prepare("SELECT source_name, error FROM documents WHERE status = 'failed' ORDER BY source_name").all(),
      );
      expect(failed).toHaveLength(5);
    });

    it("creates the index in WAL mode with an empty vec0 table waiting for an embedding model", () => {
      const db = new Database(indexPath(ctx), { readonly: true });
      try {
        expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
        const sql = db
          .prepare("SELECT sql FROM sqlite_master WHERE name IN ('search_index', 'search_vectors') ORDER BY name")
          .pluck()
          .all() as string[];
        expect(sql[0]).toMatch(/USING fts5 \(heading, body, tokenize = 'porter unicode61'\)/);
        expect(sql[1]).toMatch(/USING vec0 \(embedding float\[384\] distance_metric=cosine\)/);
        expect(db.prepare("SELECT value FROM meta WHERE key = 'embedding_model'").pluck().get()).toBe("");
        expect(db.prepare("SELECT count(*) FROM search_vectors_rowids").pluck().get()).toBe(0);
      } finally {
        db.close();
      }
    });
  });

  describe("search", () => {
    it("ranks the passage holding the answer sentence first", async () => {
      const result = await search(backend, "How high was the storm surge the keeper recorded?");
      const [top] = backend.verbalize(result);
      expect(top.kind).toBe("passage");
      expect(top.text).toContain("The lighthouse keeper recorded a storm surge of 3.4 metres on the night of 12 March.");
      expect(top.text.startsWith("Field notes from the Northern Lighthouse survey: ")).toBe(true);
      const data = top.data as PassageData;
      expect(data.engineScore).toBeGreaterThan(0); // -bm25(): higher is better
      // The passage's sentences are the document's sentences from firstSentenceIndex on.
      const all = readSentences(ctx, data.documentId);
      expect(all.slice(data.firstSentenceIndex!, data.firstSentenceIndex! + data.sentences!.length)).toEqual(data.sentences);
      expect(top.provenance).toMatchObject({
        kb: ctx.kbId,
        kbName: "Fixtures",
        sourceObject: COLLECTION_UNIT,
        language: "search",
        location: { document: "field-notes-txt" },
      });
      expect(top.entities).toEqual(expect.arrayContaining(["Northern Lighthouse"]));
    });

    it("finds table rows and verbalizes them as Caption / section / Column: value", async () => {
      const result = await search(backend, "Widget Mini price", { contentType: "table" });
      const pieces = backend.verbalize(result);
      expect(pieces.every((p) => p.kind === "row")).toBe(true);
      expect(pieces[0].text).toBe("Price list / Pricing / Product: Widget Mini, Price (EUR): 9.49, Stock: 340");
      expect(pieces[0].data as RowData).toEqual({
        table: "Price list",
        section: "Pricing",
        columns: ["Product", "Price (EUR)", "Stock"],
        values: ["Widget Mini", "9.49", "340"],
        rowIndex: 1,
        engineScore: expect.any(Number),
      });
      expect(pieces[0].provenance.sourceObject).toBe("product-catalog-html#table-1");
      expect(pieces[0].provenance.location).toEqual({ document: "product-catalog-html", table: "product-catalog-html#table-1", row: 1 });
      expect(pieces[0].entities[0]).toBe("Widget Mini");
    });

    it("gives the same evidence ids to the same hits on every run", async () => {
      const a = backend.verbalize(await search(backend, "Rotterdam warehouse")).map((p) => p.id);
      const b = backend.verbalize(await search(backend, "Rotterdam warehouse")).map((p) => p.id);
      expect(a.length).toBeGreaterThan(1);
      expect(a).toEqual(b);
      expect(new Set(a).size).toBe(a.length);
    });

    it.each(['NEAR("storm" surge', '"unbalanced storm', "body:storm", "heading:storm OR", "storm*", "NOT storm AND ("])(
      "treats %j as words, never as FTS syntax",
      async (text) => {
        const result = await search(backend, text);
        // "NOT storm" still finds storm; "body:storm" is not restricted to a column; "storm*" is not a prefix query.
        expect(result.records.some((r) => String(r.text ?? "").includes("storm surge of 3.4 metres"))).toBe(true);
      },
    );

    it("runs SQL-looking search text as words and leaves the index untouched", async () => {
      const before = inspect(ctx, (db) => db.prepare("SELECT count(*) FROM chunks").pluck().get());
      const result = await search(backend, "'); DROP TABLE chunks; --");
      expect(result.records.length).toBeGreaterThan(0); // "table" is a word in the fixtures
      expect(inspect(ctx, (db) => db.prepare("SELECT count(*) FROM chunks").pluck().get())).toBe(before);
    });

    it("returns nothing (and no error) for text without words", async () => {
      expect(await search(backend, "?!* ( ) :")).toMatchObject({ records: [], truncated: false });
    });

    it("filters by content type, document and source object", async () => {
      const kinds = async (filters: Record<string, unknown>) =>
        new Set((await search(backend, "widget warehouse Rotterdam Hamburg", filters)).records.map((r) => `${r.kind}:${r.sourceObject}`));
      expect([...(await kinds({ contentType: "text" }))].every((k) => k === "passage:collection")).toBe(true);
      expect([...(await kinds({ contentType: "table" }))].every((k) => k.startsWith("row:"))).toBe(true);
      expect(await kinds({ sourceObject: "inventory-json#table-2" })).toEqual(new Set(["row:inventory-json#table-2"]));
      const byDoc = await search(backend, "widget warehouse Rotterdam Hamburg", { documentIds: ["audit-summary-pdf"] });
      expect(new Set(byDoc.records.map((r) => r.documentId))).toEqual(new Set(["audit-summary-pdf"]));
      const bySourceDoc = await search(backend, "widget", { sourceObject: "product-catalog-html" });
      expect(bySourceDoc.records.length).toBeGreaterThan(1);
      expect(new Set(bySourceDoc.records.map((r) => r.documentId))).toEqual(new Set(["product-catalog-html"]));
    });

    it("refuses unknown source objects and malformed filters with clear errors", async () => {
      await expect(search(backend, "widget", { sourceObject: "nope#table-9" })).rejects.toThrow(QueryExecutionError);
      await expect(search(backend, "widget", { sourceObject: "nope#table-9" })).rejects.toThrow(/no source object "nope#table-9"/);
      await expect(search(backend, "widget", { contentType: "graph" })).rejects.toThrow(QuerySyntaxError);
      await expect(search(backend, "widget", { sql: "DROP TABLE chunks" })).rejects.toThrow(QuerySyntaxError);
    });

    it("refuses other query languages", async () => {
      await expect(backend.execute({ language: "sql", text: "SELECT * FROM chunks" })).rejects.toThrow(QueryRejectedError);
    });

    it("caps the rows and says the result was truncated", async () => {
      const capped = await search(backend, "the widget warehouse storm table region audit", undefined, 3);
      expect(capped.records).toHaveLength(3);
      expect(capped.truncated).toBe(true);
      const all = await search(backend, "the widget warehouse storm table region audit", undefined, 1_000);
      expect(all.truncated).toBe(false);
      expect(all.records.slice(0, 3)).toEqual(capped.records);
    });

    it("does not return a result later than its timeout", async () => {
      await expect(backend.execute({ language: "search", text: "storm" }, { timeoutMs: 0 })).rejects.toThrow(QueryTimeoutError);
    });

    it("stops before searching when the caller already gave up", async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(backend.execute({ language: "search", text: "storm" }, { signal: controller.signal })).rejects.toThrow(/cancelled/);
    });
  });

  describe("catalog views", () => {
    it("reports its size in check()", async () => {
      const health = await backend.check();
      expect(health.ok).toBe(true);
      const chunks = inspect(ctx, (db) => db.prepare("SELECT count(*) FROM chunks").pluck().get());
      expect(health.message).toBe(`6 documents, ${chunks} passages, 5 tables (5 files could not be read)`);
    });

    it("describes the collection: counts, terms, titles, every table with its columns, and how to query", async () => {
      const d = await backend.describe();
      expect(d.text).toMatch(/^Document collection "Fixtures": 6 documents, \d+ passages, 5 tables \(15 table rows\)\./);
      expect(d.text).toContain(
        '- quarterly-report-md#table-1: "Table 1: Revenue by region (in millions of euros)" [section: Revenue by region] in "Quarterly Report Q3 2024"; columns: Region, Q3 2024, Q3 2023; 3 rows',
      );
      expect(d.text).toContain("- field-notes-txt: Field notes from the Northern Lighthouse survey");
      expect(d.text).toMatch(/Frequent terms: .*rotterdam/);
      expect(d.text).toContain('"language": "search"');
      expect(d.text.length).toBeLessThanOrEqual(DESCRIPTOR_MAX_CHARS);
      expect(d.compact.length).toBeLessThan(d.text.length);
      expect(d.stats).toMatchObject({ documents: 6, tables: 5, tableRows: 15, failedDocuments: 5 });
      expect((await backend.describe()).version).toBe(d.version);
    });

    it("lists the collection and each table as source units with generated descriptions", async () => {
      const units = await backend.sourceUnits();
      expect(units.map((u) => [u.key, u.contentType])).toEqual([
        [COLLECTION_UNIT, "TEXT"],
        ["quarterly-report-md#table-1", "TABLE"],
        ["product-catalog-html#table-1", "TABLE"],
        ["regional-sales-csv#table-1", "TABLE"],
        ["inventory-json#table-1", "TABLE"],
        ["inventory-json#table-2", "TABLE"],
      ]);
      const collection = units[0];
      expect(collection.description).toMatch(/^6 documents in \d+ passages, mostly about .+\. For example: /);
      expect(collection.tags).toEqual(expect.arrayContaining(["documents", "pdf", "markdown", "html", "csv", "json", "txt"]));
      const price = units.find((u) => u.key === "product-catalog-html#table-1")!;
      expect(price).toMatchObject({
        name: "Price list",
        metadata: { document: "product-catalog-html", rows: 3, columns: ["Product", "Price (EUR)", "Stock"] },
      });
      expect(price.description).toBe(
        'Table from "Product Catalog 2024" (section "Pricing") with 3 rows; columns: Product, Price (EUR), Stock. First rows: Widget Pro; Widget Mini; Gadget Max.',
      );
    });

    it("previews the collection, a document and a table", async () => {
      const collection = await backend.preview(COLLECTION_UNIT, { limit: 10 });
      expect(collection).toMatchObject({ kind: "text", title: "Fixtures" });
      if (collection.kind !== "text") throw new Error("text preview expected");
      expect(collection.sentences.some((s) => s.startsWith("Quarterly Report Q3 2024: Acme Corporation closed the third quarter"))).toBe(
        true,
      );
      const doc = await backend.preview("field-notes-txt", { limit: 2 });
      expect(doc).toEqual({
        kind: "text",
        title: "Field notes from the Northern Lighthouse survey",
        sentences: [
          "The survey team arrived at the lighthouse on a grey morning in early March.",
          "The keeper, Thomas Byrne, showed them the logbooks that his predecessors had kept since 1921.",
        ],
        truncated: true,
      });
      const table = await backend.preview("regional-sales-csv#table-1", { limit: 2 });
      expect(table).toEqual({
        kind: "table",
        title: "regional sales",
        columns: ["region", "manager", "revenue_eur", "customers"],
        rows: [
          ["North", "Alice Meyer", "1200500", "340"],
          ["South", "Bruno Costa", "980300", "295"],
        ],
        totalRows: 4,
        truncated: true,
      });
      await expect(backend.preview("missing#table-1")).rejects.toThrow(/no source object "missing#table-1"/);
    });

    it("indexes captions, columns, row labels, phrases and titles, bounded by the limit", async () => {
      const entries = await backend.entityIndex();
      const has = (kind: string, label: string) => entries.some((e) => e.kind === kind && e.label === label);
      expect(has("table", "Price list")).toBe(true);
      expect(has("column", "Price (EUR)")).toBe(true);
      expect(has("value", "Asia Pacific")).toBe(true);
      expect(has("document", "Quarterly Report Q3 2024")).toBe(true);
      expect(has("label", "Rotterdam")).toBe(true);
      expect(entries.find((e) => e.label === "Widget Pro" && e.kind === "value")?.ref).toMatch(/#table-1:row-0$/);
      expect(entries.some((e) => /^\d[\d.,]*$/.test(e.label))).toBe(false);
      expect(await backend.entityIndex({ limit: 7 })).toHaveLength(7);
    });
  });

  describe("AU-RAG retrieval actions", () => {
    it("SelectSentenceIdxs returns the chosen sentences and their context text", () => {
      const selection = selectSentences(ctx, "field-notes-txt", [3, 2, 3]);
      expect(selection.sentences.map((s) => s.index)).toEqual([2, 3]);
      expect(selection.sentences[1].text).toBe("The lighthouse keeper recorded a storm surge of 3.4 metres on the night of 12 March.");
      expect(selection.text).toBe(
        `Field notes from the Northern Lighthouse survey: ${selection.sentences[0].text} ${selection.sentences[1].text}`,
      );
      expect(() => selectSentences(ctx, "field-notes-txt", [999])).toThrow(
        /Sentence 999 does not exist in "Field notes from the Northern Lighthouse survey": it has sentences 0 to \d+/,
      );
      expect(() => selectSentences(ctx, "nope", [0])).toThrow(/no document "nope"/);
    });

    it("SelectCoordinates returns the chosen cells as linearized rows", () => {
      const selection = selectCoordinates(ctx, "quarterly-report-md#table-1", [0, 2], ["Region", 1]);
      expect(selection.text).toBe(
        "Table 1: Revenue by region (in millions of euros) / Revenue by region / Region: EMEA, Q3 2024: 41.2\n" +
          "Table 1: Revenue by region (in millions of euros) / Revenue by region / Region: Asia Pacific, Q3 2024: 19.4",
      );
      expect(selection.rows).toEqual([
        { rowIndex: 0, values: ["EMEA", "41.2"] },
        { rowIndex: 2, values: ["Asia Pacific", "19.4"] },
      ]);
      expect(selectCoordinates(ctx, "regional-sales-csv#table-1", [], []).rows).toHaveLength(4);
      expect(() => selectCoordinates(ctx, "quarterly-report-md#table-1", [7], [0])).toThrow(/has no row 7: it has rows 0 to 2/);
      expect(() => selectCoordinates(ctx, "quarterly-report-md#table-1", [0], ["Profit"])).toThrow(
        /has no column "Profit"; its columns are 0 "Region"/,
      );
    });
  });
});

describe("documents collection lifecycle", () => {
  it("skips unchanged files, replaces a changed one in place, and retries a failed one", async () => {
    const ctx = freshContext();
    const notes = { name: "notes.md", bytes: Buffer.from("# Notes\n\nThe first version mentions apples.") };
    const broken = { name: "data.json", bytes: Buffer.from("[{") };
    expect(await ingestFiles(ctx, [notes, broken])).toMatchObject({ added: 1, skipped: 0, replaced: 0, failed: [{ name: "data.json" }] });
    expect(await ingestFiles(ctx, [notes])).toMatchObject({ added: 0, skipped: 1, replaced: 0 });
    // Same content under another name is the same document.
    expect(await ingestFiles(ctx, [{ ...notes, name: "copy-of-notes.md" }])).toMatchObject({ added: 0, skipped: 1 });

    const v2 = { name: "notes.md", bytes: Buffer.from("# Notes\n\nThe second version mentions pears.") };
    const fixed = { name: "data.json", bytes: Buffer.from('[{"fruit": "pear"}]') };
    expect(await ingestFiles(ctx, [v2, fixed])).toMatchObject({ added: 1, replaced: 1, skipped: 0, failed: [] });

    const backend = createDocumentsBackend(CONFIG, {}, ctx);
    try {
      expect((await search(backend, "apples")).records).toEqual([]);
      const pears = await search(backend, "pears", { contentType: "text" });
      expect(pears.records.map((r) => r.documentId)).toEqual(["notes-md"]);
      expect((await search(backend, "pear", { contentType: "table" })).records.map((r) => r.sourceObject)).toEqual(["data-json#table-1"]);
      // One of each reads in the singular.
      expect((await backend.check()).message).toBe("2 documents, 1 passage, 1 table");
    } finally {
      await backend.close();
    }
  });

  it("serves new uploads to a backend that is already open, with a fresh descriptor version", async () => {
    const ctx = freshContext();
    await ingestFiles(ctx, [{ name: "one.txt", bytes: Buffer.from("The first memo is about ferries.") }]);
    const backend = createDocumentsBackend(CONFIG, {}, ctx);
    try {
      const before = await backend.describe();
      expect((await search(backend, "trams")).records).toEqual([]);
      await ingestFiles(ctx, [{ name: "two.txt", bytes: Buffer.from("The second memo is about trams.") }]);
      expect((await search(backend, "trams")).records.map((r) => r.documentId)).toEqual(["two-txt"]);
      const after = await backend.describe();
      expect(after.stats.documents).toBe(2);
      expect(after.version).not.toBe(before.version);
    } finally {
      await backend.close();
    }
  });

  it("keeps a good earlier version when a broken re-upload of the same file arrives", async () => {
    const ctx = freshContext();
    await ingestFiles(ctx, [{ name: "prices.csv", bytes: Buffer.from("item,price\napple,1\n") }]);
    const second = await ingestFiles(ctx, [{ name: "prices.csv", bytes: Buffer.from('item,price\n"apple,1\n') }]);
    expect(second.failed).toEqual([{ name: "prices.csv", error: expect.stringMatching(/^not a valid CSV file \(/) }]);
    const backend = createDocumentsBackend(CONFIG, {}, ctx);
    try {
      expect((await search(backend, "apple")).records).toHaveLength(1);
    } finally {
      await backend.close();
    }
  });

  it("continues after a run stopped between documents, without duplicates", async () => {
    const ctx = freshContext();
    const files = Array.from({ length: 12 }, (_, i) => ({
      name: `memo-${i}.txt`,
      bytes: Buffer.from(`Memo ${i}. The budget line ${i} was approved by committee ${i}.`),
    }));
    const crash = new Error("worker killed");
    await expect(
      ingestFiles(ctx, files, {
        onProgress: (p) => {
          if (p.done === 5) throw crash;
        },
      }),
    ).rejects.toBe(crash);
    expect(inspect(ctx, (db) => db.prepare("SELECT count(*) FROM documents").pluck().get())).toBe(5);

    const seen: string[] = [];
    const rerun = await ingestFiles(ctx, files, { onProgress: (p) => seen.push(`${p.name}:${p.outcome}`) });
    expect(rerun).toEqual({ added: 7, replaced: 0, skipped: 5, failed: [] });
    expect(seen.slice(0, 6)).toEqual([
      "memo-0.txt:skipped",
      "memo-1.txt:skipped",
      "memo-2.txt:skipped",
      "memo-3.txt:skipped",
      "memo-4.txt:skipped",
      "memo-5.txt:added",
    ]);
    const counts = inspect(ctx, (db) => ({
      documents: db.prepare("SELECT count(*) FROM documents").pluck().get(),
      hashes: db.prepare("SELECT count(DISTINCT content_hash) FROM documents").pluck().get(),
      chunks: db.prepare("SELECT count(*) FROM chunks").pluck().get(),
      searchRows: db.prepare("SELECT count(*) FROM search_rows").pluck().get(),
      fts: db.prepare("SELECT count(*) FROM search_index").pluck().get(),
    }));
    expect(counts).toEqual({ documents: 12, hashes: 12, chunks: 12, searchRows: 12, fts: 12 });
  });

  it("describes an empty collection created before any upload", async () => {
    const ctx = freshContext("Empty");
    initCollection(ctx, { language: "de" });
    const backend = createDocumentsBackend(CONFIG, {}, ctx);
    try {
      expect((await backend.check()).message).toBe("0 documents, 0 passages, 0 tables");
      const d = await backend.describe();
      expect(d.text).toContain("No documents yet.");
      expect(await backend.sourceUnits()).toHaveLength(1);
      // The collection keeps the language it was created with.
      await ingestFiles(ctx, [{ name: "a.txt", bytes: Buffer.from("Das ist gut. Wir gehen heute.") }]);
      expect(readSentences(ctx, "a-txt")).toEqual(["Das ist gut.", "Wir gehen heute."]);
    } finally {
      await backend.close();
    }
  });

  it("reports a missing or corrupt index clearly", async () => {
    const missing = freshContext();
    const backend = createDocumentsBackend(CONFIG, {}, missing);
    const health = await backend.check();
    expect(health.ok).toBe(false);
    expect(health.message).toBe(
      `Cannot open ${indexPath(missing)}: file not found. No documents have been ingested into this collection yet, or the index was removed; upload the documents again to rebuild it.`,
    );
    await expect(backend.describe()).rejects.toThrow(BackendUnavailableError);

    const corrupt = freshContext();
    writeFileSync(indexPath(corrupt), "this is not a database at all, just text ".repeat(200));
    const broken = createDocumentsBackend(CONFIG, {}, corrupt);
    const corruptHealth = await broken.check();
    expect(corruptHealth.ok).toBe(false);
    expect(corruptHealth.message).toMatch(/^Cannot open .*collection\.sqlite: file is not a database\. The collection index is unreadable/);
    await expect(search(broken, "storm")).rejects.toThrow(BackendUnavailableError);
    await backend.close();
    await broken.close();
  });
});
