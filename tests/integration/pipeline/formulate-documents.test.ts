import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDocumentsBackend, documentsConfigSchema } from "@/lib/backends/documents";
import { ingestFiles } from "@/lib/ingest/documents/ingest-files";
import type { EntityIndexEntry, KbStructure, KnowledgeBackend, RowData } from "@/lib/backends/types";
import { classicalFormulate } from "@/lib/pipeline/stages/formulate";
import type { StageContext } from "@/lib/pipeline/stage";
import { type Candidate, type EntityMention, type Intent, intentSchema } from "@/lib/pipeline/types";

/** Formulated searches executed on the demo document collection (FTS5 BM25). */

const KB = "kb-policies";
const ctx: StageContext = { signal: new AbortController().signal, deadline: Date.now() + 600_000, trace: () => undefined };
let dir: string;
let backend: KnowledgeBackend;
let structure: KbStructure;
let index: EntityIndexEntry[];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "mosaic-formulate-docs-"));
  const kbCtx = { kbId: KB, kbName: "Aurora policies and reports", storageDir: dir };
  const config = documentsConfigSchema.parse({});
  const files = ["annual-report-2025.md", "travel-and-expense-policy.md", "returns-policy.html"].map((name) => ({
    name,
    bytes: readFileSync(path.resolve("lib/demo/content", name)),
  }));
  await ingestFiles(kbCtx, files, { config });
  backend = createDocumentsBackend(config, {}, kbCtx);
  structure = await backend.structure();
  index = await backend.entityIndex();
});
afterAll(async () => {
  await backend?.close();
  rmSync(dir, { recursive: true, force: true });
});

function intent(question: string, o: Partial<Intent> = {}): Intent {
  return intentSchema.parse({
    question,
    completed: question,
    language: "en",
    wh: null,
    answerTypes: [],
    entities: [],
    relation: null,
    time: [],
    locations: [],
    aggregate: null,
    superlative: null,
    keywords: [],
    ...o,
  });
}

function linked(question: string, text: string): EntityMention {
  const links = index
    .filter((e) => e.label.toLowerCase() === text.toLowerCase())
    .map((e) => ({ kbId: KB, label: e.label, kind: e.kind, ref: e.ref, sourceObject: e.sourceObject, score: 1 }));
  expect(links.length, `"${text}" is in the entity index`).toBeGreaterThan(0);
  const at = question.indexOf(text);
  return { mention: text, span: [at, at + text.length], links, fromContext: false };
}

const candidate = (sourceObjects: string[] = []): Candidate => ({
  kbId: KB,
  kbName: "policies",
  kind: "DOCUMENTS",
  sourceObjects,
  score: 1,
  reasons: [],
});

async function formulate(i: Intent, sourceObjects: string[] = []) {
  return classicalFormulate.run(
    { intent: i, candidates: [candidate(sourceObjects)], structures: new Map([[KB, structure]]), guides: [] },
    ctx,
  );
}

describe("formulated searches on the demo documents", () => {
  it("Who has to approve business class flights? → the booking rule, first", async () => {
    const q = "Who has to approve business class flights?";
    const [first] = await formulate(
      intent(q, { wh: "who", answerTypes: ["person"], relation: "approve", keywords: ["approve", "business", "class", "flights"] }),
    );
    // BM25 gets the content words; the vector half embeds the question as asked.
    expect(first.query).toEqual({ language: "search", text: "approve business class flights", semantic: q });
    const result = await backend.execute(first.query, { maxRows: 3 });
    const pieces = backend.verbalize(result);
    expect(pieces[0].text).toContain(
      "Business class may be booked for flights of six hours or longer with the approval of a vice president.",
    );
  });

  it("What is the per diem in Oslo? → also a table-only search, whose first row is Oslo's", async () => {
    const q = "What is the per diem in Oslo?";
    const queries = await formulate(
      intent(q, {
        wh: "what",
        answerTypes: ["money"],
        keywords: ["per", "diem", "Oslo"],
        locations: ["Oslo"],
        entities: [linked(q, "Oslo")],
      }),
    );
    expect(queries.map((x) => x.query.filters ?? null)).toEqual([null, { sourceObject: expect.stringMatching(/#table-\d+$/) }]);
    const rows = backend.verbalize(await backend.execute(queries[1].query, { maxRows: 3 }));
    expect(rows[0].kind).toBe("row");
    expect((rows[0].data as RowData).values).toEqual(["Oslo", "210", "70"]);
  });

  it("a numeric question without a matched table searches the table rows of the whole collection", async () => {
    const q = "How much did revenue grow in Central Europe?";
    const queries = await formulate(
      intent(q, { wh: "how much", answerTypes: ["percent"], relation: "grow", keywords: ["revenue", "grow", "Central", "Europe"] }),
    );
    expect(queries[1].query.filters).toEqual({ contentType: "table" });
    const rows = backend.verbalize(await backend.execute(queries[1].query, { maxRows: 3 }));
    expect(rows[0].text).toContain("Central Europe");
    expect(rows[0].text).toContain("Growth: 24%");
  });
});
