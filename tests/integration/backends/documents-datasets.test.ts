import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDocumentsBackend, documentsConfigSchema, indexPath, selectCoordinates, selectSentences } from "@/lib/backends/documents";
import { loadSciFact } from "@/lib/ingest/benchmarks/scifact";
import { loadTatQa } from "@/lib/ingest/benchmarks/tatqa";
import { parsePythonStringList } from "@/lib/ingest/benchmarks/python-string-list";
import type { BackendContext, KnowledgeBackend, PassageData, RowData } from "@/lib/backends/types";

const DATASETS_DIR = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");
const HAVE_SCIFACT = existsSync(path.join(DATASETS_DIR, "scifact/corpus.csv"));
const HAVE_TATQA = existsSync(path.join(DATASETS_DIR, "tatqa/tatqa_dataset_dev.json"));
const CONFIG = documentsConfigSchema.parse({});
const dirs: string[] = [];

function freshContext(name: string): BackendContext {
  const dir = mkdtempSync(path.join(tmpdir(), "mosaic-datasets-"));
  dirs.push(dir);
  return { kbId: name.toLowerCase().replace(/[^a-z]/g, ""), kbName: name, storageDir: dir };
}

function count(ctx: BackendContext, sql: string): number {
  const db = new Database(indexPath(ctx), { readonly: true });
  try {
    return db.prepare(sql).pluck().get() as number;
  } finally {
    db.close();
  }
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!HAVE_SCIFACT)("SciFact loader", () => {
  const rows = HAVE_SCIFACT
    ? (parse(readFileSync(path.join(DATASETS_DIR, "scifact/corpus.csv")), { columns: true }) as {
        doc_id: string;
        title: string;
        abstract: string;
      }[])
    : [];
  let ctx: BackendContext;
  let backend: KnowledgeBackend;

  beforeAll(async () => {
    ctx = freshContext("SciFact subset");
    expect(await loadSciFact(ctx, DATASETS_DIR, { limit: 100, batchSize: 30 })).toEqual({
      added: 100,
      replaced: 0,
      skipped: 0,
      failed: [],
    });
    backend = createDocumentsBackend(CONFIG, {}, ctx);
  });
  afterAll(async () => backend.close());

  it("parses every abstract of the corpus as a list of sentences", () => {
    expect(rows).toHaveLength(5183);
    const sentences = rows.map((r) => parsePythonStringList(r.abstract));
    expect(sentences.every((s) => s.length > 0)).toBe(true);
    // Elements printed with double quotes (they contain apostrophes) are read whole.
    const doc7912 = sentences[rows.findIndex((r) => r.doc_id === "7912")];
    expect(doc7912).toContain("This self-priming ability is a consequence of the secondary structure of the 3'-unique region.");
  });

  it("keeps SciFact's doc ids, titles and sentence indexes", () => {
    const first = rows[0];
    const expected = parsePythonStringList(first.abstract).map((s) => s.trim());
    const selection = selectSentences(
      ctx,
      first.doc_id,
      expected.map((_, i) => i),
    );
    expect(selection.title).toBe(first.title);
    expect(selection.sentences.map((s) => s.text)).toEqual(expected);
  });

  it("finds the evidence abstract of a claim, with the gold sentence in the ranked passages", async () => {
    // Claim 1135 of claims_train.csv: evidence doc 33370, sentences 4 and 9 (doc 33370 is among the first 100).
    const result = await backend.execute({ language: "search", text: "TNFAIP3 is a glioblastoma tumor suppressor." }, { maxRows: 10 });
    const passages = backend.verbalize(result).map((p) => p.data as PassageData);
    expect(passages[0].documentId).toBe("33370");
    // Gold sentence 9: "Although inactivating mutations in A20 in lymphoma suggest A20 can act as a tumor suppressor, …"
    const gold = selectSentences(ctx, "33370", [9]).sentences[0].text;
    expect(gold).toMatch(/^Although inactivating mutations in A20 in lymphoma suggest A20 can act as a tumor suppressor/);
    const holding = passages.find((p) => p.documentId === "33370" && p.sentences!.includes(gold));
    expect(holding).toBeDefined();
    expect(holding!.firstSentenceIndex! + holding!.sentences!.indexOf(gold)).toBe(9);
  });

  it("resumes an interrupted load and skips what is already committed", async () => {
    const resumed = freshContext("SciFact resume");
    const crash = new Error("stopped");
    await expect(
      loadSciFact(resumed, DATASETS_DIR, {
        limit: 40,
        batchSize: 10,
        onProgress: (p) => {
          if (p.done === 20) throw crash;
        },
      }),
    ).rejects.toBe(crash);
    expect(count(resumed, "SELECT count(*) FROM documents")).toBe(20);
    expect(await loadSciFact(resumed, DATASETS_DIR, { limit: 40, batchSize: 10 })).toEqual({
      added: 20,
      replaced: 0,
      skipped: 20,
      failed: [],
    });
    expect(count(resumed, "SELECT count(DISTINCT id) FROM documents")).toBe(40);
  });

  it("describes the subset as a text collection", async () => {
    const d = await backend.describe();
    expect(d.text).toMatch(/^Document collection "SciFact subset": 100 documents, \d+ passages, 0 tables/);
    expect(d.stats.documents).toBe(100);
    const units = await backend.sourceUnits();
    expect(units.map((u) => u.key)).toEqual(["collection"]);
  });
});

describe.skipIf(!HAVE_TATQA)("TAT-QA loader", () => {
  let ctx: BackendContext;
  let backend: KnowledgeBackend;
  const FIRST_TABLE = "3ffd9053-a45d-491c-957a-1b2fa0af0570";

  beforeAll(async () => {
    ctx = freshContext("TAT-QA subset");
    expect(await loadTatQa(ctx, DATASETS_DIR, { limit: 5 })).toEqual({ added: 5, replaced: 0, skipped: 0, failed: [] });
    expect(await loadTatQa(ctx, DATASETS_DIR, { limit: 5 })).toMatchObject({ added: 0, skipped: 5 });
    backend = createDocumentsBackend(CONFIG, {}, ctx);
  });
  afterAll(async () => backend.close());

  it("stores each context as a document with its paragraphs and one table", () => {
    expect(count(ctx, "SELECT count(*) FROM documents")).toBe(5);
    expect(count(ctx, "SELECT count(*) FROM doc_tables")).toBe(5);
    expect(count(ctx, `SELECT count(*) FROM chunks WHERE document_id = '${FIRST_TABLE}'`)).toBe(2);
  });

  it("answers a table question with the row, verbalized, and TAT-QA's table uid in the location", async () => {
    const result = await backend.execute(
      { language: "search", text: "total sales in 2019", filters: { contentType: "table" } },
      { maxRows: 5 },
    );
    const [top] = backend.verbalize(result);
    expect(top.text).toBe(
      // The report states the scale in the sentence before the table ("(in millions)"): the caption carries it.
      "Sales by Contract Type (in millions) / Item: Total sales, 2019: $1,496.5, Years Ended September 30, 2018: $1,202.9, 2017: $1,107.7",
    );
    expect((top.data as RowData).rowIndex).toBe(2);
    expect(top.provenance.location).toEqual({
      document: FIRST_TABLE,
      table: `${FIRST_TABLE}#table-1`,
      row: 2,
      tableUid: FIRST_TABLE,
      headerRows: 2,
    });
    expect(top.entities[0]).toBe("Total sales");
    expect(selectCoordinates(ctx, `${FIRST_TABLE}#table-1`, [2], ["2019"]).text).toBe(
      "Sales by Contract Type (in millions) / 2019: $1,496.5",
    );
  });

  it("answers a text question with the paragraph, keeping its TAT-QA order and uid", async () => {
    const result = await backend.execute(
      { language: "search", text: "What is the company paid on a cost-plus type contract?", filters: { contentType: "text" } },
      { maxRows: 5 },
    );
    const [top] = backend.verbalize(result);
    expect(top.text).toContain("On a cost-plus type contract, we are paid our allowable incurred costs plus a profit");
    expect(top.provenance.location).toEqual({
      document: FIRST_TABLE,
      chunk: 1,
      paragraph: 2,
      paragraphUid: "79e37805-6558-4a8c-b033-32be6bffef48",
    });
  });

  it("lists each context table as a source unit", async () => {
    const units = await backend.sourceUnits();
    expect(units).toHaveLength(6);
    expect(units[1]).toMatchObject({ key: `${FIRST_TABLE}#table-1`, contentType: "TABLE", name: "Sales by Contract Type (in millions)" });
    expect(units[1].description).toContain("columns: Item, 2019, Years Ended September 30, 2018, 2017");
  });
});

describe("TAT-QA loader: headers and scale as reports write them", () => {
  it("reads a labelled row of periods as the header and puts a unit row's scale into the caption", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "mosaic-tatqa-file-"));
    dirs.push(dir);
    mkdirSync(path.join(dir, "tatqa"));
    const context = {
      table: {
        uid: "t-1",
        table: [
          ["($ in millions)", "", ""],
          ["For the year ended December 31:", "2019", "2018 (4)"],
          ["Revenue", "$1,200", "$1,100"],
        ],
      },
      paragraphs: [{ uid: "p-1", order: 1, text: "Results of operations" }],
      questions: [],
    };
    // Three header rows, then a unit row among the data rows.
    const unitRow = {
      table: {
        uid: "t-2",
        table: [
          ["", "Fiscal", ""],
          ["", "Year ended", ""],
          ["", "2019", "2018"],
          ["", "(in thousands)", ""],
          ["Leases", "12", "10"],
        ],
      },
      paragraphs: [{ uid: "p-2", order: 1, text: "Leases" }],
      questions: [],
    };
    // A "$'000" unit row under the header: its "000" is the scale, not a figure.
    const thousands = {
      table: {
        uid: "t-3",
        table: [
          ["30 June 2019", "Current", "Total"],
          ["", "$'000", "$'000"],
          ["Gross carrying amount", "23,762", "28,320"],
        ],
      },
      paragraphs: [{ uid: "p-3", order: 1, text: "Credit risk" }],
      questions: [],
    };
    // A header row led by the scale note, with words besides the periods.
    const orders = {
      table: {
        uid: "t-4",
        table: [
          ["", "", "Fiscal year", "", "% Change"],
          ["(in millions of €)", "2019", "2018", "Actual", "Comp."],
          ["Orders", "19,975", "18,451", "8 %", "7 %"],
        ],
      },
      paragraphs: [{ uid: "p-4", order: 1, text: "Orders" }],
      questions: [],
    };
    writeFileSync(path.join(dir, "tatqa/tatqa_dataset_dev.json"), JSON.stringify([context, unitRow, thousands, orders]));
    const ctx = freshContext("TAT-QA file");
    await loadTatQa(ctx, dir);
    const backend = createDocumentsBackend(CONFIG, {}, ctx);
    try {
      const rows = backend.verbalize(
        await backend.execute({ language: "search", text: "revenue leases", filters: { contentType: "table" } }, { maxRows: 5 }),
      );
      const revenue = rows.find((r) => (r.data as RowData).values[0] === "Revenue")!;
      expect((revenue.data as RowData).columns).toEqual(["($ in millions) For the year ended December 31:", "2019", "2018 (4)"]);
      expect(revenue.provenance.location).toMatchObject({ headerRows: 2, row: 0 });
      const leases = rows.find((r) => (r.data as RowData).values[0] === "Leases")!;
      expect((leases.data as RowData).table).toBe("Leases (in thousands)");
      const gross = backend
        .verbalize(
          await backend.execute({ language: "search", text: "gross carrying amount", filters: { contentType: "table" } }, { maxRows: 5 }),
        )
        .find((r) => (r.data as RowData).values[0] === "Gross carrying amount")!;
      expect((gross.data as RowData).table).toBe("Credit risk (in thousands)");
      const order = backend
        .verbalize(await backend.execute({ language: "search", text: "orders", filters: { contentType: "table" } }, { maxRows: 5 }))
        .find((r) => (r.data as RowData).values[0] === "Orders")!;
      expect((order.data as RowData).columns.slice(1, 3)).toEqual(["2019", "Fiscal year 2018"]);
      expect(order.provenance.location).toMatchObject({ headerRows: 2 });
    } finally {
      await backend.close();
    }
  });
});
