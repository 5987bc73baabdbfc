import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalModelRuntime } from "@/lib/models/local-runtime";
import type { TextEmbeddings } from "@/lib/models/text-embeddings";
import type { Embedder } from "@/lib/models/types";
import { scorersFor } from "@/lib/pipeline/scorers";
import { formulateCandidate } from "@/lib/pipeline/stages/formulate/classical";
import { linkedTables, withColumnMeaning } from "@/lib/pipeline/stages/formulate/dense-columns";
import { columnKey, columnMeaning } from "@/lib/pipeline/stages/formulate/sql/column-meaning";
import { classicalSelect, selectSources } from "@/lib/pipeline/stages/select/classical";
import { EMBEDDER, SHARED_MODELS_DIR, sharedModelsAvailable } from "@/tests/support/models/fixtures";
import { candidate, EX, intent as formulationIntent, MOVIES, PRODUCTS_RDF, SHOP } from "@/tests/unit/pipeline/formulate-fixtures";
import { CATALOG, context, intent, passage } from "@/tests/unit/pipeline/select-fixtures";

const DOCS = ["kb-docs", "Aurora policies and reports"] as const;

/** Catalog texts embedded on demand and kept in memory (the database-backed cache is exercised by the run tests). */
function memoryTexts(embedder: Embedder): TextEmbeddings {
  const cache = new Map<string, Float32Array>();
  return {
    async vectors(texts) {
      const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
      if (missing.length) (await embedder.embed(missing, "passage")).forEach((v, i) => cache.set(missing[i], v));
      return texts.map((t) => cache.get(t)!);
    },
    cached: (texts) => texts.map((t) => cache.get(t) ?? null),
    stored: async (texts) => texts.map((t) => cache.get(t) ?? null),
  };
}

describe.skipIf(!sharedModelsAvailable())("semantic signals with the shared sentence embedder", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "mosaic-semantic-"));
  let runtime: LocalModelRuntime;
  let embedder: Embedder;
  let texts: TextEmbeddings;

  beforeAll(async () => {
    runtime = new LocalModelRuntime({
      precision: "int8",
      embedder: EMBEDDER,
      crossEncoder: null,
      locations: { modelsDir: SHARED_MODELS_DIR, cacheDir: dir },
      threads: 1,
      batchWaitMs: 2,
      batchSize: 32,
      queueLimit: 1000,
      timeoutMs: 20_000,
    });
    embedder = await runtime.embedder();
    texts = memoryTexts(embedder);
  });
  afterAll(async () => {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("source selection finds the source a question names in other words", async () => {
    const q = intent("Which motion pictures featured Keanu Reeves?");
    // No word of the question is in the movie graph's name, description, descriptor or objects.
    expect(selectSources({ intent: q, catalog: CATALOG, guides: [], k: 3 })).toEqual([]);
    const ctx = context();
    const [first] = await classicalSelect.run({ intent: q, catalog: CATALOG, guides: [], k: 3, embedder, textEmbeddings: texts }, ctx);
    expect(first).toMatchObject({
      kbName: "Movies graph",
      reasons: [expect.objectContaining({ type: "meaning", detail: expect.stringContaining("'Movie'") })],
    });
  });

  it("hands query formulation the tables closest in meaning ('clients' → customers)", async () => {
    const ctx = context();
    const [sales] = await classicalSelect.run(
      { intent: intent("Which clients live in Norway?"), catalog: CATALOG, guides: [], k: 3, embedder, textEmbeddings: texts },
      ctx,
    );
    expect(sales.kbName).toBe("Aurora sales database");
    const [closest] = Object.entries(sales.meaning!).sort((a, b) => b[1] - a[1]);
    expect(closest[0]).toBe("customers");
  });

  it("the dense scorer prefers the passage that says the same thing in other words", async () => {
    const q = intent("When did the Oslo shop first welcome customers?");
    const paraphrase = passage(...DOCS, "stores", 1, "The Oslo store opened on March 3, 2021 after a long renovation.");
    const wordy = passage(...DOCS, "stores", 2, "The Oslo shop sells tents and sleeping bags to its customers.");
    const scorers = scorersFor({ embedder, crossEncoder: null });
    const [lexicalParaphrase, lexicalWordy] = await scorers["bm25-entity"].score(q, [paraphrase, wordy]);
    expect(lexicalParaphrase).toBeLessThan(lexicalWordy);
    const [denseParaphrase, denseWordy] = await scorers.dense.score(q, [paraphrase, wordy]);
    expect(denseParaphrase).toBeGreaterThan(denseWordy);
    // The first round blends both, half and half: the paraphrase closes most of its lexical gap.
    const [hybridParaphrase, hybridWordy] = await scorers.hybrid.score(q, [paraphrase, wordy]);
    expect(hybridWordy - hybridParaphrase).toBeLessThan((lexicalWordy - lexicalParaphrase) / 2);
  });

  it("ranks the column a question names only by meaning first within its table", async () => {
    const closest = async (question: string, structure: Parameters<typeof linkedTables>[0], table: string) => {
      const { meaning, pending } = await columnMeaning(embedder, texts, formulationIntent(question), linkedTables(structure)!.tables);
      expect(pending).toBe(0);
      const ranked = [...meaning].filter(([k]) => k.startsWith(`${table}\u0000`)).sort((a, b) => b[1] - a[1]);
      return ranked[0]?.[0];
    };
    expect(await closest("What do the products cost on average?", SHOP, "products")).toBe(columnKey("products", "list_price"));
    expect(await closest("In which town is each customer?", SHOP, "customers")).toBe(columnKey("customers", "city"));
    // A graph's properties, through the graph seen as tables.
    expect(await closest("In what year did each film come out?", MOVIES, "Movie")).toBe(columnKey("Movie", "released"));
  });

  it("query formulation measures the column the question names by meaning, and by words alone without a model", async () => {
    const q = formulationIntent("What is the average cost of all products?", { wh: "what", answerTypes: ["number"], aggregate: "avg" });
    const input = { intent: q, candidates: [], structures: new Map([["kb-shop", SHOP]]), guides: [], maxQueriesPerCandidate: 1 };
    const shop = candidate("kb-shop", "SQL");
    const dense = await formulateCandidate({ ...input, embedder, textEmbeddings: texts }, shop);
    expect(dense.queries[0].query.text.replace(/\s+/g, " ")).toBe(`SELECT AVG("list_price") AS "average list price" FROM "products"`);
    const classical = await formulateCandidate(input, shop);
    expect(classical.queries[0].query.text).not.toMatch(/AVG/);
  });

  it("SPARQL schema linking reads the closeness of classes under the names it links (labels, not IRIs), and of their predicates", async () => {
    const q = formulationIntent("How heavy is each product?");
    const graph = { ...candidate("kb-rdf", "SPARQL"), meaning: { [`${EX}Product`]: 0.6 } };
    const { candidate: linked } = await withColumnMeaning({ embedder, texts }, q, graph, PRODUCTS_RDF);
    expect(linked.meaning).toEqual({ Product: 0.6 });
    const [closest] = [...linked.columnMeaning!].filter(([k]) => k.startsWith("Product\u0000")).sort((a, b) => b[1] - a[1]);
    expect(closest[0]).toBe(columnKey("Product", "weight in grams"));
    // Without a model the candidate goes on as selection made it.
    expect((await withColumnMeaning(null, q, graph, PRODUCTS_RDF)).candidate).toBe(graph);
  });

  it("a count noun that no table's name holds counts the table it names in other words, as the table's own word would", async () => {
    const movies = candidate("kb-movies", "CYPHER");
    const mostFilms = { wh: "which", superlative: { direction: "max" as const, attribute: "films", limit: 1 } };
    const cypher = async (question: string, over: Parameters<typeof formulationIntent>[1] = {}, dense = true) => {
      const input = { intent: formulationIntent(question, over), candidates: [], structures: new Map([["kb-movies", MOVIES]]), guides: [], maxQueriesPerCandidate: 1 };
      const out = await formulateCandidate(dense ? { ...input, embedder, textEmbeddings: texts } : input, movies);
      return out.queries[0]?.query.text.replace(/\s+/g, " ");
    };
    const nouns = async (question: string) => (await withColumnMeaning({ embedder, texts }, formulationIntent(question), movies, MOVIES)).candidate.nounTables;

    expect(await nouns("How many films are there?")).toEqual({ "films are": "Movie" });
    expect(await cypher("How many films are there?")).toBe("MATCH (movie:`Movie`) RETURN count(*) AS `number of movie`");
    expect(await cypher("How many films did each person direct?")).toBe(await cypher("How many movies did each person direct?", {}, false));
    expect(await cypher("Which person produced the most films?", mostFilms)).toBe(
      await cypher("Which person produced the most movies?", { ...mostFilms, superlative: { ...mostFilms.superlative, attribute: "movies" } }, false),
    );
    // Without a model the noun names nothing, and the answer table's rows are counted.
    expect(await cypher("How many films are there?", {}, false)).toBe("MATCH (person:`Person`) RETURN count(*) AS `number of person`");
    // A noun close to no table in particular is left unplaced.
    expect(await nouns("How many awards did each person win?")).toEqual({});
  });
});
