import { describe, expect, it } from "vitest";
import { formulateSql, noAdjustments } from "@/lib/pipeline/stages/formulate/classical";
import { namedValues } from "@/lib/pipeline/stages/formulate/sql/named-values";
import type { Intent } from "@/lib/pipeline/contracts";
import { emptyResultSentence } from "@/lib/pipeline/stages/answer/empty-result";
import { answerFromResult } from "@/lib/pipeline/stages/answer/result-answer";
import { adjustmentsFor } from "@/lib/pipeline/stages/formulate/classical";
import { candidate, intent, link, mention, SHOP } from "./formulate-fixtures";
import { emptySqlResult } from "./answer-fixtures";

/**
 * A name the question gives that no source's value index holds ("Kayaks" when nobody sells kayaks) is
 * either looked up in the column the words beside it name, so an empty result can say "none", or counted
 * as a value the query could not use, so the answer says so; it is never dropped in silence.
 */
const KB = "kb-shop";
const DOCS_KB = "kb-docs";
const shop = candidate(KB, "SQL");

async function answerQuery(i: Intent) {
  const { queries } = await formulateSql(i, shop, SHOP, noAdjustments(), 3, 0);
  const answer = queries.find((q) => q.role === "answer")!;
  return { text: answer.query.text.replace(/\s+/g, " "), fit: answer.fit! };
}

describe("names no index holds", () => {
  it("looks a name up in the column the word after it names, and counts it as used", async () => {
    const q = "Which products are in the Kayaks category?";
    const { text, fit } = await answerQuery(
      intent(q, { wh: "which", answerTypes: ["entity", "list"], entities: [mention(q, "Kayaks", [])] }),
    );
    expect(text).toBe(`SELECT "name" FROM "products" WHERE LOWER("category") LIKE '%kayaks%' ESCAPE '!'`);
    expect(fit.valuesUsed).toEqual(["Kayaks"]);
    expect(fit.valuesLookedUp).toEqual(["Kayaks"]);
    expect(fit.valuesMissed).toEqual([]);
  });

  it("reads the attribute named right before the name too", async () => {
    const q = "How many customers are there with segment Wholesale?";
    const { text } = await answerQuery(intent(q, { wh: "how many", aggregate: "count", entities: [mention(q, "Wholesale", [])] }));
    expect(text).toContain(`WHERE LOWER("segment") LIKE '%wholesale%'`);
  });

  it("puts a place after 'in' into a city column, also when another source knows the name", async () => {
    const q = "Which customers are located in Berlin?";
    const elsewhere = link(DOCS_KB, "value", "policy#table-1:row-2", "Berlin", 1, "policy");
    const { text, fit } = await answerQuery(intent(q, { wh: "which", entities: [mention(q, "Berlin", [elsewhere])] }));
    expect(text).toContain(`WHERE LOWER("city") LIKE '%berlin%'`);
    expect(fit.valuesUsed).toEqual(["Berlin"]);
  });

  it("does not read 'the category of X' as X being a category: the name is then a value the query could not use", async () => {
    const q = "What is the category of the Trailblazer X?";
    const { text, fit } = await answerQuery(intent(q, { wh: "what", entities: [mention(q, "Trailblazer X", [])] }));
    expect(text).not.toContain("LIKE");
    expect(fit.valuesMissed).toEqual(["Trailblazer X"]);
  });

  it("counts neither a capital that opens the sentence, nor a bare number, nor a period's words as a name", () => {
    const q = "Orders of 2024 in March above 300";
    const i = intent(q, {
      entities: [mention(q, "Orders", []), mention(q, "March", []), mention(q, "300", [])],
      time: [{ text: "in March", kind: "absolute", start: null, end: null, comparator: "in", ordinal: null }],
    });
    expect(namedValues(i, KB)).toEqual([]);
  });

  it("leaves a mention that only names another source's schema (a column of a document's table) alone", () => {
    const q = "Which products are in each Category?";
    const column = link(DOCS_KB, "column", "policy#table-1.Category", "Category", 1, "policy#table-1");
    expect(namedValues(intent(q, { entities: [mention(q, "Category", [column])] }), KB)).toEqual([]);
  });
});

describe("an empty text lookup in words", () => {
  it("reads LOWER(column) LIKE with its escape, says how the text was sought, and spells it as the question did", () => {
    const sql = `SELECT "name" FROM "products" WHERE LOWER("category") LIKE '%kayaks%' ESCAPE '!'`;
    expect(emptyResultSentence(sql, ["Kayaks"])?.sentence).toBe("No products are recorded with category containing Kayaks.");
    expect(emptyResultSentence(`SELECT name FROM singer WHERE LOWER(name) LIKE 'l%' ESCAPE '!'`)?.sentence).toBe(
      "No singers are recorded with name starting with l.",
    );
    expect(emptyResultSentence(`SELECT name FROM parts WHERE LOWER(code) LIKE '%50!%%' ESCAPE '!'`)?.conditions).toEqual([
      "code containing 50%",
    ]);
    // A function other than a case fold is not a condition Mosaic can put in words.
    expect(emptyResultSentence(`SELECT name FROM parts WHERE TRIM(code) = 'x'`)).toBeNull();
  });
});

describe("a name the critic had looked up in a guessed column", () => {
  const q = "Who won the 1998 FIFA World Cup?";
  const i = intent(q, { wh: "who", entities: [mention(q, "FIFA World Cup", [])] });

  it("is a guess in the query's fit", async () => {
    const adj = adjustmentsFor(i, { type: "missing_entity", target: "FIFA World Cup", detail: "" });
    const { queries } = await formulateSql(i, shop, SHOP, adj, 3, 0);
    const fit = queries.find((x) => x.role === "answer")!.fit!;
    expect(fit.valuesGuessed).toEqual(["FIFA World Cup"]);
  });

  it("found nothing: the answer does not say 'none', it says nothing matched", () => {
    const sql = `SELECT "region" FROM "regions" WHERE LOWER("region") LIKE '%fifa world cup%' ESCAPE '!'`;
    const fit = { valuesUsed: ["FIFA World Cup"], valuesMissed: [], unresolved: [], coverage: 0.8, uncovered: ["won"] };
    expect(answerFromResult(emptySqlResult(KB, "Shop", sql, fit), 0.35)).toMatchObject({
      refrained: false,
      emptyResult: { kbName: "Shop" },
    });
    const guessed = answerFromResult(emptySqlResult(KB, "Shop", sql, { ...fit, valuesGuessed: ["FIFA World Cup"] }), 0.35);
    expect(guessed.refrained).toBe(true);
    expect(guessed.emptyResult).toBeUndefined();
  });
});
