import neo4j, { type Driver } from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCypherBackend } from "@/lib/backends/cypher";
import type { EntityIndexEntry, EvidencePiece, KbStructure, KnowledgeBackend, PathData } from "@/lib/backends/types";
import { classicalFormulate } from "@/lib/pipeline/stages/formulate/classical";
import type { StageContext } from "@/lib/pipeline/stage";
import { type EntityMention, type Feedback, type FormulatedQuery, type Intent, intentSchema } from "@/lib/pipeline/contracts";
import { loadMoviesGraph } from "../../support/services/neo4j";

/**
 * structure() and formulated Cypher on a real Neo4j with the movies graph (npm run test:services
 * starts one and sets TEST_NEO4J_URI / _USER / _PASSWORD); skipped without one.
 */
const uri = process.env.TEST_NEO4J_URI;
const user = process.env.TEST_NEO4J_USER ?? "neo4j";
const password = process.env.TEST_NEO4J_PASSWORD;
const KB = "kb-movies";
const ctx: StageContext = { signal: new AbortController().signal, deadline: Date.now() + 600_000, trace: () => undefined };

describe.skipIf(!uri)("Cypher formulation on the movies graph", () => {
  let driver: Driver;
  let backend: KnowledgeBackend;
  let structure: KbStructure;
  let index: EntityIndexEntry[];

  const scalar = async (query: string, params: Record<string, unknown> = {}) => {
    const session = driver.session({ defaultAccessMode: neo4j.session.READ });
    try {
      return neo4j.integer.toNumber((await session.run(query, params)).records[0]!.get(0));
    } finally {
      await session.close();
    }
  };

  beforeAll(async () => {
    driver = neo4j.driver(uri!, password ? neo4j.auth.basic(user, password) : undefined);
    if ((await scalar("MATCH (m:Movie) RETURN count(m)")) === 0) await loadMoviesGraph(driver);
    backend = createCypherBackend({ uri: uri!, user }, { password }, { kbId: KB, kbName: "Movies", storageDir: "/nonexistent" });
    structure = await backend.structure();
    index = await backend.entityIndex({ limit: 5000 });
  });
  afterAll(async () => {
    await backend?.close();
    await driver?.close();
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
      .filter((e) => e.kind === "node" && e.label === text)
      .map((e) => ({ kbId: KB, label: e.label, kind: e.kind, ref: e.ref, sourceObject: e.sourceObject, score: 1 }));
    expect(links.length, `"${text}" is in the entity index`).toBeGreaterThan(0);
    const at = question.indexOf(text);
    return { mention: text, span: [at, at + text.length], links, fromContext: false };
  }
  /**
   * The formulated queries and what each returns. The answer query (issue 14: the question's plan as
   * Cypher) comes first when there is one; `queries` and `pieces` are the neighbourhood queries after it.
   */
  async function run(
    i: Intent,
    feedback: Feedback | null = null,
  ): Promise<{
    queries: FormulatedQuery[];
    pieces: EvidencePiece[][];
    answer: { query: FormulatedQuery; pieces: EvidencePiece[] } | null;
  }> {
    const all = await classicalFormulate.run(
      {
        intent: i,
        candidates: [{ kbId: KB, kbName: "Movies", kind: "CYPHER", sourceObjects: [], score: 1, reasons: [] }],
        structures: new Map([[KB, structure]]),
        guides: [],
        feedback,
      },
      ctx,
    );
    const execute = async (q: FormulatedQuery) =>
      backend.verbalize(await backend.execute(q.query, { maxRows: 500 }), { sourceObject: q.sourceObject });
    const answerQuery = all.find((q) => q.role === "answer") ?? null;
    const queries = all.filter((q) => q !== answerQuery);
    const pieces: EvidencePiece[][] = [];
    for (const q of queries) pieces.push(await execute(q));
    return { queries, pieces, answer: answerQuery ? { query: answerQuery, pieces: await execute(answerQuery) } : null };
  }

  it("structure() lists labels with typed properties, relationship types, patterns and caption keys", () => {
    const s = structure as Extract<KbStructure, { kind: "graph" }>;
    expect(s.kind).toBe("graph");
    const person = s.labels.find((l) => l.label === "Person")!;
    expect(person.count).toBeGreaterThan(100);
    expect(person.properties).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "name", types: ["STRING"] }),
        expect.objectContaining({ name: "born", types: ["INTEGER"] }),
      ]),
    );
    expect(typeof person.properties.find((p) => p.name === "born")!.examples[0]).toBe("number");
    expect(s.relationships.map((r) => r.type)).toEqual(expect.arrayContaining(["ACTED_IN", "DIRECTED"]));
    expect(s.patterns).toEqual(expect.arrayContaining([expect.objectContaining({ from: "Person", type: "ACTED_IN", to: "Movie" })]));
    expect(s.captionKeys).toMatchObject({ Person: "name", Movie: "title" });
  });

  it("Which movies did Tom Hanks act in? → his ACTED_IN paths", async () => {
    const q = "Which movies did Tom Hanks act in?";
    const { pieces, answer } = await run(intent(q, { wh: "which", relation: "act in", entities: [linked(q, "Tom Hanks")] }));
    const expected = await scalar("MATCH (:Person {name: 'Tom Hanks'})-[:ACTED_IN]->(m:Movie) RETURN count(m)");
    // The answer query returns the movies themselves, one each.
    expect(answer?.pieces).toHaveLength(expected);
    expect(pieces[0]).toHaveLength(expected);
    expect(pieces[0].every((p) => p.kind === "path" && p.text.startsWith("Tom Hanks -ACTED_IN"))).toBe(true);
    expect(pieces[0].map((p) => p.text)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Tom Hanks -ACTED_IN \(roles: .*\)-> Apollo 13$/)]),
    );
  });

  it("How many movies did Tom Hanks direct? → the count row, then the paths", async () => {
    const q = "How many movies did Tom Hanks direct?";
    const { pieces, answer } = await run(intent(q, { aggregate: "count", relation: "directed", entities: [linked(q, "Tom Hanks")] }));
    const expected = await scalar("MATCH (:Person {name: 'Tom Hanks'})-[:DIRECTED]->(m:Movie) RETURN count(m)");
    expect(answer?.pieces.map((p) => p.text)).toEqual([`Query result / number of movie: ${expected}`]);
    expect(pieces[0].map((p) => p.text)).toEqual([`Query result / relationship: DIRECTED, count: ${expected}, entity: Tom Hanks`]);
    expect(pieces[1]).toHaveLength(expected);
  });

  it("How are Tom Hanks and Meg Ryan connected? → the paths between them, else their separate ego-graphs", async () => {
    const q = "How are Tom Hanks and Meg Ryan connected?";
    const i = intent(q, { entities: [linked(q, "Tom Hanks"), linked(q, "Meg Ryan")] });
    const { pieces } = await run(i);
    expect(pieces[0].length).toBeGreaterThan(0);
    for (const p of pieces[0]) {
      const captions = (p.data as PathData).nodes.map((n) => n.caption);
      expect([captions[0], captions[captions.length - 1]].sort()).toEqual(["Meg Ryan", "Tom Hanks"]);
    }
    expect(pieces[0].map((p) => p.text)).toEqual(expect.arrayContaining([expect.stringMatching(/Sleepless in Seattle/)]));
    const separate = await run(i, { type: "no_intersection", target: null, detail: "" });
    expect(separate.queries[0].explanation).toContain("each entity's own ego-graph");
    expect(separate.pieces[0].some((p) => p.text.startsWith("Meg Ryan"))).toBe(true);
  });

  it("What is the oldest movie Tom Hanks acted in? → ordered by release year", async () => {
    const q = "What is the oldest movie Tom Hanks acted in?";
    const { pieces } = await run(
      intent(q, {
        relation: "acted in",
        superlative: { direction: "max", attribute: "oldest", limit: 1 },
        entities: [linked(q, "Tom Hanks")],
      }),
    );
    const session = driver.session({ defaultAccessMode: neo4j.session.READ });
    const oldest = (
      await session.run("MATCH (:Person {name: 'Tom Hanks'})-[:ACTED_IN]->(m:Movie) RETURN m.title ORDER BY m.released ASC LIMIT 1")
    ).records[0]!.get(0) as string;
    await session.close();
    expect(pieces[0]).toHaveLength(1);
    expect(pieces[0][0].text.endsWith(oldest)).toBe(true);
  });

  it("Who reviewed the most movies? → the reviewer's name beside the count, ranked on the real graph", async () => {
    const { answer } = await run(
      intent("Who reviewed the most movies?", { wh: "who", superlative: { direction: "max", attribute: "movies", limit: 1 } }),
    );
    const session = driver.session({ defaultAccessMode: neo4j.session.READ });
    const top = (
      await session.run("MATCH (p:Person)-[:REVIEWED]->(m:Movie) WITH p, count(DISTINCT m) AS n ORDER BY n DESC LIMIT 1 RETURN p.name, n")
    ).records[0]!;
    await session.close();
    expect(answer?.query.query.text).toMatch(/^MATCH \(person:`Person`\)-\[reviewed:`REVIEWED`\]->\(movie:`Movie`\)/);
    expect(answer?.pieces.map((p) => p.text)).toEqual([
      `Query result / name: ${top.get(0)}, number of movie: ${neo4j.integer.toNumber(top.get(1))}`,
    ]);
  });

  it("Which movies have no tagline? → exactly the movies whose tagline property is missing", async () => {
    const { answer } = await run(intent("Which movies have no tagline?", { wh: "which" }));
    expect(answer?.query.query.text).toContain("WHERE movie.`tagline` IS NULL");
    expect(answer?.pieces).toHaveLength(await scalar("MATCH (m:Movie) WHERE m.tagline IS NULL RETURN count(m)"));
  });

  it("finds an unlinked mention by name", async () => {
    const q = "Who directed The Matrix?";
    const { pieces, answer } = await run(
      intent(q, { relation: "directed", entities: [{ mention: "The Matrix", span: [13, 23], links: [], fromContext: false }] }),
    );
    // No answer query: one that cannot filter on 'The Matrix' would answer for every film.
    expect(answer).toBeNull();
    expect(pieces[0].map((p) => p.text).sort()).toEqual([
      "The Matrix <-DIRECTED- Lana Wachowski",
      "The Matrix <-DIRECTED- Lilly Wachowski",
    ]);
  });
});
