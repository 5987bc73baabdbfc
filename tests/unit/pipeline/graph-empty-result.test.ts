import { describe, expect, it } from "vitest";
import type { FormulatedQuery, QueryResult } from "@/lib/pipeline/contracts";
import { formulateCypher, formulateSparql, noAdjustments } from "@/lib/pipeline/stages/formulate/classical";
import { statedConditions } from "@/lib/pipeline/stages/formulate/sql/stated-conditions";
import { emptyResultOf } from "@/lib/pipeline/stages/answer/empty-result";
import { answerFromResult } from "@/lib/pipeline/stages/answer/result-answer";
import { EMPTY_RESULT_CHECK } from "@/lib/pipeline/stages/critique/classical";
import { firstRoundVerdict } from "./answer-fixtures";
import { candidate, intent, link, mention, MOVIES } from "./formulate-fixtures";

/**
 * A graph answer query (Cypher, SPARQL) that found nothing under the question's conditions answers "none"
 * with them, as an SQL query does: its plan states the conditions at formulation, because its text
 * (parameters, IRIs) is not read back.
 */

const GRAPH = "kb-movies";

const IN_2031 = {
  text: "in 2031",
  kind: "absolute" as const,
  start: "2031-01-01",
  end: "2032-01-01",
  comparator: "in" as const,
  ordinal: null,
};

function cypherAnswer(question: string, options: Parameters<typeof intent>[1] = {}): FormulatedQuery {
  const { queries } = formulateCypher(intent(question, options), candidate(GRAPH, "CYPHER"), MOVIES, noAdjustments(), 3, 0);
  const answer = queries.find((q) => q.role === "answer");
  expect(answer, "an answer query was formulated").toBeDefined();
  return answer!;
}

function emptyResult(q: FormulatedQuery): QueryResult {
  return {
    kbId: q.kbId,
    kbName: q.kbName,
    language: q.query.language as QueryResult["language"],
    query: q.query.text,
    columns: [],
    rows: [],
    pieceIds: [],
    truncated: false,
    cap: 100,
    fit: q.fit ?? null,
    grouped: null,
  };
}

describe("a graph query that found nothing under its conditions", () => {
  it("states a value filter and a period of its Cypher plan, and answers 'none' with them", () => {
    const q = "Which movies with Tom Hanks were released in 2031?";
    const tom = mention(q, "Tom Hanks", [link(GRAPH, "value", "Person.name=Tom Hanks", "Tom Hanks", 1, "Person")]);
    const a = cypherAnswer(q, { entities: [tom], time: [IN_2031] });
    // The text carries parameters, not the values: the plan states them.
    expect(a.query.text).toContain("person.`name` = $p0");
    expect(a.fit?.stated).toEqual({
      subject: "Movie",
      conditions: [
        { table: "Person", column: "name", op: "=", values: ["Tom Hanks"] },
        { table: null, column: "released", op: "=", values: ["2031"] },
      ],
    });
    const answer = answerFromResult(emptyResult(a), 0.35);
    expect(answer.refrained).toBe(false);
    // The value belongs to a person, not to the movies counted: its column is named with its label.
    expect(answer.text).toBe("No movies are recorded with person name Tom Hanks and released 2031.");
    expect(answer.emptyResult).toEqual({ kbName: a.kbName, conditions: ["person name Tom Hanks", "released 2031"] });
    // The critic accepts it: another round would only relax the filters and answer about every movie.
    const verdict = firstRoundVerdict(intent(q), answer);
    expect(verdict.accepted).toBe(true);
    expect(verdict.checks.map((c) => c.name)).toEqual([EMPTY_RESULT_CHECK]);
  });

  it("states nothing for a plan whose emptiness says more than 'no row meets these'", () => {
    const compared = cypherAnswer("Which people are born later than 2050?");
    expect(compared.fit?.stated?.conditions).toEqual([{ table: null, column: "born", op: ">", values: ["2050"] }]);
    expect(emptyResultOf("cypher", compared.query.text, compared.fit)?.sentence).toBe("No people are recorded with born above 2050.");
    // A negation through a relationship, an 'or', an exclusion: the plan states no conditions, so no 'none' is said.
    const negated = cypherAnswer("Which people never acted in any movie?");
    expect(negated.fit?.stated).toBeUndefined();
    expect(emptyResultOf("cypher", negated.query.text, negated.fit)).toBeNull();
    const answer = answerFromResult(emptyResult(negated), 0.35);
    expect(answer.refrained).toBe(true);
  });

  it("a name sought only in a guessed column is not stated: finding nothing there says nothing", () => {
    const base = { root: "Movie", values: [], time: [], numeric: [], negations: [], top: null, having: [], antiJoins: [], setOp: null };
    const column = { table: "Movie", name: "title" } as never;
    const linking = { tableCoverage: () => 1, columnScore: () => 0 };
    const picks = { ...base, lookups: [{ column, text: "Zed", guessed: true }], flags: [], absent: [], orGroups: new Map() } as never;
    expect(statedConditions(picks, ["Movie"], linking)).toBeUndefined();
    const placed = { ...base, lookups: [{ column, text: "Zed", anchor: "prefix" }], flags: [], absent: [], orGroups: new Map() } as never;
    expect(statedConditions(placed, ["Movie"], linking)).toEqual({
      subject: "Movie",
      conditions: [{ table: null, column: "title", op: "LIKE", values: ["Zed%"] }],
    });
  });

  it("a period on a date of another label the question does not name is not stated: it was put there for want of a better date", () => {
    const founded = { table: "Organisation", name: "founded" } as never;
    const cues = [{ text: "in 2023", kind: "absolute", start: "2023-01-01", end: "2024-01-01", comparator: "in", ordinal: null }];
    const picks = {
      root: "Product",
      values: [],
      lookups: [],
      time: [{ column: founded, cues }],
      numeric: [],
      negations: [],
      top: null,
      having: [],
      antiJoins: [],
      setOp: null,
      flags: [],
      absent: [],
      orGroups: new Map(),
    } as never;
    const tables = ["Product", "Organisation"];
    expect(statedConditions(picks, tables, { tableCoverage: () => 0, columnScore: () => 0 })).toBeUndefined();
    // Named ("products of organisations founded in 2023"): the period is the question's.
    expect(statedConditions(picks, tables, { tableCoverage: (t) => (t === "Organisation" ? 1 : 0), columnScore: () => 0 })).toEqual({
      subject: "Product",
      conditions: [
        { table: "Organisation", column: "founded", op: ">=", values: ["2023-01-01"] },
        { table: "Organisation", column: "founded", op: "<", values: ["2024-01-01"] },
      ],
    });
  });

  it("a period on another label's date is said with that label, not as the subject's period", () => {
    const fit = {
      valuesUsed: [],
      stated: {
        subject: "Product",
        conditions: [
          { table: "Organisation", column: "founded", op: ">=", values: ["2023-01-01"] },
          { table: "Organisation", column: "founded", op: "<", values: ["2024-01-01"] },
        ],
      },
    };
    expect(emptyResultOf("sparql", "", fit)?.sentence).toBe("No products are recorded with organisation founded in 2023.");
    const own = { valuesUsed: [], stated: { subject: "Order", conditions: fit.stated.conditions.map((c) => ({ ...c, table: null })) } };
    expect(emptyResultOf("cypher", "", own)?.sentence).toBe("No orders are recorded for 2023.");
  });

  it("a SPARQL plan states its conditions the same way", () => {
    const BASE = "http://mosaic.local/example/";
    const XSD = "http://www.w3.org/2001/XMLSchema#";
    const structure = {
      kind: "rdf" as const,
      prefixes: { ex: BASE },
      classes: [{ iri: `${BASE}singer`, label: "singer", instances: 6 }],
      predicates: [
        { iri: `${BASE}singer#Name`, label: "Name", count: 6, domains: [`${BASE}singer`], ranges: [`${XSD}string`], literal: true },
        { iri: `${BASE}singer#Country`, label: "Country", count: 6, domains: [`${BASE}singer`], ranges: [`${XSD}string`], literal: true },
      ],
      labelPredicates: [],
    };
    const RDF = "kb-singers";
    const q = "Which singers are from Iceland?";
    const i = intent(q, {
      entities: [mention(q, "Iceland", [link(RDF, "value", `<${BASE}singer#Country> "Iceland"`, "Iceland", 1, `${BASE}singer`)])],
    });
    const { queries } = formulateSparql(i, candidate(RDF, "SPARQL"), structure, noAdjustments(), 3, 0);
    const a = queries.find((x) => x.role === "answer")!;
    expect(a.query.language).toBe("sparql");
    expect(emptyResultOf("sparql", a.query.text, a.fit)?.sentence).toBe("No singers are recorded with country Iceland.");
  });
});
