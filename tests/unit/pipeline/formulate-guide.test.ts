import { describe, expect, it } from "vitest";
import { checkSparqlSafety } from "@/lib/backends/sparql";
import { checkSqlSafety } from "@/lib/backends/sql";
import type { NativeQuery } from "@/lib/backends/types";
import { adaptGuide, type FormulateGuide, guideQueries } from "@/lib/pipeline/stages/formulate/classical";
import { candidate, EX, intent, link, mention, PRODUCTS_RDF, SHOP } from "./formulate-fixtures";

const SQL_KB = "kb-singers";
const sqlGuide = (question: string, text: string, score = 0.7): FormulateGuide => ({
  guideId: "g-sql",
  question,
  score,
  kbId: SQL_KB,
  query: { language: "sql", text },
});
const country = (value: string) => link(SQL_KB, "value", `singer.Country=${value}`, value, 1, "singer");

describe("extraction-guide adaptation", () => {
  const guide = sqlGuide("How many singers are from France?", `SELECT COUNT(*) FROM singer WHERE Country = 'France'`);

  it("substitutes the new question's linked value for the guide's entity", () => {
    const q = "How many singers are from the Netherlands?";
    const adapted = adaptGuide(
      guide,
      intent(q, { entities: [mention(q, "Netherlands", [country("Netherlands")])] }),
      candidate(SQL_KB, "SQL"),
    );
    expect(adapted?.query).toEqual({ language: "sql", text: `SELECT COUNT(*) FROM singer WHERE Country = 'Netherlands'` });
    expect(adapted?.explanation).toBe(`Adapted guide "How many singers are from France?": substituted "France" → "Netherlands"`);
  });

  it("pairs several values by the column each is compared with", () => {
    const g = sqlGuide(
      "Which singers from France are called Joe Sharp?",
      `SELECT * FROM singer WHERE Name = 'Joe Sharp' AND Country = 'France'`,
    );
    const q = "Which singers from the Netherlands are called Rose White?";
    const i = intent(q, {
      entities: [
        mention(q, "Netherlands", [country("Netherlands")]),
        mention(q, "Rose White", [link(SQL_KB, "value", "singer.Name=Rose White", "Rose White", 1, "singer")]),
      ],
    });
    expect(adaptGuide(g, i, candidate(SQL_KB, "SQL"))?.query.text).toBe(
      `SELECT * FROM singer WHERE Name = 'Rose White' AND Country = 'Netherlands'`,
    );
  });

  it("quotes a hostile substituted value so the query stays one safe statement", async () => {
    const hostile = "O'Brien'; DROP TABLE singer; --";
    const q = `How many singers are from ${hostile}?`;
    const adapted = adaptGuide(guide, intent(q, { entities: [mention(q, hostile, [country(hostile)])] }), candidate(SQL_KB, "SQL"));
    expect(adapted?.query.text).toBe(`SELECT COUNT(*) FROM singer WHERE Country = 'O''Brien''; DROP TABLE singer; --'`);
    expect((await checkSqlSafety(adapted!.query.text, "sqlite")).normalized).toBe(adapted!.query.text);
  });

  it("substitutes numbers the guide question mentions, not LIMIT counts", () => {
    const g = sqlGuide("Which concerts took place in 2014?", `SELECT concert_Name FROM concert WHERE Year = 2014 LIMIT 5`);
    const q = "Which concerts took place in 2015?";
    expect(adaptGuide(g, intent(q), candidate(SQL_KB, "SQL"))?.query.text).toBe(
      `SELECT concert_Name FROM concert WHERE Year = 2015 LIMIT 5`,
    );
  });

  it("substitutes resources of a SPARQL guide, written by prefix or in full, and leaves the schema alone", () => {
    const g: FormulateGuide = {
      guideId: "g-rdf",
      question: "Who is the chief executive of Aurora Outfitters GmbH?",
      score: 0.65,
      kbId: "kb-rdf",
      query: { language: "sparql", text: `PREFIX ex: <${EX}>\nSELECT ?ceo WHERE { ?ceo ex:ceoOf ex:aurora-de }` },
    };
    const q = "Who is the chief executive of Fjelltex Textiles?";
    const i = intent(q, {
      entities: [mention(q, "Fjelltex Textiles", [link("kb-rdf", "label", `${EX}fjelltex`, "Fjelltex Textiles", 1, `${EX}Organisation`)])],
    });
    const adapted = adaptGuide(g, i, candidate("kb-rdf", "SPARQL"), PRODUCTS_RDF);
    expect(adapted?.query.text).toBe(`PREFIX ex: <${EX}>\nSELECT ?ceo WHERE { ?ceo ex:ceoOf <${EX}fjelltex> }`);
    expect(checkSparqlSafety(adapted!.query.text).form).toBe("SELECT");
  });

  it("substitutes a Cypher guide's parameters and inline names", () => {
    const q = "Which movies did Keanu Reeves act in?";
    const i = intent(q, { entities: [mention(q, "Keanu Reeves", [link("kb-movies", "node", "4:x:7", "Keanu Reeves", 1, "Person")])] });
    const byParam: FormulateGuide = {
      guideId: "g-cy",
      question: "Which movies did Tom Hanks act in?",
      score: 0.6,
      kbId: "kb-movies",
      query: { language: "cypher", text: "MATCH (p:Person {name: $name})-[:ACTED_IN]->(m) RETURN m.title", params: { name: "Tom Hanks" } },
    };
    expect(adaptGuide(byParam, i, candidate("kb-movies", "CYPHER"))?.query).toEqual({ ...byParam.query, params: { name: "Keanu Reeves" } });
    const inline = {
      ...byParam,
      query: { language: "cypher", text: "MATCH (p:Person {name: 'Tom Hanks'})-[:ACTED_IN]->(m) RETURN m.title" } as NativeQuery,
    };
    expect(adaptGuide(inline, i, candidate("kb-movies", "CYPHER"))?.query.text).toBe(
      "MATCH (p:Person {name: 'Keanu Reeves'})-[:ACTED_IN]->(m) RETURN m.title",
    );
  });

  it("takes a Cypher guide's LIMIT as a slot when its question states the count", () => {
    const g: FormulateGuide = {
      guideId: "g-cy-top",
      question: "List the top 3 movies released after 2000",
      score: 0.8,
      kbId: "kb-movies",
      query: { language: "cypher", text: "MATCH (m:Movie) WHERE m.released > 2000 RETURN m.title ORDER BY m.released DESC LIMIT 3" },
    };
    const adapted = adaptGuide(g, intent("List the top 5 movies released after 1995"), candidate("kb-movies", "CYPHER"));
    expect(adapted?.query.text).toBe("MATCH (m:Movie) WHERE m.released > 1995 RETURN m.title ORDER BY m.released DESC LIMIT 5");
    expect(adapted?.matches).toBe(true);
  });

  it("adapts a search guide's words", () => {
    const g: FormulateGuide = {
      guideId: "g-s",
      question: "What is the daily allowance in Germany?",
      score: 0.6,
      kbId: "kb-docs",
      query: { language: "search", text: "daily allowance Germany" },
    };
    const q = "What is the daily allowance in Norway?";
    const adapted = adaptGuide(
      { ...g, query: { ...g.query, semantic: g.question } },
      intent(q, { entities: [mention(q, "Norway", [])] }),
      candidate("kb-docs", "DOCUMENTS"),
    );
    expect(adapted?.query.text).toBe("Norway daily allowance");
    // The vector half embeds this question, not the guide's.
    expect(adapted?.query.semantic).toBe(q);
  });

  it("uses a guide unchanged only when the questions are nearly identical", () => {
    const generic = sqlGuide("How many singers do we have?", "SELECT COUNT(*) FROM singer", 0.95);
    expect(adaptGuide(generic, intent("How many singers do we have ?"), candidate(SQL_KB, "SQL"))?.query.text).toBe(
      "SELECT COUNT(*) FROM singer",
    );
    expect(adaptGuide({ ...generic, score: 0.7 }, intent("How many singers do we have?"), candidate(SQL_KB, "SQL"))).toBeNull();
    // An entity that cannot be paired (no linked value) is never guessed.
    expect(adaptGuide(guide, intent("How many singers are from somewhere else?"), candidate(SQL_KB, "SQL"))).toBeNull();
  });

  it("refuses guides that are not close, of another template, another KB or another language", () => {
    const q = "How many singers are from the Netherlands?";
    const i = intent(q, { entities: [mention(q, "Netherlands", [country("Netherlands")])] });
    expect(adaptGuide({ ...guide, score: 0.3 }, i, candidate(SQL_KB, "SQL"))).toBeNull();
    const other = "Which stadium in the Netherlands has the largest capacity?";
    expect(
      adaptGuide(guide, intent(other, { entities: [mention(other, "Netherlands", [country("Netherlands")])] }), candidate(SQL_KB, "SQL")),
    ).toBeNull();
    expect(adaptGuide({ ...guide, kbId: "kb-other" }, i, candidate(SQL_KB, "SQL"))).toBeNull();
    expect(adaptGuide(guide, i, candidate(SQL_KB, "SPARQL"))).toBeNull();
  });

  it("drops a malformed guide with a note instead of failing", async () => {
    const q = "How many singers are from the Netherlands?";
    const i = intent(q, { entities: [mention(q, "Netherlands", [country("Netherlands")])] });
    const broken = sqlGuide("How many singers are from France?", "SELEC COUNT(*) FRM singer WHERE Country = 'France'");
    const writes = sqlGuide("How many singers are from France?", "DELETE FROM singer WHERE Country = 'France'");
    const { queries, notes } = await guideQueries([broken, writes, guide], i, candidate(SQL_KB, "SQL"), SHOP);
    expect(queries.map((x) => [x.strategy, x.guideId, x.query.text])).toEqual([
      ["guide", "g-sql", `SELECT COUNT(*) FROM singer WHERE Country = 'Netherlands'`],
    ]);
    expect(notes).toHaveLength(2);
    expect(notes.every((n) => n.includes("cannot run"))).toBe(true);
  });
});

describe("a matching guide is a template", () => {
  const PAY_KB = "kb-payroll";
  const payGuide = (question: string, text: string, score = 0.6): FormulateGuide => ({
    guideId: "g-pay",
    question,
    score,
    kbId: PAY_KB,
    query: { language: "sql", text },
  });
  const city = (value: string) => link(PAY_KB, "value", `staff.city=${value}`, value, 1, "staff");

  it("fills the LIMIT and a year compared as text from the new question's numbers, and matches it", () => {
    const g = payGuide(
      "Which 3 staff were paid most in 2021?",
      "SELECT full_name FROM staff WHERE strftime('%Y', paid_on) = '2021' ORDER BY pay DESC LIMIT 3",
    );
    const adapted = adaptGuide(g, intent("Which 5 staff were paid most in 2019?"), candidate(PAY_KB, "SQL"));
    expect(adapted?.query.text).toBe("SELECT full_name FROM staff WHERE strftime('%Y', paid_on) = '2019' ORDER BY pay DESC LIMIT 5");
    expect(adapted?.matches).toBe(true);
  });

  it("pairs each number with the number doing the same in the new question, whatever their order", () => {
    const g = payGuide("Who are the first 3 staff older than 40?", "SELECT full_name FROM staff WHERE age > 40 ORDER BY full_name LIMIT 3");
    const adapted = adaptGuide(g, intent("Who are the first 5 staff older than 30?"), candidate(PAY_KB, "SQL"));
    expect(adapted?.query.text).toBe("SELECT full_name FROM staff WHERE age > 30 ORDER BY full_name LIMIT 5");
    // The same numbers written the other way round in the question still land in their own slots.
    const reordered = adaptGuide(g, intent("Of the staff older than 30, who are the first 5?"), candidate(PAY_KB, "SQL"));
    expect(reordered?.query.text ?? "").not.toContain("LIMIT 30");
  });

  it("reads numbers written as words as numbers, on either side", () => {
    const g = payGuide("Which staff have at least two managers?", "SELECT full_name FROM staff WHERE managers >= 2", 0.8);
    const digits = adaptGuide(g, intent("Which staff have at least 3 managers?"), candidate(PAY_KB, "SQL"));
    expect(digits?.query.text).toBe("SELECT full_name FROM staff WHERE managers >= 3");
    expect(digits?.matches).toBe(true);
    const top = payGuide("Who are the 3 oldest staff?", "SELECT full_name FROM staff ORDER BY age DESC LIMIT 3", 0.8);
    expect(adaptGuide(top, intent("Who are the five oldest staff?"), candidate(PAY_KB, "SQL"))?.query.text).toBe(
      "SELECT full_name FROM staff ORDER BY age DESC LIMIT 5",
    );
    // A number word that the linker also found as a value of another source is still this question's number.
    const q = "Which staff have at least three managers?";
    const elsewhere = intent(q, { entities: [mention(q, "three", [link("kb-weather", "value", "storm.Name=Three", "Three")])] });
    expect(adaptGuide(g, elsewhere, candidate(PAY_KB, "SQL"))?.query.text).toBe("SELECT full_name FROM staff WHERE managers >= 3");
    // "one" as a pronoun is no number: the guide's query is not rewritten with 1.
    const pronoun = adaptGuide(g, intent("Which one of the staff have at least four managers?"), candidate(PAY_KB, "SQL"));
    expect(pronoun?.query.text).toBe("SELECT full_name FROM staff WHERE managers >= 4");
  });

  it("does not take a guide's period or comparison for another one: 'before 1960' is not 'in 1952'", () => {
    const before = payGuide("Which staff were hired before 1960?", "SELECT full_name FROM staff WHERE hired < 1960", 0.8);
    const adapted = adaptGuide(before, intent("Which staff were hired in 1952?"), candidate(PAY_KB, "SQL"));
    expect(adapted?.query.text ?? "").not.toContain("1952");
    expect(adapted?.matches ?? false).toBe(false);
    const older = payGuide("Which staff are older than 40?", "SELECT full_name FROM staff WHERE age > 40", 0.8);
    expect(adaptGuide(older, intent("Which staff are at most 40?"), candidate(PAY_KB, "SQL"))?.matches ?? false).toBe(false);
    // The same comparison with another value is the guide's template.
    const same = adaptGuide(older, intent("Which staff are older than 55?"), candidate(PAY_KB, "SQL"));
    expect(same?.query.text).toBe("SELECT full_name FROM staff WHERE age > 55");
    expect(same?.matches).toBe(true);
  });

  it("reads literals by the engine's rules: quotes inside identifiers and comments are not slots", () => {
    const g = payGuide("Who works in Oslo?", `SELECT "it's" FROM staff -- not 'Oslo' here\nWHERE city = 'Oslo'`);
    const q = "Who works in Bergen?";
    const adapted = adaptGuide(g, intent(q, { entities: [mention(q, "Bergen", [city("Bergen")])] }), candidate(PAY_KB, "SQL"));
    expect(adapted?.query.text).toBe(`SELECT "it's" FROM staff -- not 'Oslo' here\nWHERE city = 'Bergen'`);
    expect(adapted?.matches).toBe(true);
  });

  it("does not match a question that negates what the guide's question does not (or the reverse)", () => {
    const g = payGuide(
      "Which staff in Oslo have a manager?",
      "SELECT full_name FROM staff WHERE city = 'Oslo' AND manager_id IS NOT NULL",
      0.9,
    );
    const q = "Which staff in Oslo have no manager?";
    const adapted = adaptGuide(g, intent(q, { entities: [mention(q, "Oslo", [city("Oslo")])] }), candidate(PAY_KB, "SQL"));
    expect(adapted?.matches ?? false).toBe(false);
  });

  it("does not match when the new question names a value the adapted query leaves out", () => {
    const g = payGuide("How many staff are there?", "SELECT COUNT(*) FROM staff", 0.9);
    const q = "How many staff are there in Bergen?";
    const adapted = adaptGuide(g, intent(q, { entities: [mention(q, "Bergen", [city("Bergen")])] }), candidate(PAY_KB, "SQL"));
    expect(adapted?.matches ?? false).toBe(false);
  });

  it("a guide close in meaning but not in words offers its query without answering with it", () => {
    // The templates agree enough to adapt (Dice 0.75) but not to match by template alone (0.8).
    const g = payGuide("Which staff members work full time in Oslo?", "SELECT full_name FROM staff WHERE city = 'Oslo'", 0.92);
    const q = "Which staff members work in Bergen?";
    const i = intent(q, { entities: [mention(q, "Bergen", [city("Bergen")])] });
    const byMeaning = adaptGuide({ ...g, lexicalScore: 0.4 }, i, candidate(PAY_KB, "SQL"));
    expect(byMeaning?.query.text).toBe("SELECT full_name FROM staff WHERE city = 'Bergen'");
    expect(byMeaning?.matches).toBe(false);
    expect(adaptGuide({ ...g, lexicalScore: 0.9 }, i, candidate(PAY_KB, "SQL"))?.matches).toBe(true);
  });

  it("a matching guide's query is the answer query, with the values it uses", async () => {
    const g = payGuide("Who works in Oslo?", "SELECT full_name FROM staff WHERE city = 'Oslo'");
    const q = "Who works in Bergen?";
    const { queries } = await guideQueries(
      [g],
      intent(q, { entities: [mention(q, "Bergen", [city("Bergen")])] }),
      candidate(PAY_KB, "SQL"),
      null,
    );
    expect(queries[0]).toMatchObject({
      role: "answer",
      guideQuestion: "Who works in Oslo?",
      fit: { valuesUsed: ["Bergen"], valuesMissed: [], unresolved: [] },
    });
  });

  it("answers a paraphrase with the guide's query when the guide matcher reads them as one question", () => {
    // Few words in common: by words alone the guide is one more candidate at most.
    const count = payGuide("How many staff are there?", "SELECT COUNT(*) FROM staff", 0.6);
    const q = "What is the number of employees?";
    const counting = intent(q, { aggregate: "count" });
    expect(adaptGuide({ ...count, lexicalScore: 0.1 }, counting, candidate(PAY_KB, "SQL"))).toBeNull();
    const learned = adaptGuide({ ...count, lexicalScore: 0.1, sameQuestion: true }, counting, candidate(PAY_KB, "SQL"));
    expect(learned).toMatchObject({ query: { text: "SELECT COUNT(*) FROM staff" }, matches: true });
    expect(learned?.explanation).toContain("the guide matcher reads it as the same question");
    // A guide with slots is adapted even when the words of the two templates disagree.
    const g = payGuide("Who works in Oslo?", "SELECT full_name FROM staff WHERE city = 'Oslo'", 0.6);
    const p = "Give me the names of the employees based in Bergen.";
    const i = intent(p, { entities: [mention(p, "Bergen", [city("Bergen")])] });
    expect(adaptGuide({ ...g, lexicalScore: 0.2 }, i, candidate(PAY_KB, "SQL"))).toBeNull();
    const adapted = adaptGuide({ ...g, lexicalScore: 0.2, sameQuestion: true }, i, candidate(PAY_KB, "SQL"));
    expect(adapted).toMatchObject({ query: { text: "SELECT full_name FROM staff WHERE city = 'Bergen'" }, matches: true });
  });

  it("of two guides the matcher reads as the question, the higher reading answers, whatever their closeness", async () => {
    const count = { ...payGuide("How many staff are there?", "SELECT COUNT(*) FROM staff", 0.9), guideId: "g-count" };
    const heads = { ...payGuide("How many people work here?", "SELECT COUNT(DISTINCT full_name) FROM staff", 0.6), guideId: "g-heads" };
    const q = "What is the number of employees?";
    const counting = intent(q, { aggregate: "count" });
    const read = (logits: [number, number]) =>
      guideQueries(
        [
          { ...count, lexicalScore: 0.1, sameQuestion: true, matcherLogit: logits[0] },
          { ...heads, lexicalScore: 0.1, sameQuestion: true, matcherLogit: logits[1] },
        ],
        counting,
        candidate(PAY_KB, "SQL"),
        null,
      );
    expect((await read([3.6, 5.2])).queries.find((x) => x.role === "answer")?.guideId).toBe("g-heads");
    expect((await read([5.2, 3.6])).queries.find((x) => x.role === "answer")?.guideId).toBe("g-count");
    // A guide the matcher does not read as the question comes after one it does, however close in words or meaning.
    const { queries } = await guideQueries(
      [
        { ...count, lexicalScore: 0.1, sameQuestion: false, matcherLogit: 1 },
        { ...heads, lexicalScore: 0.1, sameQuestion: true, matcherLogit: 3.6 },
      ],
      counting,
      candidate(PAY_KB, "SQL"),
      null,
    );
    expect(queries[0]?.guideId).toBe("g-heads");
    // A guide nearly identical to the question comes before any the matcher reads as it: its own guide, asked again.
    const own = {
      ...payGuide(q, "SELECT COUNT(*) FROM staff", 1),
      guideId: "g-own",
      lexicalScore: 1,
      sameQuestion: false,
      matcherLogit: 2,
    };
    const first = await guideQueries(
      [{ ...heads, lexicalScore: 0.1, sameQuestion: true, matcherLogit: 5.2 }, own],
      counting,
      candidate(PAY_KB, "SQL"),
      null,
    );
    expect(first.queries.find((x) => x.role === "answer")?.guideId).toBe("g-own");
    // Of two near copies by content terms, the one closer in all its words (stopwords too) goes first.
    const most = "Which city has the most staff?";
    const each = { ...payGuide("What is the city of each staff?", "SELECT city FROM staff", 1), guideId: "g-each", lexicalScore: 1 };
    const itself = {
      ...payGuide(most, "SELECT city FROM staff GROUP BY city ORDER BY COUNT(*) DESC LIMIT 1", 1),
      guideId: "g-most",
      lexicalScore: 1,
    };
    const copies = await guideQueries([each, itself], intent(most), candidate(PAY_KB, "SQL"), null);
    expect(copies.queries.find((x) => x.role === "answer")?.guideId).toBe("g-most");
    // Function words count in a near copy: "the most" is not "each", though every content term agrees.
    expect(adaptGuide({ ...itself, guideId: "g-most" }, intent("What is the city of each staff?"), candidate(PAY_KB, "SQL"))).toBeNull();
    // Close in words only, not a near copy: the matcher's reading goes first.
    const near = {
      ...payGuide("How many staff are there in total?", "SELECT COUNT(*) FROM staff", 0.8),
      guideId: "g-near",
      lexicalScore: 0.8,
    };
    const second = await guideQueries(
      [near, { ...heads, lexicalScore: 0.1, sameQuestion: true, matcherLogit: 5.2 }],
      counting,
      candidate(PAY_KB, "SQL"),
      null,
    );
    expect(second.queries[0]?.guideId).toBe("g-heads");
  });

  it("the guide matcher's reading is not taken for a count when the question asks for a list, or the other way", () => {
    const perCityGuide = () => payGuide("How many staff are there in each city?", "SELECT city, COUNT(*) FROM staff GROUP BY city", 0.6);
    const count = payGuide("How many staff work in Oslo?", "SELECT COUNT(*) FROM staff WHERE city = 'Oslo'", 0.6);
    const q = "Which employees work in Bergen?";
    const i = intent(q, { entities: [mention(q, "Bergen", [city("Bergen")])] });
    expect(adaptGuide({ ...count, lexicalScore: 0.2, sameQuestion: true }, i, candidate(PAY_KB, "SQL"))?.matches ?? false).toBe(false);
    const list = payGuide("Who works in Oslo?", "SELECT full_name FROM staff WHERE city = 'Oslo'", 0.6);
    const c = "How many employees are based in Bergen?";
    const asksCount = intent(c, { aggregate: "count", entities: [mention(c, "Bergen", [city("Bergen")])] });
    expect(adaptGuide({ ...list, lexicalScore: 0.2, sameQuestion: true }, asksCount, candidate(PAY_KB, "SQL"))?.matches ?? false).toBe(
      false,
    );
    // Counts per group are left to the matcher, whether or not understand read a count in the question.
    const each = "List each office town with the size of its staff.";
    expect(adaptGuide({ ...perCityGuide(), lexicalScore: 0.2, sameQuestion: true }, intent(each), candidate(PAY_KB, "SQL"))?.matches).toBe(
      true,
    );
    // Counts per group are counts: the guide's grouped query answers a grouped question.
    const perCity = payGuide("How many staff are there in each city?", "SELECT city, COUNT(*) FROM staff GROUP BY city", 0.6);
    const g = "What is the number of employees per office town?";
    const grouped = intent(g, { aggregate: "count" });
    expect(adaptGuide({ ...perCity, lexicalScore: 0.2, sameQuestion: true }, grouped, candidate(PAY_KB, "SQL"))?.matches).toBe(true);
    // A count only in a subquery or in the ordering is not a counted answer.
    const busiest = payGuide(
      "Which city has the most staff?",
      "SELECT city FROM staff WHERE city IN (SELECT city FROM staff GROUP BY city HAVING COUNT(*) > 1) GROUP BY city ORDER BY COUNT(*) DESC LIMIT 1",
      0.6,
    );
    const b = "Where do most employees work?";
    expect(adaptGuide({ ...busiest, lexicalScore: 0.2, sameQuestion: true }, intent(b), candidate(PAY_KB, "SQL"))?.matches).toBe(true);
    expect(
      adaptGuide({ ...busiest, lexicalScore: 0.2, sameQuestion: true }, intent(b, { aggregate: "count" }), candidate(PAY_KB, "SQL"))
        ?.matches ?? false,
    ).toBe(false);
  });

  it("the guide matcher's reading does not override the checks on values and negation", () => {
    const count = payGuide("How many staff are there?", "SELECT COUNT(*) FROM staff", 0.6);
    // A value the guide's query leaves out: offered as written, not the answer.
    const q = "What is the number of employees in Bergen?";
    const named = adaptGuide(
      { ...count, sameQuestion: true },
      intent(q, { entities: [mention(q, "Bergen", [city("Bergen")])] }),
      candidate(PAY_KB, "SQL"),
    );
    expect(named?.matches ?? false).toBe(false);
    // A question that negates what the guide does not: never taken on the matcher's word.
    const g = payGuide("Which staff have a manager?", "SELECT full_name FROM staff WHERE manager_id IS NOT NULL", 0.6);
    expect(
      adaptGuide({ ...g, sameQuestion: true }, intent("Which employees report to nobody, having no manager?"), candidate(PAY_KB, "SQL")),
    ).toBeNull();
    // A value of the guide that the question cannot fill is never guessed.
    const oslo = payGuide("Who works in Oslo?", "SELECT full_name FROM staff WHERE city = 'Oslo'", 0.6);
    expect(
      adaptGuide({ ...oslo, sameQuestion: true }, intent("Which employees work somewhere up north?"), candidate(PAY_KB, "SQL")),
    ).toBeNull();
  });

  it("keeps the guide's own spelling of a value the question names the same way", () => {
    const g = payGuide("Who works in oslo?", "SELECT full_name FROM staff WHERE city = 'oslo'");
    const q = "Who works in Oslo?";
    const adapted = adaptGuide(
      g,
      intent(q, { entities: [mention(q, "Oslo", [link(PAY_KB, "value", "office.town=Oslo", "Oslo", 1, "office")])] }),
      candidate(PAY_KB, "SQL"),
    );
    expect(adapted?.query.text).toBe("SELECT full_name FROM staff WHERE city = 'oslo'");
    expect(adapted?.matches).toBe(true);
  });
});
