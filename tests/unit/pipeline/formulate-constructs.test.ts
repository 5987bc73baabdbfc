import { describe, expect, it } from "vitest";
import { checkSqlSafety } from "@/lib/backends/sql";
import { checkSparqlSafety } from "@/lib/backends/sparql";
import type { KbStructure } from "@/lib/backends/types";
import { formulateCypher, formulateSparql, formulateSql, noAdjustments } from "@/lib/pipeline/stages/formulate/classical";
import type { FormulatedQuery, Intent } from "@/lib/pipeline/contracts";
import { candidate, intent, link, mention, MOVIES } from "./formulate-fixtures";

/**
 * The question plan's constructs as each formulator writes them: exact projection, negation, OR,
 * boundaries, HAVING, INTERSECT / EXCEPT, GROUP BY, ORDER BY / LIMIT with ties, in SQL; the same plan
 * in SPARQL (over an RDF graph of the same tables) and Cypher. Intents are written by hand; the
 * constructs are read from the question (understand/constructs.ts).
 */

const col = (name: string, type: string, examples: (string | number)[] = []) => ({ name, type, examples });

/** Spider's concert_singer, in small. */
const CONCERTS: Extract<KbStructure, { kind: "sql" }> = {
  kind: "sql",
  dialect: "sqlite",
  tables: [
    {
      name: "stadium",
      columns: [
        col("Stadium_ID", "INT", [1]),
        col("Location", "TEXT", ["Raith Rovers"]),
        col("Name", "TEXT", ["Stark's Park"]),
        col("Capacity", "INT", [10104]),
        col("Average", "INT", [864]),
      ],
      primaryKey: ["Stadium_ID"],
      foreignKeys: [],
      rows: 9,
    },
    {
      name: "singer",
      columns: [
        col("Singer_ID", "INT", [1]),
        col("Name", "TEXT", ["Joe Sharp"]),
        col("Country", "TEXT", ["Netherlands", "France"]),
        col("Age", "INT", [52]),
      ],
      primaryKey: ["Singer_ID"],
      foreignKeys: [],
      rows: 6,
    },
    {
      name: "concert",
      columns: [
        col("concert_ID", "INT", [1]),
        col("concert_Name", "TEXT", ["Auditions"]),
        col("Theme", "TEXT", ["Free choice"]),
        col("Stadium_ID", "TEXT", ["1"]),
        col("Year", "TEXT", ["2014", "2015"]),
      ],
      primaryKey: ["concert_ID"],
      foreignKeys: [{ columns: ["Stadium_ID"], refTable: "stadium", refColumns: ["Stadium_ID"] }],
      rows: 6,
    },
    {
      name: "singer_in_concert",
      columns: [col("concert_ID", "INT", [1]), col("Singer_ID", "TEXT", ["2"])],
      primaryKey: ["concert_ID", "Singer_ID"],
      foreignKeys: [
        { columns: ["concert_ID"], refTable: "concert", refColumns: ["concert_ID"] },
        { columns: ["Singer_ID"], refTable: "singer", refColumns: ["Singer_ID"] },
      ],
      rows: 10,
    },
  ],
};

const KB = "kb-concerts";
const value = (ref: string, label: string) => link(KB, "value", ref, label, 1, ref.split(".")[0]);

function answerOf(queries: FormulatedQuery[]): FormulatedQuery {
  const a = queries.find((q) => q.role === "answer");
  expect(a, "an answer query was formulated").toBeDefined();
  return a!;
}

async function sql(i: Intent): Promise<string> {
  const { queries } = await formulateSql(i, candidate(KB, "SQL"), CONCERTS, noAdjustments(), 3, 0);
  const q = answerOf(queries);
  await expect(checkSqlSafety(q.query.text, "sqlite")).resolves.toBeTruthy();
  return q.query.text.replace(/\s+/g, " ");
}

describe("SQL answer queries: exactly what is asked, with the question's logic", () => {
  it("projects only the asked attributes, in question order, never keys or constants", async () => {
    const q = "What are the names and ages of singers from France?";
    expect(await sql(intent(q, { entities: [mention(q, "France", [value("singer.Country=France", "France")])] }))).toBe(
      `SELECT "Name", "Age" FROM "singer" WHERE "Country" = 'France'`,
    );
    const n = "How many singers are from France?";
    expect(await sql(intent(n, { aggregate: "count", entities: [mention(n, "France", [value("singer.Country=France", "France")])] }))).toBe(
      `SELECT COUNT(*) AS "number of singer" FROM "singer" WHERE "Country" = 'France'`,
    );
  });

  it("negation: a value after 'not' is <>; a negated condition through a related table is an anti-join", async () => {
    const q = "What are the names of singers who are not from France?";
    expect(await sql(intent(q, { entities: [mention(q, "France", [value("singer.Country=France", "France")])] }))).toContain(
      `WHERE "Country" <> 'France'`,
    );
    const s = "What are the names of all stadiums that did not have a concert in 2014?";
    const text = await sql(
      intent(s, { time: [{ text: "in 2014", kind: "absolute", start: "2014-01-01", end: "2015-01-01", comparator: "in", ordinal: null }] }),
    );
    expect(text).toMatch(
      /^SELECT "Name" FROM "stadium" WHERE "Stadium_ID" NOT IN \(SELECT DISTINCT "stadium"\."Stadium_ID" FROM "stadium" JOIN "concert" .* WHERE "concert"\."Year" = 2014\)$/,
    );
    expect(await sql(intent("Show the stadium names without any concert."))).toContain(
      `WHERE "Stadium_ID" NOT IN (SELECT "Stadium_ID" FROM "concert" WHERE "Stadium_ID" IS NOT NULL)`,
    );
  });

  it("OR: values of one column become IN, years of one column an OR of periods", async () => {
    const q = "How many singers are from France or Netherlands?";
    const i = intent(q, {
      aggregate: "count",
      entities: [
        mention(q, "France", [value("singer.Country=France", "France")]),
        mention(q, "Netherlands", [value("singer.Country=Netherlands", "Netherlands")]),
      ],
    });
    expect(await sql(i)).toContain(`WHERE "Country" IN ('France', 'Netherlands')`);
    const y = "How many concerts are there in year 2014 or 2015?";
    const years = [2014, 2015].map((v) => ({
      text: String(v),
      kind: "absolute" as const,
      start: `${v}-01-01`,
      end: `${v + 1}-01-01`,
      comparator: null,
      ordinal: null,
    }));
    expect(await sql(intent(y, { aggregate: "count", time: years }))).toContain(`WHERE (("Year" = 2014) OR ("Year" = 2015))`);
  });

  it("boundaries: after 2013 → >= 2014 on a year column, above 20 → > 20, at least 30 → >= 30", async () => {
    const a = "How many concerts were held after 2013?";
    expect(
      await sql(
        intent(a, {
          aggregate: "count",
          time: [{ text: "after 2013", kind: "absolute", start: "2014-01-01", end: null, comparator: "after", ordinal: null }],
        }),
      ),
    ).toContain(`WHERE "Year" >= 2014`);
    expect(await sql(intent("What are the names of singers above age 20?"))).toContain(`WHERE "Age" > 20`);
    expect(await sql(intent("What are the names of singers with an age of at least 30?"))).toContain(`WHERE "Age" >= 30`);
  });

  it("amounts written with a currency sign or thousands separators compare as numbers ('over $25', 'below €1,500.50')", async () => {
    expect(await sql(intent("What are the names of stadiums with a capacity over $25?"))).toContain(`WHERE "Capacity" > 25`);
    expect(await sql(intent("What are the names of stadiums with a capacity below €1,500.50?"))).toContain(`WHERE "Capacity" < 1500.5`);
    expect(await sql(intent("What are the names of stadiums with a capacity between $1,000 and $2,000?"))).toContain(
      `"Capacity" BETWEEN 1000 AND 2000`,
    );
  });

  it("'starting with' / 'ending in' before a quoted phrase anchor it to the start or end of the text; otherwise it is found anywhere", async () => {
    expect(await sql(intent("What are the names of singers whose country starts with 'Fr'?"))).toMatch(
      /WHERE LOWER\("Country"\) LIKE 'fr%' ESCAPE '!'$/,
    );
    expect(await sql(intent("What are the names of singers whose country is ending in 'ands'?"))).toMatch(
      /WHERE LOWER\("Country"\) LIKE '%ands' ESCAPE '!'$/,
    );
    expect(await sql(intent("What are the names of singers whose country mentions 'and'?"))).toMatch(
      /WHERE LOWER\("Country"\) LIKE '%and%' ESCAPE '!'$/,
    );
  });

  it("'the top 3 … with X above N' ranks by X, highest first; 'the first 3 …' stays a plain list", async () => {
    expect(await sql(intent("Show the names of the top 3 stadiums with a capacity above 5000."))).toBe(
      `SELECT "Name" FROM "stadium" WHERE "Capacity" > 5000 AND "Capacity" IS NOT NULL ORDER BY "Capacity" DESC LIMIT 3`,
    );
    expect(await sql(intent("Show the names of the first 3 stadiums with a capacity above 5000."))).toBe(
      `SELECT "Name" FROM "stadium" WHERE "Capacity" > 5000 LIMIT 3`,
    );
  });

  it("a quoted number a comparison reads is its value, not text to look up", async () => {
    expect(await sql(intent("What are the names of stadiums with '10104' capacity?"))).toBe(
      `SELECT "Name" FROM "stadium" WHERE "Capacity" = 10104`,
    );
  });

  it("'an age of 20' is an equality on the column named before 'of', but not a bound ('of 20 or more')", async () => {
    expect(await sql(intent("What are the names of singers with an age of 20?"))).toMatch(/WHERE "Age" = 20$/);
    expect(await sql(intent("What are the names of singers with an age of 20 or more?"))).not.toContain(`"Age" = 20`);
  });

  it("a property the answers lack is IS NULL; a lacked thing that names a table stays an anti-join", async () => {
    expect(await sql(intent("Which stadiums do not have a capacity?"))).toMatch(/WHERE "Capacity" IS NULL$/);
    expect(await sql(intent("Show the names of singers with no country listed."))).toMatch(/WHERE "Country" IS NULL$/);
    // A particular value negated is not a property lacked.
    expect(await sql(intent("What are the names of singers that do not have the country 'France'?"))).not.toContain("IS NULL");
    const anti = await sql(intent("Show the stadium names without any concert."));
    expect(anti).not.toContain("IS NULL");
    expect(anti).toContain("NOT IN");
  });

  it("HAVING: a bound on how many rows a group has", async () => {
    expect(await sql(intent("What are the countries that have at least two singers?"))).toBe(
      `SELECT "Country" FROM "singer" GROUP BY "Country" HAVING COUNT(*) >= 2`,
    );
    const text = await sql(intent("What are the names of stadiums with more than one concert?"));
    expect(text).toContain(`GROUP BY "stadium"."Stadium_ID", "stadium"."Name"`);
    expect(text).toMatch(/HAVING COUNT\(DISTINCT "concert"\."concert_ID"\) > 1$/);
    expect(text).toMatch(/^SELECT "stadium"\."Name" FROM/);
  });

  it("GROUP BY: 'for each' / 'per' with the aggregate, the key shown beside it", async () => {
    expect(await sql(intent("How many singers are from each country?", { aggregate: "count" }))).toBe(
      `SELECT "Country", COUNT(*) AS "number of singer" FROM "singer" GROUP BY "Country"`,
    );
    expect(await sql(intent("What is the average age of singers per country?", { aggregate: "avg" }))).toBe(
      `SELECT "Country", AVG("Age") AS "average age" FROM "singer" GROUP BY "Country"`,
    );
  });

  it("INTERSECT for 'both … and' on one column, EXCEPT for 'but not'", async () => {
    const y = "Show the names of stadiums which had concerts in both 2014 and 2015.";
    const years = [2014, 2015].map((v) => ({
      text: String(v),
      kind: "absolute" as const,
      start: `${v}-01-01`,
      end: `${v + 1}-01-01`,
      comparator: null,
      ordinal: null,
    }));
    const text = await sql(intent(y, { time: years }));
    expect(text).toMatch(/WHERE "concert"\."Year" = 2014 INTERSECT SELECT "stadium"\."Name" FROM .* WHERE "concert"\."Year" = 2015$/);
    const e = "Which countries have singers older than 40 but not younger than 30?";
    const except = await sql(intent(e));
    expect(except).toContain(" EXCEPT ");
    expect(except).toMatch(/^SELECT "Country" FROM "singer" WHERE "Age" > 40 EXCEPT SELECT "Country" FROM "singer" WHERE "Age" < 30$/);
  });

  it("ORDER BY / LIMIT for a superlative, and every tied row when the question asks for all of them", async () => {
    const top = "What is the name of the stadium with the highest capacity?";
    expect(await sql(intent(top, { superlative: { direction: "max", attribute: "capacity", limit: 1 } }))).toBe(
      `SELECT "Name" FROM "stadium" WHERE "Capacity" IS NOT NULL ORDER BY "Capacity" DESC LIMIT 1`,
    );
    const ties = "List all the stadiums with the highest capacity.";
    expect(await sql(intent(ties, { superlative: { direction: "max", attribute: "capacity", limit: 1 } }))).toBe(
      `SELECT "Name" FROM "stadium" WHERE "Capacity" = (SELECT MAX("Capacity") AS "maximum capacity" FROM "stadium")`,
    );
  });

  it("refuses honestly when an attribute fits two tables alike and nothing says which", async () => {
    const twin: Extract<KbStructure, { kind: "sql" }> = {
      kind: "sql",
      dialect: "sqlite",
      tables: [
        { name: "stadium", columns: [col("id", "INT", [1]), col("capacity", "INT", [100])], primaryKey: ["id"], foreignKeys: [], rows: 3 },
        {
          name: "concert",
          columns: [col("id", "INT", [1]), col("stadium_id", "INT", [1]), col("capacity", "INT", [50])],
          primaryKey: ["id"],
          foreignKeys: [{ columns: ["stadium_id"], refTable: "stadium", refColumns: ["id"] }],
          rows: 3,
        },
      ],
    };
    const { queries } = await formulateSql(intent("What is the capacity?"), candidate(KB, "SQL"), twin, noAdjustments(), 3, 0);
    expect(answerOf(queries).fit?.unresolved).toEqual([
      "I could not tell which column 'capacity' refers to: stadium.capacity or concert.capacity. Name the stadium or concert you mean.",
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

const BASE = "http://mosaic.local/spider/concert_singer/";
const XSD = "http://www.w3.org/2001/XMLSchema#";
/** The same database as a W3C Direct Mapping graph would describe it. */
const CONCERTS_RDF: Extract<KbStructure, { kind: "rdf" }> = {
  kind: "rdf",
  prefixes: { cs: BASE },
  classes: [
    { iri: `${BASE}stadium`, label: "stadium", instances: 9 },
    { iri: `${BASE}concert`, label: "concert", instances: 6 },
    { iri: `${BASE}singer`, label: "singer", instances: 6 },
  ],
  predicates: [
    { iri: `${BASE}stadium#Name`, label: "Name", count: 9, domains: [`${BASE}stadium`], ranges: [`${XSD}string`], literal: true },
    { iri: `${BASE}stadium#Capacity`, label: "Capacity", count: 9, domains: [`${BASE}stadium`], ranges: [`${XSD}integer`], literal: true },
    { iri: `${BASE}concert#Year`, label: "Year", count: 6, domains: [`${BASE}concert`], ranges: [`${XSD}string`], literal: true },
    {
      iri: `${BASE}concert#ref-Stadium_ID`,
      label: "Stadium_ID (stadium)",
      count: 6,
      domains: [`${BASE}concert`],
      ranges: [`${BASE}stadium`],
      literal: false,
    },
    { iri: `${BASE}singer#Name`, label: "Name", count: 6, domains: [`${BASE}singer`], ranges: [`${XSD}string`], literal: true },
    { iri: `${BASE}singer#Country`, label: "Country", count: 6, domains: [`${BASE}singer`], ranges: [`${XSD}string`], literal: true },
  ],
  labelPredicates: [],
};
const RDF = "kb-concerts-rdf";

function sparql(i: Intent): string {
  const { queries } = formulateSparql(i, candidate(RDF, "SPARQL"), CONCERTS_RDF, noAdjustments(), 3, 0);
  const q = answerOf(queries);
  expect(checkSparqlSafety(q.query.text).form).toBe("SELECT");
  return q.query.text.replace(/\s+/g, " ");
}

describe("SPARQL answer queries: the same plan over the classes as tables", () => {
  it("counts with a value filter, the value compared as text", () => {
    const q = "How many singers are from France?";
    const text = sparql(
      intent(q, {
        aggregate: "count",
        entities: [mention(q, "France", [link(RDF, "value", `<${BASE}singer#Country> "France"`, "France", 1, `${BASE}singer`)])],
      }),
    );
    expect(text).toContain("SELECT (COUNT(*) AS ?number_of_singer) WHERE");
    expect(text).toContain(`FILTER(STR(?singer_Country) = "France")`);
  });

  it("joins along the key predicate, groups and orders by the count, with numbers kept as text cast", () => {
    const q = "What is the name of the stadium with the most concerts after 2013?";
    const text = sparql(
      intent(q, {
        superlative: { direction: "max", attribute: "concerts", limit: 1 },
        time: [{ text: "after 2013", kind: "absolute", start: "2014-01-01", end: null, comparator: "after", ordinal: null }],
      }),
    );
    expect(text).toContain(
      "?concert cs:concert#ref-Stadium_ID ?stadium .".replace(
        "cs:concert#ref-Stadium_ID",
        "<http://mosaic.local/spider/concert_singer/concert#ref-Stadium_ID>",
      ),
    );
    expect(text).toContain(`FILTER(<${XSD}decimal>(?concert_Year) >= 2014)`);
    expect(text).toMatch(/GROUP BY \?stadium \?stadium_Name ORDER BY DESC\(COUNT\(DISTINCT \?concert\)\) LIMIT 1$/);
  });

  it("a quoted phrase anchored by 'beginning with' is STRSTARTS, by 'ending with' STRENDS", () => {
    expect(sparql(intent("Which singers have a country beginning with 'Fr'?"))).toContain(
      `FILTER(STRSTARTS(LCASE(STR(?singer_Country)), "fr"))`,
    );
    expect(sparql(intent("Which singers have a country ending with 'ance'?"))).toContain(
      `FILTER(STRENDS(LCASE(STR(?singer_Country)), "ance"))`,
    );
  });

  it("never binds a projected name the pattern already uses (SPARQL forbids (?x AS ?x)): an entity asked for is its own variable", () => {
    // Friendships have no name, label or named neighbour: the answer is the resource itself, whose variable is named after its class.
    const friends: Extract<KbStructure, { kind: "rdf" }> = {
      kind: "rdf",
      prefixes: { cs: BASE },
      classes: [{ iri: `${BASE}Friend`, label: "Friend", instances: 4 }],
      predicates: [
        { iri: `${BASE}Friend#since`, label: "since", count: 4, domains: [`${BASE}Friend`], ranges: [`${XSD}integer`], literal: true },
      ],
      labelPredicates: [],
    };
    const { queries } = formulateSparql(intent("List all friends."), candidate(RDF, "SPARQL"), friends, noAdjustments(), 3, 0);
    const text = answerOf(queries).query.text.replace(/\s+/g, " ");
    expect(text).toMatch(/SELECT (DISTINCT )?\?Friend WHERE/);
    expect(text).not.toMatch(/\((\?\w+) AS \1\)/);
  });

  it("a property the answers lack is an optional triple that finds no value", () => {
    const text = sparql(intent("Which singers do not have a country?"));
    expect(text).toMatch(/OPTIONAL \{ \?singer <[^>]+singer#Country> \?singer_Country \. \}/);
    expect(text).toContain("FILTER(!BOUND(?singer_Country))");
  });

  it("negation through a related class is FILTER NOT EXISTS; 'both … and' joins two sub-selects", () => {
    expect(sparql(intent("Show the stadium names without any concert."))).toMatch(
      /FILTER NOT EXISTS \{ \?none0 a cs:concert \. \?none0 <[^>]+ref-Stadium_ID> \?stadium \. \}/,
    );
    const years = [2014, 2015].map((v) => ({
      text: String(v),
      kind: "absolute" as const,
      start: `${v}-01-01`,
      end: `${v + 1}-01-01`,
      comparator: null,
      ordinal: null,
    }));
    const both = sparql(intent("Show the names of stadiums which had concerts in both 2014 and 2015.", { time: years }));
    expect(both).toMatch(/^PREFIX cs: <[^>]+> SELECT DISTINCT \?Name WHERE \{ \{ SELECT .* \} \{ SELECT .* \} \}$/);
  });
});

const GRAPH = "kb-movies";

function cypher(i: Intent): FormulatedQuery {
  const { queries } = formulateCypher(i, candidate(GRAPH, "CYPHER"), MOVIES, noAdjustments(), 3, 0);
  return answerOf(queries);
}

describe("Cypher answer queries: the same plan over labels and relationships", () => {
  it("a relationship table is the pattern (a)-[r:TYPE]->(b); the value a parameter; an entity asked by name the node itself", () => {
    const q = "Which movies did Tom Hanks act in?";
    const a = cypher(
      intent(q, { entities: [mention(q, "Tom Hanks", [link(GRAPH, "value", "Person.name=Tom Hanks", "Tom Hanks", 1, "Person")])] }),
    );
    expect(a.query.text).toBe(
      "MATCH (person:`Person`)-[acted_in:`ACTED_IN`]->(movie:`Movie`)\nWHERE person.`name` = $p0\nRETURN movie AS `Movie`",
    );
    expect(a.query.params).toEqual({ p0: "Tom Hanks" });
  });

  it("joins through the relationship the question's verb names, not the first one between the labels", () => {
    const q = "Which movies were produced by Joel Silver?";
    const a = cypher(
      intent(q, { entities: [mention(q, "Joel Silver", [link(GRAPH, "value", "Person.name=Joel Silver", "Joel Silver", 1, "Person")])] }),
    );
    expect(a.query.text).toMatch(/-\[produced:`PRODUCED`\]->/);
    expect(a.query.text).not.toMatch(/ACTED_IN|DIRECTED/);
  });

  it("groups with WITH, HAVING as its WHERE, ORDER BY / LIMIT on the aggregate", () => {
    const having = cypher(intent("Which people acted in more than 3 movies?"));
    expect(having.query.text).toMatch(/WITH person AS g0, person\.`name` AS g1, count\(DISTINCT movie\) AS a0\nWHERE a0 > \$p0\nRETURN/);
    expect(having.query.params).toEqual({ p0: 3 });
    const top = cypher(
      intent("Which 3 people acted in the most movies?", { superlative: { direction: "max", attribute: "movies", limit: 3 } }),
    );
    // A ranking is shown with its measure: each person's name beside the count that ranks them.
    expect(top.query.text).toMatch(
      /count\(DISTINCT movie\) AS a0\nRETURN g1 AS `name`, a0 AS `number of movie`\nORDER BY a0 DESC\nLIMIT 3$/,
    );
  });

  it("'the top 3 people by the number of movies': groups of the asked entity ranked by the count of the counted one", () => {
    const question = "List the top 3 people by the number of movies they directed.";
    // "movies" linked to its label draws the answer table to the counted rows.
    const q = cypher(
      intent(question, {
        aggregate: "count",
        superlative: { direction: "max", attribute: "movies", limit: 3 },
        entities: [mention(question, "movies", [link(GRAPH, "label", "Movie", "movies", 1, "Movie")])],
      }),
    );
    expect(q.query.text).toBe(
      "MATCH (person:`Person`)-[directed:`DIRECTED`]->(movie:`Movie`)\nWITH person AS g0, person.`name` AS g1, count(DISTINCT movie) AS a0\nRETURN g1 AS `name`, a0 AS `number of movie`\nORDER BY a0 DESC\nLIMIT 3",
    );
  });

  it("nodes ranked by a superlative's property are shown by their caption beside that property", () => {
    const oldest = cypher(intent("List the 3 oldest people.", { superlative: { direction: "min", attribute: "born", limit: 3 } }));
    expect(oldest.query.text).toBe(
      "MATCH (person:`Person`)\nWHERE person.`born` IS NOT NULL\nRETURN person.`name` AS `name`, person.`born` AS `born`\nORDER BY person.`born` ASC\nLIMIT 3",
    );
    // Without a ranking the list is the nodes themselves.
    const listed = cypher(
      intent("List the first 3 movies released before 1990.", {
        time: [{ text: "before 1990", kind: "absolute", start: null, end: "1990-01-01", comparator: "before", ordinal: null }],
      }),
    );
    expect(listed.query.text).toMatch(/RETURN movie AS `Movie`\nLIMIT 3$/);
  });

  it("a quoted phrase is matched as written (STARTS WITH after 'starting with'); a relaxed retry matches it in any case", () => {
    const starting = cypher(intent("Which movies have a title starting with 'The M'?"));
    expect(starting.query.text).toBe("MATCH (movie:`Movie`)\nWHERE toString(movie.`title`) STARTS WITH $p0\nRETURN movie AS `Movie`");
    expect(starting.query.params).toEqual({ p0: "The M" });
    const ending = cypher(intent("Which movies have a tagline ending with 'problem.'?"));
    expect(ending.query.text).toContain("WHERE toString(movie.`tagline`) ENDS WITH $p0");
    // "real" is not "Real": the quoted text keeps its case.
    const mentioning = cypher(intent("Which movies have a tagline mentioning 'real'?"));
    expect(mentioning.query.text).toContain("WHERE toString(movie.`tagline`) CONTAINS $p0");
    expect(mentioning.query.params).toEqual({ p0: "real" });
    const relaxed = formulateCypher(
      intent("Which movies have a tagline mentioning 'real'?"),
      candidate(GRAPH, "CYPHER"),
      MOVIES,
      { ...noAdjustments(), relax: true },
      3,
      0,
    );
    const loose = answerOf(relaxed.queries);
    expect(loose.query.text).toContain("WHERE toLower(toString(movie.`tagline`)) CONTAINS $p0");
  });

  it("a quoted property name is the attribute compared, not text to look up", () => {
    const q = cypher(
      intent("Which movies have a 'released' year after 2005?", {
        time: [{ text: "after 2005", kind: "absolute", start: "2006-01-01", end: null, comparator: "after", ordinal: null }],
      }),
    );
    expect(q.query.text).toBe("MATCH (movie:`Movie`)\nWHERE movie.`released` >= $p0\nRETURN movie AS `Movie`");
    expect(cypher(intent("Which people have a 'born' value below 1940?")).query.text).toBe(
      "MATCH (person:`Person`)\nWHERE person.`born` < $p0\nRETURN person AS `Person`",
    );
  });

  it("a quoted date the time cue reads is not also text to look up", () => {
    const q = cypher(
      intent("Which movies were released after '2005'?", {
        time: [{ text: "after '2005'", kind: "absolute", start: "2006-01-01", end: null, comparator: "after", ordinal: null }],
      }),
    );
    expect(q.query.text).toBe("MATCH (movie:`Movie`)\nWHERE movie.`released` >= $p0\nRETURN movie AS `Movie`");
  });

  it("a quoted place name after 'in' / 'to' is looked up in the city of the table named before it", () => {
    const shop: Extract<KbStructure, { kind: "graph" }> = {
      kind: "graph",
      labels: [
        {
          label: "Customer",
          count: 91,
          properties: [
            { name: "companyName", types: ["STRING"], examples: ["Alfreds Futterkiste"] },
            { name: "city", types: ["STRING"], examples: ["Berlin"] },
          ],
        },
        {
          label: "Order",
          count: 830,
          properties: [
            { name: "shipName", types: ["STRING"], examples: ["Vins et alcools Chevalier"] },
            { name: "shipCity", types: ["STRING"], examples: ["Reims"] },
          ],
        },
      ],
      relationships: [{ type: "PURCHASED", count: 830, properties: [] }],
      patterns: [{ from: "Customer", type: "PURCHASED", to: "Order", count: 830 }],
      captionKeys: { Customer: "companyName", Order: "shipName" },
    };
    const ask = (q: string) =>
      answerOf(formulateCypher(intent(q), candidate("kb-shop", "CYPHER"), shop, noAdjustments(), 3, 0).queries).query.text;
    expect(ask("Which customers are based in 'Berlin'?")).toBe(
      "MATCH (customer:`Customer`)\nWHERE toString(customer.`city`) CONTAINS $p0\nRETURN customer AS `Customer`",
    );
    expect(ask("What are the first 3 orders that were shipped to 'Reims'?")).toContain("WHERE toString(order.`shipCity`) CONTAINS $p0");
    // Without a place preposition the quote is text of the column named near it.
    expect(ask("List the first 3 orders with a ship name containing 'Vins'.")).toContain("WHERE toString(order.`shipName`) CONTAINS $p0");
  });

  it("the request verb 'name' asks for the listed nodes' names, not the nodes", () => {
    const named = cypher(
      intent("Name the first 3 movies released before 1990.", {
        time: [{ text: "before 1990", kind: "absolute", start: null, end: "1990-01-01", comparator: "before", ordinal: null }],
      }),
    );
    expect(named.query.text).toBe("MATCH (movie:`Movie`)\nWHERE movie.`released` < $p0\nRETURN movie.`title` AS `title`\nLIMIT 3");
    const people = cypher(
      intent("Name 3 people born before 1950.", {
        time: [{ text: "before 1950", kind: "absolute", start: null, end: "1950-01-01", comparator: "before", ordinal: null }],
      }),
    );
    expect(people.query.text).toMatch(/RETURN person\.`name` AS `name`\nLIMIT 3$/);
  });

  it("'who' lists people by name, and a relationship is never the answer: its start node is", () => {
    const q = "Who acted in movies released before 1990?";
    const who = cypher(
      intent(q, {
        wh: "who",
        time: [{ text: "before 1990", kind: "absolute", start: null, end: "1990-01-01", comparator: "before", ordinal: null }],
      }),
    );
    expect(who.query.text).toBe(
      "MATCH (person:`Person`)-[acted_in:`ACTED_IN`]->(movie:`Movie`)\nWHERE movie.`released` < $p0\nRETURN person.`name` AS `name`",
    );
  });

  it("'more than 5 times' counts the rows of the relationship the verb names, per answer node", () => {
    const q = cypher(intent("Which people have acted more than 5 times?"));
    expect(q.query.text).toMatch(
      /^MATCH \(person:`Person`\)-\[acted_in:`ACTED_IN`\]->\(movie:`Movie`\)\nWITH person AS g0, .*count\(DISTINCT acted_in\) AS a0\nWHERE a0 > \$p0\nRETURN /,
    );
    expect(q.query.params).toEqual({ p0: 5 });
  });

  it("a year is filtered on the date column named right before it, though its label is not named ('someone born in 1952')", () => {
    const q = cypher(
      intent("List the movies produced by someone born in 1952.", {
        time: [{ text: "in 1952", kind: "absolute", start: "1952-01-01", end: "1953-01-01", comparator: null, ordinal: null }],
      }),
    );
    expect(q.query.text).toBe(
      "MATCH (person:`Person`)-[produced:`PRODUCED`]->(movie:`Movie`)\nWHERE person.`born` >= $p0 AND person.`born` < $p1\nRETURN movie AS `Movie`",
    );
    expect(q.query.params).toEqual({ p0: 1952, p1: 1953 });
  });

  it("a property the nodes lack is IS NULL; a relationship they lack is NOT EXISTS, and the query still counts as representing the question", () => {
    expect(cypher(intent("Which movies have no tagline?")).query.text).toBe(
      "MATCH (movie:`Movie`)\nWHERE movie.`tagline` IS NULL\nRETURN movie AS `Movie`",
    );
    const never = cypher(intent("List all persons who have never directed a movie."));
    expect(never.query.text).toBe(
      "MATCH (person:`Person`)\nWHERE NOT EXISTS { MATCH (person)-[:`DIRECTED`]->(:`Movie`) }\nRETURN person AS `Person`",
    );
    // The excluded relationship and its other end are what "never directed a movie" says: nothing is left uncovered.
    expect(never.fit?.uncovered).toEqual([]);
  });

  it("'the top 5 actors by the number of movies they acted in': the ranked nodes are the other end of the relationship the verb names", () => {
    const q = "Who are the top 5 actors by the number of movies they acted in?";
    const a = cypher(intent(q, { wh: "who", aggregate: "count", superlative: { direction: "max", attribute: "movies", limit: 5 } }));
    expect(a.query.text).toBe(
      "MATCH (person:`Person`)-[acted_in:`ACTED_IN`]->(movie:`Movie`)\nWITH person AS g0, person.`name` AS g1, count(DISTINCT movie) AS a0\nRETURN g1 AS `name`, a0 AS `number of movie`\nORDER BY a0 DESC\nLIMIT 5",
    );
    // "producers" names the PRODUCED relationship: its groups are the people at its start, not each relationship.
    const p = "Who are the top 3 producers by the number of movies they produced?";
    const b = cypher(intent(p, { wh: "who", aggregate: "count", superlative: { direction: "max", attribute: "movies", limit: 3 } }));
    expect(b.query.text).toBe(
      "MATCH (person:`Person`)-[produced:`PRODUCED`]->(movie:`Movie`)\nWITH person AS g0, person.`name` AS g1, count(DISTINCT movie) AS a0\nRETURN g1 AS `name`, a0 AS `number of movie`\nORDER BY a0 DESC\nLIMIT 3",
    );
  });

  it("'who' asks for the doer of the verb: the start of the relationship named, though only the movies are named", () => {
    const most = cypher(
      intent("Who directed the most movies?", { wh: "who", superlative: { direction: "max", attribute: "movies", limit: 1 } }),
    );
    expect(most.query.text).toBe(
      "MATCH (person:`Person`)-[directed:`DIRECTED`]->(movie:`Movie`)\nWITH person AS g0, person.`name` AS g1, count(DISTINCT movie) AS a0\nRETURN g1 AS `name`, a0 AS `number of movie`\nORDER BY a0 DESC\nLIMIT 1",
    );
    // Groups kept by a count condition are answered by their names.
    expect(cypher(intent("Who has directed more than one movie?", { wh: "who" })).query.text).toMatch(
      /WHERE a0 > \$p0\nRETURN g1 AS `name`$/,
    );
    // The relationship the answers lack is not the way to them: the one they have is.
    expect(cypher(intent("Who has produced movies but never acted in any?", { wh: "who" })).query.text).toBe(
      "MATCH (person:`Person`)-[produced:`PRODUCED`]->(movie:`Movie`)\nWHERE NOT EXISTS { MATCH (person)-[:`ACTED_IN`]->(:`Movie`) }\nRETURN person.`name` AS `name`",
    );
  });

  it("boundaries and list limits: released before 1990 → < 1990, 'the first 3' → LIMIT 3", () => {
    const q = cypher(
      intent("List the first 3 movies released before 1990.", {
        time: [{ text: "before 1990", kind: "absolute", start: null, end: "1990-01-01", comparator: "before", ordinal: null }],
      }),
    );
    expect(q.query.text).toBe("MATCH (movie:`Movie`)\nWHERE movie.`released` < $p0\nRETURN movie AS `Movie`\nLIMIT 3");
    expect(q.query.params).toEqual({ p0: 1990 });
  });
});
