import { describe, expect, it } from "vitest";
import { QueryRejectedError, QuerySyntaxError } from "@/lib/backends/errors";
import { checkSparqlSafety } from "@/lib/backends/sparql";

const PREFIX = "PREFIX shop: <http://example.org/shop/> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n";

/** Each attempt must be refused; `reason` is what the person reading the error should learn. */
const ATTACKS: { name: string; query: string; error: typeof QueryRejectedError | typeof QuerySyntaxError; reason: RegExp }[] = [
  {
    name: "INSERT DATA",
    query: `${PREFIX}INSERT DATA { shop:x rdfs:label "pwned" }`,
    error: QueryRejectedError,
    reason: /updates are not allowed \(found INSERT DATA\)/,
  },
  { name: "DELETE DATA", query: `${PREFIX}DELETE DATA { shop:x rdfs:label "x" }`, error: QueryRejectedError, reason: /found DELETE DATA/ },
  { name: "DELETE WHERE", query: "DELETE WHERE { ?s ?p ?o }", error: QueryRejectedError, reason: /found DELETE WHERE/ },
  {
    name: "DELETE/INSERT … WHERE",
    query: `${PREFIX}DELETE { ?s rdfs:label ?l } INSERT { ?s rdfs:label "x" } WHERE { ?s rdfs:label ?l }`,
    error: QueryRejectedError,
    reason: /found DELETE\/INSERT … WHERE/,
  },
  {
    name: "WITH … DELETE … WHERE",
    query: "WITH <http://g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
    error: QueryRejectedError,
    reason: /updates are not allowed/,
  },
  { name: "LOAD", query: "LOAD <http://evil.example/data.ttl>", error: QueryRejectedError, reason: /found LOAD/ },
  {
    name: "LOAD INTO GRAPH",
    query: "LOAD SILENT <http://evil.example/x.ttl> INTO GRAPH <http://g>",
    error: QueryRejectedError,
    reason: /found LOAD/,
  },
  { name: "DROP ALL", query: "DROP ALL", error: QueryRejectedError, reason: /found DROP/ },
  { name: "DROP GRAPH", query: "DROP SILENT GRAPH <http://example.org/shop/graph>", error: QueryRejectedError, reason: /found DROP/ },
  { name: "CLEAR DEFAULT", query: "CLEAR DEFAULT", error: QueryRejectedError, reason: /found CLEAR/ },
  { name: "CREATE GRAPH", query: "CREATE GRAPH <http://example.org/new>", error: QueryRejectedError, reason: /found CREATE/ },
  { name: "COPY", query: "COPY DEFAULT TO <http://example.org/copy>", error: QueryRejectedError, reason: /found COPY/ },
  { name: "MOVE", query: "MOVE <http://a> TO <http://b>", error: QueryRejectedError, reason: /found MOVE/ },
  { name: "ADD", query: "ADD <http://a> TO <http://b>", error: QueryRejectedError, reason: /found ADD/ },
  {
    name: "two updates",
    query: "CLEAR ALL ; INSERT DATA { <http://a> <http://b> <http://c> }",
    error: QueryRejectedError,
    reason: /found CLEAR, INSERT DATA/,
  },
  { name: "update after a comment", query: "# SELECT * WHERE { ?s ?p ?o }\nDROP ALL", error: QueryRejectedError, reason: /found DROP/ },
  {
    name: "a query followed by ; INSERT",
    query: "SELECT * WHERE { ?s ?p ?o } ; INSERT DATA { <http://a> <http://b> <http://c> }",
    error: QueryRejectedError,
    reason: /second operation after ";"/,
  },
  {
    name: "SERVICE (federation)",
    query: "SELECT * WHERE { SERVICE <http://attacker.example/sparql> { ?s ?p ?o } }",
    error: QueryRejectedError,
    reason: /SERVICE clauses .* not allowed \(found SERVICE <http:\/\/attacker.example\/sparql>\)/,
  },
  {
    name: "SERVICE hidden in OPTIONAL inside a sub-query",
    query: "SELECT ?s WHERE { { SELECT ?s WHERE { ?s ?p ?o OPTIONAL { SERVICE SILENT <http://x.example/sparql> { ?s ?q ?z } } } } }",
    error: QueryRejectedError,
    reason: /SERVICE/,
  },
  {
    name: "SERVICE in FILTER EXISTS",
    query: "ASK { ?s ?p ?o FILTER EXISTS { SERVICE <http://x.example/s> { ?s ?p ?o } } }",
    error: QueryRejectedError,
    reason: /SERVICE/,
  },
  {
    name: "SERVICE on a variable",
    query: "SELECT * WHERE { ?e <http://x/ep> ?url SERVICE ?url { ?s ?p ?o } }",
    error: QueryRejectedError,
    reason: /SERVICE/,
  },
  { name: "garbage", query: "hello, please drop everything", error: QuerySyntaxError, reason: /could not be parsed/ },
  { name: "empty", query: "   \n ", error: QuerySyntaxError, reason: /empty/ },
  { name: "unknown prefix", query: "SELECT * WHERE { ?s nope:p ?o }", error: QuerySyntaxError, reason: /Unknown prefix: nope/ },
  {
    name: "Virtuoso DEFINE pragma (sponger)",
    query: 'DEFINE get:soft "replace" SELECT * FROM <http://evil.example/> WHERE { ?s ?p ?o }',
    error: QuerySyntaxError,
    reason: /could not be parsed/,
  },
];

describe("checkSparqlSafety: the SPARQL attack corpus", () => {
  it.each(ATTACKS)("refuses $name", ({ query, error, reason }) => {
    let thrown: unknown;
    try {
      checkSparqlSafety(query, { maxRows: 100 });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(error);
    expect((thrown as Error).message).toMatch(reason);
    expect((thrown as QueryRejectedError).query).toBe(query);
  });
});

describe("checkSparqlSafety: legitimate queries", () => {
  const LEGIT: { name: string; query: string; form: string }[] = [
    {
      name: "SELECT with OPTIONAL, FILTER, GROUP BY, ORDER BY",
      query: `${PREFIX}SELECT ?org (COUNT(?p) AS ?n) (AVG(?price) AS ?avg) WHERE {
        ?p a shop:Product ; shop:madeBy ?org ; shop:price ?price .
        OPTIONAL { ?p shop:launched ?d }
        FILTER(?price > 10 && !BOUND(?d))
      } GROUP BY ?org HAVING (COUNT(?p) > 1) ORDER BY DESC(?n) ?org`,
      form: "SELECT",
    },
    { name: "ASK", query: `${PREFIX}ASK { ?p shop:price ?x FILTER(?x > 100) }`, form: "ASK" },
    { name: "CONSTRUCT", query: `${PREFIX}CONSTRUCT { ?p rdfs:label ?l } WHERE { ?p a shop:Product ; rdfs:label ?l }`, form: "CONSTRUCT" },
    { name: "DESCRIBE", query: "DESCRIBE <http://example.org/shop/item/anvil>", form: "DESCRIBE" },
    {
      name: "property paths, VALUES, UNION, MINUS, sub-query",
      query: `${PREFIX}SELECT ?x WHERE { { SELECT ?x WHERE { ?x shop:madeBy/shop:basedIn* ?c } } UNION { VALUES ?x { shop:a } } MINUS { ?x rdfs:label "x" } }`,
      form: "SELECT",
    },
    {
      name: "an IRI that contains DROP and INSERT",
      query: "SELECT * WHERE { <http://example.org/DROP/INSERT> ?p ?o } # DELETE WHERE",
      form: "SELECT",
    },
    {
      name: "Wikidata's label service (answered by the endpoint itself)",
      query:
        'PREFIX wd: <http://www.wikidata.org/entity/> PREFIX wdt: <http://www.wikidata.org/prop/direct/> PREFIX wikibase: <http://wikiba.se/ontology#> PREFIX bd: <http://www.bigdata.com/rdf#> SELECT ?c ?cLabel WHERE { ?c wdt:P31 wd:Q6256 SERVICE wikibase:label { bd:serviceParam wikibase:language "en" } }',
      form: "SELECT",
    },
  ];
  it.each(LEGIT)("accepts $name", ({ query, form }) => {
    const checked = checkSparqlSafety(query);
    expect(checked.form).toBe(form);
    // The regenerated text is itself a safe query of the same form.
    expect(checkSparqlSafety(checked.normalized).form).toBe(form);
  });
});

describe("checkSparqlSafety: LIMIT rewriting", () => {
  it("adds LIMIT maxRows+1 to a query without one", () => {
    const c = checkSparqlSafety("SELECT * WHERE { ?s ?p ?o }", { maxRows: 1000 });
    expect(c.limit).toBe(1001);
    expect(c.normalized).toMatch(/LIMIT 1001\s*$/);
  });

  it("keeps a smaller LIMIT and lowers a larger one", () => {
    expect(checkSparqlSafety("SELECT * WHERE { ?s ?p ?o } LIMIT 5", { maxRows: 1000 }).normalized).toMatch(/LIMIT 5\s*$/);
    const lowered = checkSparqlSafety("SELECT * WHERE { ?s ?p ?o } ORDER BY ?s OFFSET 20 LIMIT 5000000", { maxRows: 100 });
    expect(lowered.limit).toBe(101);
    expect(lowered.normalized).toMatch(/ORDER BY \(?\?s\)?\s+OFFSET 20\s+LIMIT 101/);
    expect(lowered.normalized).not.toContain("5000000");
  });

  it("caps CONSTRUCT and DESCRIBE but leaves ASK alone", () => {
    expect(checkSparqlSafety("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", { maxRows: 10 }).normalized).toMatch(/LIMIT 11\s*$/);
    expect(checkSparqlSafety("DESCRIBE ?s WHERE { ?s ?p ?o }", { maxRows: 10 }).limit).toBe(11);
    const ask = checkSparqlSafety("ASK { ?s ?p ?o }", { maxRows: 10 });
    expect(ask.limit).toBeUndefined();
    expect(ask.normalized).not.toMatch(/LIMIT/);
  });

  it("caps only the outer query: a sub-query keeps its own LIMIT", () => {
    const c = checkSparqlSafety("SELECT ?s WHERE { { SELECT ?s WHERE { ?s ?p ?o } LIMIT 50000 } }", { maxRows: 10 });
    expect(c.normalized).toContain("LIMIT 50000");
    expect(c.normalized).toMatch(/LIMIT 11\s*$/);
  });

  it("leaves the LIMIT as written when no cap is asked for", () => {
    expect(checkSparqlSafety("SELECT * WHERE { ?s ?p ?o }").limit).toBeUndefined();
  });
});
