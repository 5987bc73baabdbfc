import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSparqlBackend, storeRdfFiles } from "@/lib/backends/sparql";
import type { EntityIndexEntry, EvidencePiece, KbStructure, KnowledgeBackend } from "@/lib/backends/types";
import { classicalFormulate } from "@/lib/pipeline/stages/formulate/classical";
import type { StageContext } from "@/lib/pipeline/stage";
import { type EntityMention, type Feedback, type FormulatedQuery, type Intent, intentSchema } from "@/lib/pipeline/contracts";

/** Formulated SPARQL executed on the demo product/organisation graph in the embedded Oxigraph store. */

const KB = "kb-graph";
const ctx: StageContext = { signal: new AbortController().signal, deadline: Date.now() + 600_000, trace: () => undefined };
let dir: string;
let backend: KnowledgeBackend;
let structure: KbStructure;
let index: EntityIndexEntry[];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "mosaic-formulate-rdf-"));
  const kbCtx = { kbId: KB, kbName: "Aurora product and organisation graph", storageDir: dir };
  await storeRdfFiles(kbCtx, [{ name: "products.ttl", bytes: readFileSync(path.resolve("lib/demo/content/products.ttl")) }]);
  backend = createSparqlBackend({ mode: "embedded" }, {}, kbCtx);
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

/**
 * The formulated queries run on Oxigraph: the answer query's result rows (the question plan written as
 * SPARQL) apart, then each evidence pattern's pieces.
 */
async function run(
  i: Intent,
  feedback: Feedback | null = null,
): Promise<{
  queries: FormulatedQuery[];
  pieces: EvidencePiece[][];
  answer: { query: FormulatedQuery; rows: Record<string, unknown>[] } | null;
}> {
  const all = await classicalFormulate.run(
    {
      intent: i,
      candidates: [{ kbId: KB, kbName: "graph", kind: "SPARQL", sourceObjects: [], score: 1, reasons: [] }],
      structures: new Map([[KB, structure]]),
      guides: [],
      feedback,
      maxQueriesPerCandidate: 4,
    },
    ctx,
  );
  const answerQuery = all.find((q) => q.role === "answer") ?? null;
  const queries = all.filter((q) => q.role !== "answer");
  const pieces: EvidencePiece[][] = [];
  for (const q of queries)
    pieces.push(backend.verbalize(await backend.execute(q.query, { maxRows: 200 }), { sourceObject: q.sourceObject }));
  const answer = answerQuery ? { query: answerQuery, rows: (await backend.execute(answerQuery.query, { maxRows: 200 })).records } : null;
  return { queries, pieces, answer };
}

/** A result cell as text: RDF terms by their lexical value. */
const cell = (v: unknown) => (v && typeof v === "object" && "value" in v ? String((v as { value: unknown }).value) : String(v));
const column = (rows: Record<string, unknown>[]) => rows.map((r) => cell(Object.values(r)[0]));

describe("formulated SPARQL on the demo RDF graph", () => {
  it("Who is the chief executive of Aurora Outfitters AB? → Maria Lindqvist, as a labelled triple", async () => {
    const q = "Who is the chief executive of Aurora Outfitters AB?";
    const { pieces } = await run(
      intent(q, { wh: "who", answerTypes: ["person"], relation: "chief executive of", entities: [linked(q, "Aurora Outfitters AB")] }),
    );
    expect(pieces[0].map((p) => p.text)).toEqual(["Maria Lindqvist chief executive of Aurora Outfitters AB"]);
    expect(pieces[0][0].kind).toBe("triple");
    // The second query holds every fact of the company, the CEO fact among them.
    expect(pieces[1].map((p) => p.text)).toEqual(
      expect.arrayContaining(["Maria Lindqvist chief executive of Aurora Outfitters AB", "Aurora Outfitters AB located in Stockholm"]),
    );
  });

  it("How many products are made by Fjelltex Textiles? → 4, with the facts behind the count", async () => {
    const q = "How many products are made by Fjelltex Textiles?";
    const { pieces, answer } = await run(
      intent(q, {
        wh: "how many",
        aggregate: "count",
        answerTypes: ["count"],
        relation: "made by",
        entities: [linked(q, "Fjelltex Textiles")],
      }),
    );
    // The answer query: products joined to their maker along "made by", the maker's label filtered, counted.
    expect(answer?.query.query.text).toMatch(/COUNT/);
    expect(answer?.query.query.text).toMatch(/madeBy/);
    expect(column(answer!.rows)).toEqual(["4"]);
    expect(pieces[0].map((p) => p.text)).toEqual(["Query result / count: 4"]);
    expect(pieces[1].map((p) => p.text).sort()).toEqual([
      "Arctic Sleeping Bag made by Fjelltex Textiles",
      "Fjord Down Jacket made by Fjelltex Textiles",
      "Storm Shell Jacket made by Fjelltex Textiles",
      "Summer Sleeping Bag made by Fjelltex Textiles",
    ]);
  });

  it("Which products are made of leather? → Ridge Hiking Boot, through the linked literal", async () => {
    const q = "Which products are made of leather?";
    const { pieces, answer } = await run(intent(q, { wh: "which", entities: [linked(q, "leather")] }));
    expect(column(answer!.rows)).toEqual(["Ridge Hiking Boot"]);
    expect(pieces[0].map((p) => p.text)).toEqual(["Ridge Hiking Boot material leather"]);
  });

  it("Which product is the heaviest? → Basecamp 4 Tent", async () => {
    const { pieces, answer } = await run(
      intent("Which product is the heaviest?", { wh: "which", superlative: { direction: "max", attribute: "heaviest", limit: 1 } }),
    );
    expect(answer?.query.query.text).toMatch(/ORDER BY DESC\(\?Product_weight_in_grams\)\s+LIMIT 1/);
    expect(column(answer!.rows)).toEqual(["Basecamp 4 Tent"]);
    expect(pieces[0].map((p) => p.text)).toEqual(["Basecamp 4 Tent weight in grams 5100"]);
  });

  it("connects two resources through a shared neighbour, and falls back to their separate facts on no_intersection", async () => {
    const q = "How is Anke Vogel related to Aurora Outfitters AB?";
    const i = intent(q, { entities: [linked(q, "Anke Vogel"), linked(q, "Aurora Outfitters AB")] });
    const { pieces } = await run(i);
    expect(pieces[0].map((p) => p.text).sort()).toEqual([
      "Anke Vogel chief executive of Aurora Outfitters GmbH",
      "Aurora Outfitters GmbH subsidiary of Aurora Outfitters AB",
    ]);
    const separate = await run(i, { type: "no_intersection", target: null, detail: "" });
    expect(separate.pieces[0].map((p) => p.text)).toEqual(
      expect.arrayContaining(["Anke Vogel type Person", "Aurora Outfitters AB located in Stockholm"]),
    );
  });
});
