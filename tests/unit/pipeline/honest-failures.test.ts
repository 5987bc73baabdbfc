import { describe, expect, it } from "vitest";
import type { Answer, Candidate, Critique, ExecutedQuery } from "@/lib/pipeline/contracts";
import { emptyResultSentence, whereConditions } from "@/lib/pipeline/stages/answer/empty-result";
import { answerFromResult } from "@/lib/pipeline/stages/answer/result-answer";
import { commitSource, evidenceWinnerCommitment } from "@/lib/pipeline/stages/select-evidence/commit";
import { EMPTY_RESULT_CHECK } from "@/lib/pipeline/stages/critique/classical";
import { withCriticVerdict } from "@/lib/pipeline/run/critic-verdict";
import { intent } from "./select-fixtures";
import { emptySqlResult, firstRoundVerdict } from "./answer-fixtures";

describe("a filtered query that found nothing, in words", () => {
  it("reads a conjunction of column-literal conditions, qualified or not", () => {
    expect(whereConditions(`SELECT "name" FROM "staff" WHERE "staff"."office" = 'Lyon' AND grade >= 3`)).toEqual([
      { table: "staff", column: "office", op: "=", values: ["Lyon"] },
      { table: null, column: "grade", op: ">=", values: ["3"] },
    ]);
    expect(whereConditions("SELECT * FROM t WHERE kind IN ('a', 'b') AND label LIKE '%x%' ORDER BY 1")).toEqual([
      { table: null, column: "kind", op: "IN", values: ["a", "b"] },
      { table: null, column: "label", op: "LIKE", values: ["%x%"] },
    ]);
    expect(whereConditions("SELECT * FROM t")).toEqual([]);
    // OR, subqueries and functions are not read; a case fold only compares the column without case.
    expect(whereConditions("SELECT * FROM t WHERE a = 1 OR b = 2")).toBeNull();
    expect(whereConditions("SELECT * FROM t WHERE a IN (SELECT a FROM u)")).toBeNull();
    expect(whereConditions("SELECT * FROM t WHERE trim(a) = 'x'")).toBeNull();
    expect(whereConditions("SELECT * FROM t WHERE lower(a) = 'x'")).toEqual([{ table: null, column: "a", op: "=", values: ["x"] }]);
  });

  it("says the subject, the filters and a year or month written as a date range", () => {
    expect(
      emptyResultSentence(
        `SELECT "p"."title" FROM "p" JOIN "loans" ON 1 = 1 WHERE "loans"."taken_on" >= '2019-01-01' AND "loans"."taken_on" < '2020-01-01'`,
      ),
    ).toEqual({ sentence: "No loans are recorded for 2019.", conditions: ["for 2019"] });
    expect(
      emptyResultSentence(`SELECT name FROM members WHERE club_town = 'Ghent' AND joined >= '2021-03-01' AND joined < '2021-04-01'`),
    ).toEqual({
      sentence: "No members are recorded with club town Ghent for March 2021.",
      conditions: ["club town Ghent", "for March 2021"],
    });
    expect(emptyResultSentence(`SELECT "name" FROM "parts" WHERE "parts"."weightKg" > 40`)?.sentence).toBe(
      "No parts are recorded with weight kg above 40.",
    );
    // A table named in the singular is counted in the plural; a padded stored value is shown without its spaces.
    expect(emptyResultSentence(`SELECT name FROM singer WHERE city = 'Aberdeen '`)?.sentence).toBe(
      "No singers are recorded with city Aberdeen.",
    );
    expect(emptyResultSentence(`SELECT name FROM staff WHERE office = 'Lyon'`)?.sentence).toBe("No staff are recorded with office Lyon.");
    // No filter: an empty table says nothing about a condition.
    expect(emptyResultSentence("SELECT name FROM parts")).toBeNull();
  });

  it("answers 'none' from a committed query's empty result, and the critic accepts it", () => {
    const sql = `SELECT "name" FROM "staff" WHERE "staff"."office" = 'Lyon'`;
    const answer = answerFromResult(
      emptySqlResult("kb", "HR database", sql, { valuesUsed: ["Lyon"], valuesMissed: [], unresolved: [], coverage: 1, uncovered: [] }),
      0.35,
    );
    expect(answer).toMatchObject({ refrained: false, text: "No staff are recorded with office Lyon." });
    expect(answer.emptyResult).toEqual({ kbName: "HR database", conditions: ["office Lyon"] });
    const verdict = firstRoundVerdict(intent("Who works in the Lyon office?"), answer);
    expect(verdict.accepted).toBe(true);
    expect(verdict.feedback).toBeNull();
    expect(verdict.checks[0].name).toBe(EMPTY_RESULT_CHECK);
  });

  it("says 'none' as not certain when it rests on a name the source's index does not hold", () => {
    const sql = `SELECT "name" FROM "staff" WHERE LOWER("staff"."office") LIKE '%lyon%'`;
    const fit = { valuesUsed: ["Lyon"], valuesMissed: [], unresolved: [], coverage: 1, uncovered: [] };
    const indexed = answerFromResult(emptySqlResult("kb", "HR database", sql, fit), 0.35);
    const lookedUp = answerFromResult(emptySqlResult("kb", "HR database", sql, { ...fit, valuesLookedUp: ["Lyon"] }), 0.35);
    expect(lookedUp).toMatchObject({
      refrained: false,
      text: "No staff are recorded with office containing Lyon.",
      certainty: "uncertain",
    });
    expect(indexed.certainty).toBeUndefined();
    expect(lookedUp.confidence).toBeLessThan(indexed.confidence);
  });

  it("commits to a faithful filtered query that found nothing rather than to other evidence", () => {
    const candidates: Candidate[] = [
      { kbId: "hr", kbName: "HR database", kind: "SQL", score: 1, sourceObjects: [], reasons: [] },
      { kbId: "docs", kbName: "Handbook", kind: "DOCUMENTS", score: 0.5, sourceObjects: [], reasons: [] },
    ];
    const query = (text: string, fit: ExecutedQuery["fit"]): ExecutedQuery => ({
      kbId: "hr",
      kbName: "HR database",
      kind: "SQL",
      query: { language: "sql", text },
      strategy: "schema-linking",
      sourceObject: null,
      explanation: "",
      role: "answer",
      fit,
      status: "empty",
      rows: 0,
      truncated: false,
      ms: 1,
      evidenceIds: [],
    });
    const faithful = { valuesUsed: ["Lyon"], valuesMissed: [], unresolved: [], coverage: 1, uncovered: [] };
    expect(commitSource(candidates, [query(`SELECT name FROM staff WHERE office = 'Lyon'`, faithful)])?.kbId).toBe("hr");
    // Unfiltered, or not representing the question (half its words unaccounted for): no commitment.
    expect(commitSource(candidates, [query(`SELECT name FROM staff`, faithful)])).toBeNull();
    expect(commitSource(candidates, [query(`SELECT name FROM staff WHERE office = 'Lyon'`, { ...faithful, coverage: 0.2 })])).toBeNull();
    // A name this database only looked up by its text, which another database's answer query found rows for:
    // nothing here is not "none" there. A name this database's own index holds still says "none".
    const elsewhere: ExecutedQuery = {
      ...query(`SELECT name FROM sites WHERE city = 'Lyon'`, { ...faithful, coverage: 0.4 }),
      kbId: "sites",
      kbName: "Sites database",
      status: "ok",
      rows: 2,
    };
    const withSites = [...candidates, { ...candidates[0], kbId: "sites", kbName: "Sites database", score: 0.8 }];
    const lookedUp = { ...faithful, valuesLookedUp: ["Lyon"] };
    expect(commitSource(withSites, [query(`SELECT name FROM staff WHERE LOWER(office) LIKE '%lyon%'`, lookedUp), elsewhere])).toBeNull();
    expect(commitSource(withSites, [query(`SELECT name FROM staff WHERE office = 'Lyon'`, faithful), elsewhere])?.kbId).toBe("hr");
  });
});

describe("a structured source whose evidence won though another source was ranked first", () => {
  const candidates: Candidate[] = [
    { kbId: "docs", kbName: "Handbook", kind: "DOCUMENTS", score: 1, sourceObjects: [], reasons: [] },
    { kbId: "sales", kbName: "Sales database", kind: "SQL", score: 0.5, sourceObjects: [], reasons: [] },
  ];
  const answer = (fit: ExecutedQuery["fit"], rows = 2): ExecutedQuery => ({
    kbId: "sales",
    kbName: "Sales database",
    kind: "SQL",
    query: { language: "sql", text: `SELECT strftime('%Y', order_date) AS year, COUNT(*) FROM orders GROUP BY year` },
    strategy: "schema-linking",
    sourceObject: null,
    explanation: "",
    role: "answer",
    fit,
    status: "ok",
    rows,
    truncated: false,
    ms: 1,
    evidenceIds: [],
  });
  const fit = { valuesUsed: [], valuesMissed: [], unresolved: [], coverage: 0.5, uncovered: ["place"] };
  const sales = { kbId: "sales", kbName: "Sales database" };

  it("answers with its answer query's result when that query represents the question", () => {
    expect(commitSource(candidates, [answer(fit)])).toBeNull();
    expect(evidenceWinnerCommitment(sales, candidates, [answer(fit)], new Set(["refund", "day"]))?.reason).toMatch(
      /its evidence matched the question best and its answer query represents the question and returned 2 rows/,
    );
  });

  it("leaves it to the evidence when a question word the query misses is in the other sources' evidence, or the query found nothing", () => {
    const missesWarranty = { ...fit, uncovered: ["warranti"] };
    expect(evidenceWinnerCommitment(sales, candidates, [answer(missesWarranty)], new Set(["warranti", "year"]))).toBeNull();
    expect(evidenceWinnerCommitment(sales, candidates, [answer(fit, 0)], new Set())).toBeNull();
    expect(evidenceWinnerCommitment({ kbId: "docs", kbName: "Handbook" }, candidates, [answer(fit)], new Set())).toBeNull();
  });
});

describe("the critic's last word", () => {
  const answer: Answer = { text: "Ada, Bo, Cy", refrained: false, reason: null, confidence: 0.9, citations: ["e1"], candidates: [] };
  const rejected = (names: string[]): Critique => ({
    accepted: false,
    checks: [
      ...names.map((name) => ({ name, passed: false, detail: `${name} failed here.` })),
      { name: "corrective feedback", passed: false, detail: "no round left" },
    ],
    feedback: null,
  });

  it("leaves an accepted answer and a refusal alone", () => {
    expect(withCriticVerdict(answer, { accepted: true, checks: [], feedback: null })).toBe(answer);
    const refused = { ...answer, refrained: true };
    expect(withCriticVerdict(refused, rejected(["answer type fits"]))).toBe(refused);
  });

  it("withholds an answer to another question, with the critic's reason", () => {
    for (const check of ["answer type fits", "named values filtered in the answer query", "question entities in the cited evidence"]) {
      const out = withCriticVerdict(answer, rejected(["path from the question's entities to the answer", check]));
      expect(out.refrained).toBe(true);
      expect(out.reason).toContain(`${check} failed here.`);
      expect(out.candidates).toEqual(answer.candidates);
    }
  });

  it("shows an answer it could not tie to the question at most as not certain", () => {
    const out = withCriticVerdict(answer, rejected(["path from the question's entities to the answer"]));
    expect(out).toMatchObject({ refrained: false, certainty: "uncertain", text: answer.text });
    expect(out.reason).toMatch(/^Not certain — .*path from the question's entities to the answer failed here\.$/);
    expect(out.confidence).toBe(answer.confidence);
  });
});
