import { describe, expect, it } from "vitest";
import type { StageContext, TraceEventInput } from "@/lib/pipeline/stage";
import { RunCancelledError } from "@/lib/pipeline/stage";
import { answerQuestion } from "@/lib/pipeline/stages/answer/classical";
import {
  CHECKS,
  CONSTRUCT_CHECKS,
  type CritiqueInput,
  STOP_CHECK,
  classicalCritique,
  critique,
  describeChange,
} from "@/lib/pipeline/stages/critique/classical";
import {
  type Answer,
  type Candidate,
  critiqueSchema,
  type ExecutedQuery,
  FEEDBACK_TYPES,
  type Feedback,
  type Intent,
  type ScoredEvidence,
} from "@/lib/pipeline/contracts";
import {
  EX,
  KB,
  edge,
  executed,
  intent,
  iri,
  link,
  literal,
  mention,
  node,
  passage,
  path,
  scored,
  sqlRow,
  triple,
} from "./answer-fixtures";

// ---------------------------------------------------------------------------------------------
// A round = intent + evidence + executed queries; the answer comes from the real answer stage unless a
// test needs a specific (wrong) one.

const candidate = (kb: { id: string; name: string }, kind: Candidate["kind"], score = 1): Candidate => ({
  kbId: kb.id,
  kbName: kb.name,
  kind,
  sourceObjects: [],
  score,
  reasons: [],
});

function round(over: Partial<CritiqueInput> & { intent: Intent; evidence: ScoredEvidence[]; executed: ExecutedQuery[] }): CritiqueInput {
  const answer = over.answer ?? answerQuestion({ intent: over.intent, evidence: over.evidence }).answer;
  return { candidates: [], round: 1, maxRounds: 3, previousFeedback: [], ...over, answer };
}

function check(result: ReturnType<typeof critique>, name: string) {
  const found = result.checks.find((c) => c.name === name);
  if (!found) throw new Error(`no check '${name}'`);
  return found;
}

const auroraAB = iri("aurora", "Aurora Outfitters AB");
const auroraLink = link("Aurora Outfitters AB", KB.products, `${EX}aurora`);
const ceoOf = iri("ceoOf", "chief executive of");
const ceoQuery = `SELECT ?s ?p ?o WHERE { ?s ?p ?o . FILTER(?s = <${EX}aurora> || ?o = <${EX}aurora>) }`;
const ceoTriple = triple(KB.products, iri("maria-lindqvist", "Maria Lindqvist"), ceoOf, auroraAB, ceoQuery);
const otherCeoTriple = triple(
  KB.products,
  iri("anke-vogel", "Anke Vogel"),
  ceoOf,
  iri("aurora-de", "Aurora Outfitters GmbH"),
  "SELECT ?s ?p ?o WHERE { ?s ex:ceoOf ?o }",
);
const locatedTriple = triple(KB.products, auroraAB, iri("locatedIn", "located in"), iri("stockholm", "Stockholm"), ceoQuery);
const foundedTriple = triple(KB.products, auroraAB, iri("founded", "founded"), literal("2004", "gYear"), ceoQuery);

const ceoQuestion = "Who is the chief executive of Aurora Outfitters?";
const ceoIntent = intent(ceoQuestion, {
  wh: "who",
  answerTypes: ["person"],
  relation: "chief executive",
  entities: [mention(ceoQuestion, "Aurora Outfitters", [auroraLink])],
});
const sparqlOk = executed(KB.products, "sparql-pattern", "sparql", ceoQuery, "ok", 4);

const annualSentences = [
  "2025 was a strong year for Aurora Outfitters.",
  "Revenue grew 12 percent to 48.2 million euros, driven by the Nordic region and by our new line of recycled down jackets.",
];
const annual = passage(
  KB.docs,
  "annual-report-2025",
  "Aurora Outfitters Annual Report 2025",
  "Letter from the CEO",
  annualSentences,
  0,
  "aurora outfitters orders",
);
const searchOk = executed(KB.docs, "search", "search", "aurora outfitters orders", "ok", 1);

// ---------------------------------------------------------------------------------------------

describe("critique: validator checks", () => {
  it("accepts an answer that passes every check, with no feedback", () => {
    const result = critique(round({ intent: ceoIntent, evidence: [scored(ceoTriple, 8), scored(locatedTriple, 5)], executed: [sparqlOk] }));
    expect(critiqueSchema.parse(result)).toEqual(result);
    expect(result.accepted).toBe(true);
    expect(result.feedback).toBeNull();
    expect(result.checks.map((c) => c.name)).toEqual([
      CHECKS.answerType,
      CHECKS.entitiesCited,
      CHECKS.queriesReturned,
      CHECKS.connection,
      CHECKS.notRefused,
      CONSTRUCT_CHECKS.negation,
      CONSTRUCT_CHECKS.grouping,
      CONSTRUCT_CHECKS.filters,
    ]);
    expect(result.checks.every((c) => c.passed)).toBe(true);
    expect(check(result, CHECKS.connection).detail).toBe(
      `'Maria Lindqvist' is connected to 'Aurora Outfitters' in ${ceoTriple.id} (triple).`,
    );
    expect(check(result, CHECKS.answerType).detail).toBe("'Maria Lindqvist' reads as person; the question asks for person.");
  });

  it("fails the type check when the answer is of another kind", () => {
    const q = "When was Aurora Outfitters founded?";
    const it_ = intent(q, {
      wh: "when",
      answerTypes: ["date"],
      relation: "founded",
      entities: [mention(q, "Aurora Outfitters", [auroraLink])],
    });
    const wrong: Answer = {
      text: "Stockholm",
      refrained: false,
      reason: null,
      confidence: 0.5,
      citations: [locatedTriple.id],
      candidates: [{ value: "Stockholm", score: 0.5, support: [locatedTriple.id], type: "location" }],
    };
    const result = critique(
      round({
        intent: it_,
        evidence: [scored(locatedTriple, 5)],
        executed: [executed(KB.products, "sparql-pattern", "sparql", "SELECT ?o WHERE { ex:aurora ex:founded ?o }", "ok", 1)],
        answer: wrong,
      }),
    );
    expect(check(result, CHECKS.answerType)).toMatchObject({
      passed: false,
      detail: "'Stockholm' reads as location; the question asks for date: a different kind of value.",
    });
    // The relation was matched (the query used ex:founded) but produced the wrong kind of value.
    expect(result.feedback).toMatchObject({ type: "wrong_relation", target: "founded" });
    expect(result.accepted).toBe(false);
  });

  it("checks that the linked entities appear in the cited evidence", () => {
    const cited: Answer = {
      text: "Anke Vogel",
      refrained: false,
      reason: null,
      confidence: 0.4,
      citations: [otherCeoTriple.id],
      candidates: [{ value: "Anke Vogel", score: 0.4, support: [otherCeoTriple.id], type: "person" }],
    };
    const result = critique(
      round({ intent: ceoIntent, evidence: [scored(otherCeoTriple, 5), scored(ceoTriple, 4)], executed: [sparqlOk], answer: cited }),
    );
    expect(check(result, CHECKS.entitiesCited)).toMatchObject({
      passed: false,
      detail: "'Aurora Outfitters' appear in none of the 1 cited pieces.",
    });
    // Anke Vogel heads Aurora Outfitters GmbH, not the question's company: no path to the entity.
    expect(check(result, CHECKS.connection)).toMatchObject({
      passed: false,
      detail: "No cited piece connects 'Anke Vogel' to 'Aurora Outfitters'.",
    });
  });

  it("reports which queries were empty, refused or timed out, and passes while one returned rows", () => {
    const queries = [
      sparqlOk,
      executed(KB.sales, "schema-linking", "sql", "SELECT ceo FROM companies WHERE name = 'Aurora Outfitters AB'", "empty", 0),
      executed(KB.sales, "guide", "sql", "DELETE FROM companies", "refused", 0, { error: "only SELECT statements are allowed" }),
      executed(KB.movies, "neighborhood", "cypher", "MATCH (n {name: $name})--(m) RETURN n, m", "timeout", 0),
    ];
    const result = critique(round({ intent: ceoIntent, evidence: [scored(ceoTriple, 8)], executed: queries }));
    const queriesCheck = check(result, CHECKS.queriesReturned);
    expect(queriesCheck.passed).toBe(true);
    expect(queriesCheck.detail).toBe(
      "1 of 4 queries returned rows. The database query on Aurora sales database returned nothing; the saved query on Aurora sales database was refused (only SELECT statements are allowed); the graph neighbourhood on Movies graph timed out.",
    );
    const none = critique(round({ intent: ceoIntent, evidence: [], executed: queries.slice(1) }));
    expect(check(none, CHECKS.queriesReturned).passed).toBe(false);
  });

  it("finds the entity-to-answer path in rows, paths and passages", () => {
    // Row: the answer cell sits in a row from a query filtered on the question's entity.
    const q1 = "How many orders did Alpenweg GmbH place?";
    const countSql = "SELECT COUNT(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.name = 'Alpenweg GmbH'";
    const rowRound = round({
      intent: intent(q1, {
        wh: "how many",
        answerTypes: ["count"],
        aggregate: "count",
        entities: [mention(q1, "Alpenweg GmbH", [link("Alpenweg GmbH", KB.sales, "customers.name=Alpenweg GmbH", "value")])],
      }),
      evidence: [scored(sqlRow(KB.sales, "Query result", ["COUNT(*)"], [9], countSql), 5)],
      executed: [executed(KB.sales, "schema-linking", "sql", countSql, "ok", 1)],
    });
    expect(check(critique(rowRound), CHECKS.connection).passed).toBe(true);
    // The same count from an unfiltered query says nothing about Alpenweg.
    const unfiltered = sqlRow(KB.sales, "Query result", ["COUNT(*)"], [120], "SELECT COUNT(*) FROM orders");
    const loose = round({
      intent: rowRound.intent,
      evidence: [scored(unfiltered, 5)],
      executed: [executed(KB.sales, "schema-linking", "sql", "SELECT COUNT(*) FROM orders", "ok", 1)],
    });
    expect(loose.answer.text).toBe("120");
    expect(check(critique(loose), CHECKS.connection).passed).toBe(false);

    // Path: the answer node lies on a path through the question's entity.
    const q2 = "Which movies did Tom Hanks act in?";
    const hanks = node("n1", "Person", "Tom Hanks");
    const apollo = node("n2", "Movie", "Apollo 13", { released: 1995 });
    const cypher = "MATCH p=(a:Person {name: $name})-[:ACTED_IN]->(m) RETURN p";
    const pathRound = round({
      intent: intent(q2, {
        wh: "which",
        answerTypes: ["list", "entity"],
        relation: "act in",
        entities: [mention(q2, "Tom Hanks", [link("Tom Hanks", KB.movies, "n1", "node")])],
      }),
      evidence: [scored(path(KB.movies, [hanks, apollo], [edge("n1", "n2", "ACTED_IN", { roles: ["Jim Lovell"] })], cypher), 5)],
      executed: [executed(KB.movies, "neighborhood", "cypher", cypher, "ok", 1)],
    });
    expect(pathRound.answer.text).toBe("Apollo 13");
    expect(check(critique(pathRound), CHECKS.connection).passed).toBe(true);

    // Passage: the entity and the answer in the same sentence.
    const q3 = "When did Maria Lindqvist join the company?";
    const together = passage(
      KB.docs,
      "annual",
      "Annual Report",
      "Letter",
      ["Our chief executive officer, Maria Lindqvist, joined the company in 2019."],
      0,
      "lindqvist joined",
    );
    const apart = passage(
      KB.docs,
      "annual",
      "Annual Report",
      "Letter",
      ["Maria Lindqvist leads the company.", "The company was joined by two new directors in 2019."],
      1,
      "lindqvist joined",
    );
    const it3 = intent(q3, {
      wh: "when",
      answerTypes: ["date"],
      relation: "join",
      entities: [mention(q3, "Maria Lindqvist", [link("Maria Lindqvist", KB.docs, "annual", "document")])],
    });
    const search = [executed(KB.docs, "search", "search", "lindqvist joined", "ok", 1)];
    expect(check(critique(round({ intent: it3, evidence: [scored(together, 5)], executed: search })), CHECKS.connection).passed).toBe(true);
    const apartRound = round({ intent: it3, evidence: [scored(apart, 5)], executed: search });
    expect(apartRound.answer.text).toBe("2019");
    expect(check(critique(apartRound), CHECKS.connection).passed).toBe(false);
  });

  it("fails the refusal check with the answer's reason", () => {
    const q = "What is the warranty of the Quantum Flux Capacitor?";
    const result = critique(
      round({
        intent: intent(q, { wh: "what", answerTypes: ["number"], relation: "warranty", entities: [mention(q, "Quantum Flux Capacitor")] }),
        evidence: [scored(annual, 3)],
        executed: [searchOk],
      }),
    );
    expect(check(result, CHECKS.notRefused)).toEqual({
      name: CHECKS.notRefused,
      passed: false,
      detail: "Refrained: None of the sources found mentions 'Quantum Flux Capacitor'.",
    });
    expect(check(result, CHECKS.answerType).passed).toBe(false);
    expect(check(result, CHECKS.connection).passed).toBe(false);
  });
});

describe("critique: commentor feedback", () => {
  it("empty_result when every query came back empty, refused or timed out", () => {
    const queries = [
      executed(KB.products, "sparql-pattern", "sparql", ceoQuery, "empty", 0),
      executed(KB.sales, "schema-linking", "sql", "SELECT * FROM companies WHERE name = 'Aurora Outfitters AB'", "timeout", 0),
    ];
    const result = critique(round({ intent: ceoIntent, evidence: [], executed: queries }));
    expect(result.accepted).toBe(false);
    expect(result.feedback).toEqual({
      type: "empty_result",
      target: "Aurora product graph, Aurora sales database",
      detail:
        "No query returned rows (the graph query on Aurora product graph returned nothing; the database query on Aurora sales database timed out).",
    });
  });

  it("no_intersection when the joint query of two entities is empty but each alone has facts", () => {
    const q = "Which movies did Tom Hanks and Meg Ryan act in together?";
    const hanks = node("n1", "Person", "Tom Hanks");
    const ryan = node("n9", "Person", "Meg Ryan");
    const apollo = node("n2", "Movie", "Apollo 13");
    const harry = node("n8", "Movie", "When Harry Met Sally");
    const it_ = intent(q, {
      wh: "which",
      answerTypes: ["list", "entity"],
      relation: "act in",
      entities: [
        mention(q, "Tom Hanks", [link("Tom Hanks", KB.movies, "n1", "node")]),
        mention(q, "Meg Ryan", [link("Meg Ryan", KB.movies, "n9", "node")]),
      ],
    });
    const both = "MATCH (a:Person {name: 'Tom Hanks'})-[:ACTED_IN]->(m)<-[:ACTED_IN]-(b:Person {name: 'Meg Ryan'}) RETURN m";
    const queries = [
      executed(KB.movies, "neighborhood", "cypher", both, "empty", 0, {
        explanation: "intersection of the ego-graphs of 'Tom Hanks' and 'Meg Ryan'",
      }),
      executed(KB.movies, "neighborhood", "cypher", "MATCH p=(a:Person {name: 'Tom Hanks'})-[:ACTED_IN]->(m) RETURN p", "ok", 1),
      executed(KB.movies, "neighborhood", "cypher", "MATCH p=(a:Person {name: 'Meg Ryan'})-[:ACTED_IN]->(m) RETURN p", "ok", 1),
    ];
    const evidence = [
      scored(path(KB.movies, [hanks, apollo], [edge("n1", "n2", "ACTED_IN")], queries[1].query.text), 4),
      scored(path(KB.movies, [ryan, harry], [edge("n9", "n8", "ACTED_IN")], queries[2].query.text), 4),
    ];
    const result = critique(round({ intent: it_, evidence, executed: queries }));
    expect(result.feedback).toMatchObject({ type: "no_intersection", target: "Tom Hanks & Meg Ryan" });
    expect(describeChange(result.feedback!)).toBe("Retrieve 'Tom Hanks' and 'Meg Ryan' separately instead of together");
  });

  it("missing_entity for a question entity with no link", () => {
    const q = "What is the warranty of the Quantum Flux Capacitor?";
    const result = critique(
      round({
        intent: intent(q, { wh: "what", answerTypes: ["number"], relation: "warranty", entities: [mention(q, "Quantum Flux Capacitor")] }),
        evidence: [scored(annual, 3)],
        executed: [searchOk],
      }),
    );
    expect(result.feedback).toEqual({
      type: "missing_entity",
      target: "Quantum Flux Capacitor",
      detail: "No source holds 'Quantum Flux Capacitor', and nothing found mentions it.",
    });
  });

  it("wrong_entity for a linked entity its own source never mentions", () => {
    const q = "What is the weight of the Summit Tent?";
    const it_ = intent(q, {
      wh: "what",
      answerTypes: ["number"],
      relation: "weight",
      entities: [mention(q, "Summit Tent", [link("Summit 2 Tent", KB.products, `${EX}summit-3`)])],
    });
    // The link points at a resource the graph does not describe: the evidence is about other products.
    const basecamp = triple(
      KB.products,
      iri("basecamp-4", "Basecamp 4 Tent"),
      iri("weightGrams", "weight in grams"),
      literal("4200", "integer"),
      "SELECT ?s ?p ?o WHERE { ?s ex:weightGrams ?o }",
    );
    const result = critique(
      round({
        intent: it_,
        evidence: [scored(basecamp, 3)],
        executed: [executed(KB.products, "sparql-pattern", "sparql", basecamp.provenance.query, "ok", 1)],
      }),
    );
    expect(result.feedback).toMatchObject({ type: "wrong_entity", target: "Summit Tent" });
    expect(result.feedback!.detail).toContain("'Summit Tent' was read as 'Summit 2 Tent'");
  });

  it("reads what a parameterised query filtered on from its bound values, so its rows are about the entity", () => {
    const q = "Which two products sell most in the Outdoor category?";
    const it_ = intent(q, {
      wh: "which",
      answerTypes: ["entity"],
      entities: [mention(q, "Outdoor", [link("Outdoor", KB.sales, "categories.name=Outdoor", "value")])],
    });
    const cypher = "MATCH (p:Product)-[:PART_OF]->(c:Category) WHERE c.name = $p0 RETURN p.name AS product, count(*) AS sold";
    // The rows name products only: the category is in the query's parameters, not its text nor its rows.
    const rows = (params?: Record<string, string>) =>
      [
        ["Trail Tent", 41],
        ["Camp Stove", 37],
      ].map(([name, sold], i) => {
        const piece = sqlRow(KB.sales, "Query result", ["product", "sold"], [name, sold], cypher, { row: i });
        return scored({ ...piece, provenance: { ...piece.provenance, language: "cypher", ...(params ? { params } : {}) } }, 5 - i);
      });
    const run = (params?: Record<string, string>) =>
      critique(
        round({
          intent: it_,
          evidence: rows(params),
          executed: [
            executed(KB.sales, "neighborhood", "cypher", cypher, "ok", 2, { query: { language: "cypher", text: cypher, params } }),
          ],
        }),
      );
    expect(run({ p0: "Outdoor" }).feedback?.type).not.toBe("wrong_entity");
    // Without the bound value nothing shows the filter, and the critic would look for another 'Outdoor'.
    expect(run().feedback).toMatchObject({ type: "wrong_entity", target: "Outdoor" });
  });

  it("types a several-column answer by the column that holds the asked kind: names with their counts answer a which-question", () => {
    const q = "Which two products sell most in the Outdoor category?";
    const it_ = intent(q, { wh: "which", answerTypes: ["entity"] });
    const sql = "SELECT p.name AS product, COUNT(*) AS sold FROM orders o JOIN products p ON p.id = o.product_id GROUP BY p.name";
    const evidence = [scored(sqlRow(KB.sales, "Query result", ["product", "sold"], ["Trail Tent", 41], sql, { row: 0 }), 5)];
    const id = evidence[0].piece.id;
    const answerWith = (columns: string[], rows: (string | number)[][]): Answer => ({
      text: "Trail Tent: 41; Camp Stove: 37",
      refrained: false,
      reason: null,
      confidence: 0.7,
      citations: [id],
      candidates: [{ value: "Trail Tent: 41; Camp Stove: 37", score: 0.7, support: [id], type: "count" }],
      shape: {
        kind: columns.length > 1 ? "table" : "list",
        columns,
        rows,
        total: rows.length,
        truncated: false,
        cap: null,
        chart: null,
        source: { kbName: KB.sales.name, language: "sql", query: sql },
      },
    });
    const run = (answer: Answer) =>
      check(
        critique(round({ intent: it_, evidence, executed: [executed(KB.sales, "schema-linking", "sql", sql, "ok", 2)], answer })),
        CHECKS.answerType,
      );
    const named = run(
      answerWith(
        ["product", "sold"],
        [
          ["Trail Tent", 41],
          ["Camp Stove", 37],
        ],
      ),
    );
    expect(named.passed).toBe(true);
    expect(named.detail).toContain("its column 'product' holds entity");
    // Counts alone do not name the products.
    expect(run(answerWith(["sold"], [[41], [37]])).passed).toBe(false);
  });

  it("missing_relation when the relation matches nothing in queries or evidence", () => {
    const q = "What is the carbon footprint of Aurora Outfitters?";
    const it_ = intent(q, {
      wh: "what",
      answerTypes: ["number"],
      relation: "carbon footprint",
      entities: [mention(q, "Aurora Outfitters", [auroraLink])],
    });
    const result = critique(round({ intent: it_, evidence: [scored(locatedTriple, 3), scored(ceoTriple, 3)], executed: [sparqlOk] }));
    expect(result.feedback).toMatchObject({ type: "missing_relation", target: "carbon footprint" });
    expect(describeChange(result.feedback!)).toBe("Drop the relation filter 'carbon footprint' and search again");
  });

  it("wrong_relation when the relation was matched but the answer is not connected through it", () => {
    const q = "Who founded Aurora Outfitters?";
    const it_ = intent(q, {
      wh: "who",
      answerTypes: ["person"],
      relation: "founded",
      entities: [mention(q, "Aurora Outfitters", [auroraLink])],
    });
    const query = `SELECT ?s ?p ?o WHERE { ?s ?p ?o . ?s ex:founded ?o }`;
    // Anke Vogel heads the German subsidiary: the evidence for 'founded' does not lead from Aurora AB to her.
    const answer: Answer = {
      text: "Anke Vogel",
      refrained: false,
      reason: null,
      confidence: 0.4,
      citations: [otherCeoTriple.id],
      candidates: [{ value: "Anke Vogel", score: 0.4, support: [otherCeoTriple.id], type: "person" }],
    };
    const result = critique(
      round({
        intent: it_,
        evidence: [scored(otherCeoTriple, 4), scored(foundedTriple, 4)],
        executed: [executed(KB.products, "sparql-pattern", "sparql", query, "ok", 2)],
        answer,
      }),
    );
    expect(result.feedback).toMatchObject({ type: "wrong_relation", target: "founded" });
    expect(describeChange(result.feedback!)).toBe(
      "Match 'founded' to the next candidate column, predicate or relationship and query again",
    );
  });

  it("wrong_source when an aggregate is asked of documents only", () => {
    const q = "How many orders did Aurora Outfitters receive?";
    const it_ = intent(q, {
      wh: "how many",
      answerTypes: ["count"],
      aggregate: "count",
      relation: "orders",
      entities: [mention(q, "Aurora Outfitters", [link("Aurora Outfitters", KB.docs, "annual-report-2025", "document")])],
    });
    const ordersText = passage(
      KB.docs,
      "annual-report-2025",
      "Aurora Outfitters Annual Report 2025",
      "Sales",
      ["Orders for Aurora Outfitters came from many clubs and retailers."],
      4,
      "orders",
    );
    const result = critique(
      round({
        intent: it_,
        evidence: [scored(ordersText, 3), scored(annual, 2)],
        executed: [searchOk],
        candidates: [candidate(KB.docs, "DOCUMENTS")],
      }),
    );
    expect(result.feedback).toMatchObject({ type: "wrong_source", target: "Aurora documents" });
    expect(result.feedback!.detail).toBe(
      "The question asks for a count, which passages of Aurora documents cannot compute; a database or graph source can.",
    );
    expect(describeChange(result.feedback!)).toBe("Leave out 'Aurora documents' and select other sources");
  });

  it("wrong_source when the evidence came only from sources that do not know the entity", () => {
    const q = "Who directed Apollo 13?";
    const it_ = intent(q, {
      wh: "who",
      answerTypes: ["person"],
      relation: "directed",
      entities: [mention(q, "Apollo 13", [link("Apollo 13", KB.movies, "n2", "node")])],
    });
    const distractor = sqlRow(
      KB.sales,
      "products",
      ["name", "category"],
      ["Summit 2 Tent", "Tents"],
      "SELECT name, category FROM products",
      { row: 0 },
    );
    const result = critique(
      round({
        intent: it_,
        evidence: [scored(distractor, 2)],
        executed: [executed(KB.sales, "schema-linking", "sql", "SELECT name, category FROM products", "ok", 1)],
        candidates: [candidate(KB.sales, "SQL"), candidate(KB.movies, "CYPHER", 0.5)],
      }),
    );
    expect(result.feedback).toMatchObject({ type: "wrong_source", target: "Aurora sales database" });
    expect(result.feedback!.detail).toBe(
      "The evidence came only from Aurora sales database, which never mention 'Apollo 13'; they are known in Movies graph.",
    );
  });

  it("wrong_module when the structured query failed but document search found passages", () => {
    const q = "What was the revenue of Aurora Outfitters?";
    const it_ = intent(q, {
      wh: "what",
      answerTypes: ["money"],
      relation: "revenue",
      entities: [mention(q, "Aurora Outfitters", [link("Aurora Outfitters", KB.docs, "annual-report-2025", "document")])],
    });
    const queries = [
      executed(KB.sales, "schema-linking", "sql", "SELECT revenue FROM companies WHERE name = 'Aurora Outfitters'", "error", 0, {
        error: "no such column: revenue",
      }),
      searchOk,
    ];
    // A weak passage: the answer refrains, the entity is there, the relation word is in the text.
    const weak = passage(
      KB.docs,
      "annual-report-2025",
      "Aurora Outfitters Annual Report 2025",
      "Notes",
      ["Revenue figures for Aurora Outfitters are audited every spring."],
      7,
      "revenue",
    );
    const result = critique(round({ intent: it_, evidence: [scored(weak, 3)], executed: queries }));
    expect(result.feedback).toMatchObject({ type: "wrong_module", target: "schema-linking" });
    expect(result.feedback!.detail).toBe(
      "The database query on Aurora sales database failed while the document search found passages: answer from those.",
    );
  });

  it("next_batch when the entity was found but the answer is absent, with the page as target", () => {
    const q = "What was the revenue of Aurora Outfitters?";
    const it_ = intent(q, {
      wh: "what",
      answerTypes: ["money"],
      relation: "revenue",
      entities: [mention(q, "Aurora Outfitters", [link("Aurora Outfitters", KB.docs, "annual-report-2025", "document")])],
    });
    const weak = passage(
      KB.docs,
      "annual-report-2025",
      "Aurora Outfitters Annual Report 2025",
      "Notes",
      ["Revenue figures for Aurora Outfitters are audited every spring."],
      7,
      "revenue",
    );
    const first = critique(round({ intent: it_, evidence: [scored(weak, 3)], executed: [searchOk] }));
    expect(first.feedback).toMatchObject({ type: "next_batch", target: "1" });
    expect(describeChange(first.feedback!)).toBe("Fetch the next batch of results (page 2)");
    const second = critique(
      round({ intent: it_, evidence: [scored(weak, 3)], executed: [searchOk], round: 2, previousFeedback: [first.feedback!] }),
    );
    expect(second.feedback).toMatchObject({ type: "next_batch", target: "2" });
    // No further results to page through (a complete, untruncated SQL result): no next batch.
    const complete = critique(
      round({ intent: it_, evidence: [scored(weak, 3)], executed: [executed(KB.sales, "schema-linking", "sql", "SELECT 1", "ok", 1)] }),
    );
    expect(complete.feedback?.type).not.toBe("next_batch");
  });

  it("follows the decision order: empty_result before entity and relation feedback", () => {
    const q = "What is the warranty of the Quantum Flux Capacitor?";
    const it_ = intent(q, { wh: "what", answerTypes: ["number"], relation: "warranty", entities: [mention(q, "Quantum Flux Capacitor")] });
    const result = critique(
      round({
        intent: it_,
        evidence: [],
        executed: [executed(KB.docs, "search", "search", "quantum flux capacitor warranty", "empty", 0)],
      }),
    );
    expect(result.feedback?.type).toBe("empty_result");
  });
});

describe("critique: stopping", () => {
  const q = "What is the warranty of the Quantum Flux Capacitor?";
  const it_ = intent(q, { wh: "what", answerTypes: ["number"], relation: "warranty", entities: [mention(q, "Quantum Flux Capacitor")] });
  const base = () => round({ intent: it_, evidence: [scored(annual, 3)], executed: [searchOk] });

  it("never repeats a feedback with the same target: the next rule applies instead", () => {
    const first = critique(base());
    expect(first.feedback).toMatchObject({ type: "missing_entity", target: "Quantum Flux Capacitor" });
    const second = critique({ ...base(), round: 2, previousFeedback: [first.feedback!] });
    expect(second.feedback).not.toBeNull();
    expect(second.feedback).not.toMatchObject({ type: "missing_entity", target: "Quantum Flux Capacitor" });
    // The same type with another target is new feedback.
    const other = critique({ ...base(), previousFeedback: [{ type: "missing_entity", target: "Flux", detail: "" }] });
    expect(other.feedback).toMatchObject({ type: "missing_entity", target: "Quantum Flux Capacitor" });
  });

  it("ends the loop when every applicable feedback was already given, explaining why", () => {
    const first = critique(base());
    const second = critique({ ...base(), round: 2, previousFeedback: [first.feedback!] });
    expect([first.feedback?.type, second.feedback?.type]).toEqual(["missing_entity", "missing_relation"]);
    const third = critique({ ...base(), round: 2, maxRounds: 5, previousFeedback: [first.feedback!, second.feedback!] });
    expect(third.feedback).toBeNull();
    expect(check(third, STOP_CHECK)).toEqual({
      name: STOP_CHECK,
      passed: false,
      detail:
        "No useful feedback remains (already tried: missing_entity 'Quantum Flux Capacitor', missing_relation 'warranty'); the refusal stands and the run keeps its best answer.",
    });
    // A refusal is not accepted this way: the run keeps its best earlier answer.
    expect(third.accepted).toBe(false);
  });

  it("accepts a real answer when no useful feedback remains", () => {
    const cited: Answer = {
      text: "Anke Vogel",
      refrained: false,
      reason: null,
      confidence: 0.4,
      citations: [otherCeoTriple.id],
      candidates: [{ value: "Anke Vogel", score: 0.4, support: [otherCeoTriple.id], type: "person" }],
    };
    const input = round({ intent: ceoIntent, evidence: [scored(otherCeoTriple, 5)], executed: [sparqlOk], answer: cited });
    const first = critique(input);
    expect(first.feedback).not.toBeNull();
    const given: Feedback[] = [first.feedback!];
    let result = critique({ ...input, previousFeedback: given });
    for (let i = 0; result.feedback && i < FEEDBACK_TYPES.length; i++) {
      given.push(result.feedback);
      result = critique({ ...input, previousFeedback: given });
    }
    expect(given.map((f) => f.type)).toEqual(["wrong_entity", "wrong_relation"]);
    expect(result.feedback).toBeNull();
    expect(result.accepted).toBe(true);
    expect(check(result, STOP_CHECK)).toMatchObject({ passed: true });
    expect(check(result, STOP_CHECK).detail).toContain("the answer is accepted as it stands");
  });

  it("gives no feedback in the last round", () => {
    const result = critique({ ...base(), round: 3, maxRounds: 3 });
    expect(result.feedback).toBeNull();
    expect(result.accepted).toBe(false);
    expect(check(result, STOP_CHECK)).toEqual({
      name: STOP_CHECK,
      passed: false,
      detail: "Round 3 of 3: no round left for corrective feedback; the run keeps its best answer.",
    });
  });
});

describe("describeChange", () => {
  it("says in words what the next round does, for every feedback type", () => {
    const expected: Record<(typeof FEEDBACK_TYPES)[number], [string | null, string]> = {
      wrong_entity: ["Paris", "Link 'Paris' to its next-best match in the sources and query again"],
      missing_entity: ["Quantum Flux Capacitor", "Look 'Quantum Flux Capacitor' up by its name in the sources and query again"],
      wrong_relation: ["played for", "Match 'played for' to the next candidate column, predicate or relationship and query again"],
      missing_relation: ["return window", "Drop the relation filter 'return window' and search again"],
      empty_result: [
        "Aurora sales database",
        "Relax the filters (partial matches, no time filter, wider neighbourhoods) on Aurora sales database and query again",
      ],
      no_intersection: ["Tom Hanks & Meg Ryan", "Retrieve 'Tom Hanks' and 'Meg Ryan' separately instead of together"],
      wrong_source: ["Aurora documents", "Leave out 'Aurora documents' and select other sources"],
      wrong_module: ["schema-linking", "Answer without the database query"],
      next_batch: ["1", "Fetch the next batch of results (page 2)"],
      missing_negation: ["from Russia", "Read 'not from Russia' as a negation (a wider window, related rows excluded) and query again"],
      missing_grouping: ["country", "Group the answer by 'country' and query again"],
      missing_filter: ["Brazil", "Filter on 'Brazil' by its name in the sources and query again"],
    };
    for (const type of FEEDBACK_TYPES) {
      const [target, text] = expected[type];
      expect(describeChange({ type, target, detail: "" })).toBe(text);
      // Without a target the sentence still reads.
      expect(describeChange({ type, target: null, detail: "" })).toMatch(/^[A-Z][a-z]+ .+[a-z)]$/);
    }
  });
});

describe("classicalCritique strategy", () => {
  function context(signal = new AbortController().signal): { ctx: StageContext; events: TraceEventInput[] } {
    const events: TraceEventInput[] = [];
    return { ctx: { signal, deadline: Date.now() + 10_000, trace: (e) => events.push(e) }, events };
  }

  it("runs and traces the verdict", async () => {
    const { ctx, events } = context();
    const queries = [executed(KB.products, "sparql-pattern", "sparql", ceoQuery, "empty", 0)];
    const result = await classicalCritique.run(round({ intent: ceoIntent, evidence: [], executed: queries }), ctx);
    expect(classicalCritique.name).toBe("classical");
    expect(result.feedback?.type).toBe("empty_result");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ stage: "critique", type: "INFO", strategy: "classical" });
    expect(events[0].summary).toMatch(/^feedback empty_result 'Aurora product graph'/);
  });

  it("stops when the run is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const { ctx } = context(controller.signal);
    await expect(classicalCritique.run(round({ intent: ceoIntent, evidence: [], executed: [] }), ctx)).rejects.toBeInstanceOf(
      RunCancelledError,
    );
  });
});
