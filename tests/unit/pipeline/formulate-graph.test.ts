import { describe, expect, it } from "vitest";
import { neighborhoodQuery } from "@/lib/backends/cypher";
import { checkSparqlSafety } from "@/lib/backends/sparql";
import { adjustmentsFor, formulateCypher, formulateSparql, noAdjustments } from "@/lib/pipeline/stages/formulate/classical";
import type { Feedback, Intent } from "@/lib/pipeline/contracts";
import { candidate, EX, intent, link, mention, MOVIES, PRODUCTS_RDF } from "./formulate-fixtures";

const GRAPH = "kb-movies";
const RDF = "kb-products";
const HANKS = "4:abc:1";
const RYAN = "4:abc:2";
const node = (ref: string, label: string, sourceObject = "Person", score = 1) => link(GRAPH, "node", ref, label, score, sourceObject);

function cypher(i: Intent, feedback: Feedback | null = null, max = 3) {
  const adj = feedback ? adjustmentsFor(i, feedback) : noAdjustments();
  // The answer query (the question plan written as Cypher) leads; these tests read the neighbourhoods after it.
  const all = formulateCypher(i, candidate(GRAPH, "CYPHER"), MOVIES, adj, max + 1, adj.page);
  const answer = all.queries.find((q) => q.role === "answer") ?? null;
  const queries = all.queries.filter((q) => q.role !== "answer").slice(0, max);
  const notes = all.notes;
  for (const q of all.queries) {
    expect(q.query.language).toBe("cypher");
    expect(q.strategy).toBe("neighborhood");
    // Entity references are parameters, never spliced into the text.
    expect(q.query.text).not.toContain(HANKS);
    expect(q.query.text).not.toContain("Tom Hanks");
  }
  return { queries, notes, answer };
}

function sparql(i: Intent, feedback: Feedback | null = null, max = 3) {
  const adj = feedback ? adjustmentsFor(i, feedback) : noAdjustments();
  const all = formulateSparql(i, candidate(RDF, "SPARQL"), PRODUCTS_RDF, adj, max + 1, adj.page);
  const answer = all.queries.find((q) => q.role === "answer") ?? null;
  const queries = all.queries.filter((q) => q.role !== "answer").slice(0, max);
  const notes = all.notes;
  for (const q of all.queries) {
    expect(q.query.language).toBe("sparql");
    expect(q.strategy).toBe("sparql-pattern");
    expect(checkSparqlSafety(q.query.text).form).toBe("SELECT");
  }
  return { texts: queries.map((q) => q.query.text.replace(/\s+/g, " ")), queries, notes, answer };
}

describe("Cypher neighbourhoods", () => {
  const q = "Which movies did Tom Hanks act in?";
  const hanks = intent(q, { wh: "which", relation: "act in", entities: [mention(q, "Tom Hanks", [node(HANKS, "Tom Hanks")])] });

  it("retrieves the ego-graph of a linked node along the relationship type the relation names, then all types", () => {
    const { queries } = cypher(hanks);
    expect(queries[0].query).toEqual(neighborhoodQuery({ elementIds: [HANKS], hops: 1, relationshipTypes: ["ACTED_IN"], limit: 100 }));
    expect(queries[1].query).toEqual(neighborhoodQuery({ elementIds: [HANKS], hops: 1, limit: 100 }));
    expect(queries[0].sourceObject).toBe("Person");
    expect(queries[0].explanation).toContain("along ACTED_IN");
  });

  it("matches 'directed' to DIRECTED and counts for 'how many', restricted to the label the question names", () => {
    const c = "How many movies did Tom Hanks direct?";
    const { queries } = cypher(
      intent(c, { aggregate: "count", relation: "directed", entities: [mention(c, "Tom Hanks", [node(HANKS, "Tom Hanks")])] }),
    );
    expect(queries[0].query.text).toBe(
      [
        "MATCH (s) WHERE elementId(s) IN $ids",
        "MATCH (s)-[r:`DIRECTED`]-(x:`Movie`)",
        "RETURN s AS entity, type(r) AS relationship, count(DISTINCT x) AS count",
        "LIMIT $limit",
      ].join("\n"),
    );
    expect(queries[0].query.params).toEqual({ ids: [HANKS], limit: 100 });
    expect(queries[1].query.params?.types).toEqual(["DIRECTED"]);
  });

  it("connects several entities through the paths between them (the intersection of their ego-graphs)", () => {
    const c = "Which movies did Tom Hanks and Meg Ryan make together?";
    const both = intent(c, {
      entities: [mention(c, "Tom Hanks", [node(HANKS, "Tom Hanks")]), mention(c, "Meg Ryan", [node(RYAN, "Meg Ryan")])],
    });
    const { queries } = cypher(both);
    expect(queries[0].query.text).toBe(
      [
        "MATCH (a) WHERE elementId(a) IN $ids",
        "MATCH (b) WHERE elementId(b) IN $ids AND elementId(a) < elementId(b)",
        "MATCH p = (a)-[*1..2]-(b)",
        "RETURN p SKIP $skip LIMIT $limit",
      ].join("\n"),
    );
    expect(queries[0].query.params).toEqual({ ids: [HANKS, RYAN], skip: 0, limit: 100 });
    expect(queries[1].query).toEqual(neighborhoodQuery({ elementIds: [HANKS, RYAN], hops: 1, limit: 100 }));
    // no_intersection: the separate ego-graphs come first.
    const separate = cypher(both, { type: "no_intersection", target: null, detail: "" });
    expect(separate.queries[0].query).toEqual(neighborhoodQuery({ elementIds: [HANKS, RYAN], hops: 1, limit: 100 }));
    expect(separate.queries.some((x) => x.query.text.includes("(a)-[*1.."))).toBe(false);
  });

  it("finds unlinked mentions by name and linked values by their property", () => {
    const c = "Who acted in The Matrix?";
    const byName = cypher(intent(c, { relation: "acted in", entities: [mention(c, "The Matrix", [])] }));
    expect(byName.queries[0].query.params).toMatchObject({ names: ["The Matrix"], nameKeys: ["name", "title"], types: ["ACTED_IN"] });
    const v = "Which movies have the tagline Houston?";
    const byValue = cypher(
      intent(v, {
        entities: [
          mention(v, "Houston", [
            link(GRAPH, "value", "Movie.tagline=Houston, we have a problem.", "Houston, we have a problem.", 0.9, "Movie"),
          ]),
        ],
      }),
    );
    expect(byValue.queries[0].query.params).toMatchObject({ names: ["Houston, we have a problem."], nameKeys: ["tagline"] });
  });

  it("answers with the nodes a property value other than their name selects, and not with a node named by the question", () => {
    // "Which movies have tagline X": the filter selects movies, it does not name one; they are the answer.
    const v = "Which movies have the tagline 'Houston, we have a problem.'?";
    const tagline = link(GRAPH, "value", "Movie.tagline=Houston, we have a problem.", "Houston, we have a problem.", 1, "Movie");
    const selected = cypher(intent(v, { wh: "which", entities: [mention(v, "Houston, we have a problem.", [tagline])] }));
    expect(selected.answer?.query.text).toMatch(/^MATCH \(movie:`Movie`\)\nWHERE movie\.`tagline` = \$p0\nRETURN/);
    expect(selected.answer?.query.params).toMatchObject({ p0: "Houston, we have a problem." });
    // "Which movie is Apollo 13?": filtered on its caption alone, the node is the one the question names.
    const n = "Which movie is Apollo 13?";
    const title = link(GRAPH, "value", "Movie.title=Apollo 13", "Apollo 13", 1, "Movie");
    expect(cypher(intent(n, { wh: "which", entities: [mention(n, "Apollo 13", [title])] })).answer).toBeNull();
  });

  it("orders by the measurable property of the named label for a superlative", () => {
    const c = "What is the oldest movie Tom Hanks acted in?";
    const { queries } = cypher(
      intent(c, {
        relation: "acted in",
        superlative: { direction: "max", attribute: "oldest", limit: 1 },
        entities: [mention(c, "Tom Hanks", [node(HANKS, "Tom Hanks")])],
      }),
    );
    expect(queries[0].query.text).toBe(
      [
        "MATCH (s) WHERE elementId(s) IN $ids",
        "MATCH p = (s)-[:`ACTED_IN`]-(x:`Movie`)",
        "WHERE x.`released` IS NOT NULL",
        "RETURN p ORDER BY x.`released` ASC LIMIT $limit",
      ].join("\n"),
    );
  });

  it("follows the critic: next relationship type, no type, wider after an empty result, next page", () => {
    const related = intent("Which movies did Tom Hanks direct or act in?", {
      relation: "acted in",
      entities: [mention("Which movies did Tom Hanks direct or act in?", "Tom Hanks", [node(HANKS, "Tom Hanks")])],
    });
    const next = cypher(related, { type: "wrong_relation", target: null, detail: "" });
    expect(next.queries[0].query.params?.types).toEqual(["DIRECTED"]);
    const none = cypher(hanks, { type: "missing_relation", target: null, detail: "" });
    expect(none.queries[0].query).toEqual(neighborhoodQuery({ elementIds: [HANKS], hops: 1, limit: 100 }));
    const wider = cypher(hanks, { type: "empty_result", target: null, detail: "" });
    expect(wider.queries[0].query).toEqual(neighborhoodQuery({ elementIds: [HANKS], hops: 2, limit: 100 }));
    const page = cypher(hanks, { type: "next_batch", target: null, detail: "" });
    expect(page.queries[0].query.text).toMatch(/RETURN p SKIP \$skip LIMIT \$limit$/);
    expect(page.queries[0].query.params).toMatchObject({ skip: 100, limit: 100 });
  });

  it("wrong_entity moves to the next-best node link", () => {
    const c = "Who directed Tom Hanks?";
    const i = intent(c, {
      entities: [mention(c, "Tom Hanks", [node(HANKS, "Tom Hanks", "Person", 0.9), node("4:abc:9", "Tom Hanks Jr.", "Person", 0.7)])],
    });
    expect(cypher(i, { type: "wrong_entity", target: "Tom Hanks", detail: "" }).queries[0].query.params?.ids).toEqual(["4:abc:9"]);
  });

  it("says why when nothing of the question is in the graph", () => {
    const { queries, notes } = cypher(intent("What is the revenue of Aurora?", {}));
    expect(queries).toEqual([]);
    expect(notes[0]).toMatch(/no entity of the question is linked/);
  });
});

describe("SPARQL patterns", () => {
  const aurora = link(RDF, "label", `${EX}aurora`, "Aurora Outfitters AB", 1, `${EX}Organisation`);
  const q = "Who is the chief executive of Aurora Outfitters AB?";
  const ceo = intent(q, {
    wh: "who",
    answerTypes: ["person"],
    relation: "chief executive of",
    entities: [mention(q, "Aurora Outfitters AB", [aurora])],
  });

  it("asks the facts along the predicate the relation names, in both directions, then all facts", () => {
    const { texts, queries } = sparql(ceo);
    expect(texts[0]).toBe(
      `PREFIX ex: <${EX}> SELECT ?s ?p ?o WHERE { { VALUES ?s { ex:aurora } VALUES ?p { ex:ceoOf } ?s ?p ?o . } UNION { VALUES ?o { ex:aurora } VALUES ?p { ex:ceoOf } ?s ?p ?o . } } LIMIT 100`,
    );
    expect(texts[1]).toBe(
      `PREFIX ex: <${EX}> SELECT ?s ?p ?o WHERE { { VALUES ?s { ex:aurora } ?s ?p ?o . } UNION { VALUES ?o { ex:aurora } ?s ?p ?o . } } LIMIT 100`,
    );
    expect(queries[0].sourceObject).toBe(`${EX}Organisation`);
  });

  it("restricts the other end to the class the question names and counts for 'how many'", () => {
    const c = "How many products are made by Mekong Gear Works?";
    const mekong = link(RDF, "label", `${EX}mekong`, "Mekong Gear Works", 1, `${EX}Organisation`);
    const { texts } = sparql(intent(c, { aggregate: "count", relation: "made by", entities: [mention(c, "Mekong Gear Works", [mekong])] }));
    expect(texts[0]).toBe(
      `PREFIX ex: <${EX}> SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { { VALUES ?a { ex:mekong } { ?x ex:madeBy ?a } UNION { ?a ex:madeBy ?x } } ?x a ex:Product . }`,
    );
    expect(texts[1]).toContain("?s ?p ?o . ?s a ex:Product .");
  });

  it("uses the intersection for several resources, unless the critic found none", () => {
    const c = "How are Anke Vogel and Aurora Outfitters AB related?";
    const anke = link(RDF, "label", `${EX}anke-vogel`, "Anke Vogel", 1, `${EX}Person`);
    const i = intent(c, { entities: [mention(c, "Anke Vogel", [anke]), mention(c, "Aurora Outfitters AB", [aurora])] });
    const { texts } = sparql(i);
    expect(texts[0]).toContain("FILTER(?n IN (ex:anke-vogel, ex:aurora) || EXISTS {");
    expect(texts[1]).toContain("VALUES ?s { ex:anke-vogel ex:aurora }");
    expect(sparql(i, { type: "no_intersection", target: null, detail: "" }).texts[0]).not.toContain("EXISTS");
  });

  it("matches literal values with STR() and orders a numeric predicate for a superlative", () => {
    const c = "Which products are made of leather?";
    const leather = link(RDF, "value", `<${EX}material> "leather"`, "leather", 1, `${EX}Product`);
    expect(sparql(intent(c, { entities: [mention(c, "leather", [leather])] })).texts[0]).toBe(
      `PREFIX ex: <${EX}> SELECT ?s ?p ?o WHERE { VALUES ?p { ex:material } ?s ?p ?o . FILTER(STR(?o) = "leather") ?s a ex:Product . } LIMIT 100`,
    );
    const h = "Which product is the heaviest?";
    expect(sparql(intent(h, { superlative: { direction: "max", attribute: "heaviest", limit: 1 } })).texts[0]).toBe(
      `PREFIX ex: <${EX}> SELECT ?s ?p ?o WHERE { VALUES ?p { ex:weightGrams } ?s ?p ?o . ?s a ex:Product . } ORDER BY DESC(?o) LIMIT 1`,
    );
  });

  it("writes hostile literals and IRIs safely", () => {
    const hostile = `x" } ; DROP ALL ; SELECT * { "`;
    const c = `Which products are made of ${hostile}?`;
    const v = link(RDF, "value", `<${EX}material> ${JSON.stringify(hostile)}`, hostile, 1, `${EX}Product`);
    const { texts } = sparql(intent(c, { entities: [mention(c, hostile, [v])] }));
    expect(texts[0]).toContain(`FILTER(STR(?o) = ${JSON.stringify(hostile)})`);
    // An IRI that would close <…> is never written: the entity is ignored.
    const bad = link(RDF, "label", `${EX}x> } DROP ALL {<`, "bad", 1, null);
    expect(sparql(intent("Who is bad?", { entities: [mention("Who is bad?", "bad", [bad])] })).queries).toEqual([]);
  });

  it("follows the critic: next predicate, no predicate, relaxed class, next page, name look-up", () => {
    expect(sparql(ceo, { type: "wrong_relation", target: null, detail: "" }).texts[0]).not.toContain("ceoOf");
    expect(sparql(ceo, { type: "missing_relation", target: null, detail: "" }).texts[0]).not.toContain("VALUES ?p");
    expect(sparql(ceo, { type: "next_batch", target: null, detail: "" }).texts[0]).toMatch(/LIMIT 100 OFFSET 100$/);
    const unlinked = intent("Who founded Fjelltex?", { entities: [mention("Who founded Fjelltex?", "Fjelltex", [])] });
    expect(sparql(unlinked).queries).toEqual([]);
    expect(sparql(unlinked, { type: "missing_entity", target: "Fjelltex", detail: "" }).texts[0]).toContain(
      `FILTER(LCASE(STR(?l)) = "fjelltex")`,
    );
  });
});
