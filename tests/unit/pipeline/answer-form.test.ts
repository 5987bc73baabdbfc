import { describe, expect, it } from "vitest";
import { answerFormOf, periodsOf, sentenceStartsIn, sentenceStartsOf } from "@/lib/pipeline/contracts";
import { understandQuestion } from "@/lib/pipeline/stages/understand/classical";
import { readAnswerForm } from "@/lib/pipeline/stages/understand/answer-form";
import { inMemoryEntityLookup } from "@/lib/pipeline/entity-lookup";
import { baseIntent } from "./intent-fixture";

describe("the answer form: what kind of answer a question wants, read once by understand", () => {
  it("tells prose from a value, a reason from a definition, a change from a level", () => {
    expect(readAnswerForm("Why did the gross margin fall in 2019?")).toMatchObject({ prose: true, reason: true, why: true, change: false });
    expect(readAnswerForm("How is goodwill tested for impairment?")).toMatchObject({ prose: true, reason: false, why: false });
    expect(readAnswerForm("What was the gross margin in 2019?")).toMatchObject({
      prose: false,
      reason: false,
      quantity: ["percent", "number"],
    });
    expect(readAnswerForm("By how much did revenue grow in 2025?")).toMatchObject({ change: true, prose: false });
    expect(readAnswerForm("What is the order id of the largest order?").id).toBe(true);
    expect(readAnswerForm("Was the tent shipped from Oslo or Berlin?").choice).toBe(true);
    expect(readAnswerForm("How many products are in stock?").unit).toEqual({ kind: "count-noun", noun: "products" });
    expect(readAnswerForm("How long is the warranty?").unit).toEqual({ kind: "duration", noun: null });
  });

  it("is part of every intent the classical strategy gives, empty questions included", async () => {
    const lookup = inMemoryEntityLookup([]);
    const { intent } = await understandQuestion({ question: "Why did costs rise?", history: [], kbIds: [], lookup });
    expect(intent.answerForm).toMatchObject({ prose: true, reason: true, why: true });
    const empty = await understandQuestion({ question: "  ", history: [], kbIds: [], lookup });
    expect(empty.intent.answerForm).toEqual(readAnswerForm("  "));
  });

  it("is what the later stages read: an intent persisted before it was kept assumes nothing", () => {
    const older = { ...baseIntent("Why did costs rise?"), answerForm: undefined };
    expect(answerFormOf(older)).toEqual({
      prose: false,
      reason: false,
      why: false,
      change: false,
      quantity: null,
      unit: null,
      id: false,
      choice: false,
      nameRequest: false,
    });
    expect(answerFormOf(baseIntent("Why did costs rise?")).why).toBe(true);
  });

  it("tells a request to name the answers from a question about a name", () => {
    expect(readAnswerForm("Name the first 3 movies released after 2000.").nameRequest).toBe(true);
    expect(readAnswerForm("Please name 2 people who directed a film.").nameRequest).toBe(true);
    expect(readAnswerForm("What is the name of the oldest store?").nameRequest).toBe(false);
  });
});

describe("the reporting periods a question names, read once by understand", () => {
  it("are part of the intent, fiscal years, quarters and ranges included, in order", async () => {
    const lookup = inMemoryEntityLookup([]);
    const { intent } = await understandQuestion({
      question: "How did revenue change from FY2018 to the fourth quarter of 2019?",
      history: [],
      kbIds: [],
      lookup,
    });
    expect(intent.periods?.map((p) => [p.year, p.quarter, p.text])).toEqual([
      [2018, null, "FY2018"],
      [2019, 4, "fourth quarter of 2019"],
    ]);
    expect(periodsOf(intent)).toBe(intent.periods);
  });

  it("are read from the question only for an intent persisted before they were kept", () => {
    const older = { ...baseIntent("What was the margin in 2021?"), periods: undefined };
    expect(periodsOf(older).map((p) => p.year)).toEqual([2021]);
    expect(periodsOf({ ...baseIntent("What was the margin in 2021?"), periods: [] })).toEqual([]);
  });
});

describe("where the question's sentences start, read once by understand", () => {
  it("are the offsets of each sentence's first word: after leading spaces and after '.', '?' or '!'", async () => {
    expect(sentenceStartsIn("  Which products sell best? List them. Thanks!")).toEqual([2, 28, 39, 46]);
    const { intent } = await understandQuestion({
      question: "Show orders. Berlin customers only",
      history: [],
      kbIds: [],
      lookup: inMemoryEntityLookup([]),
    });
    expect(intent.sentenceStarts).toEqual([0, 13]);
    expect(sentenceStartsOf(intent)).toBe(intent.sentenceStarts);
  });

  it("are read from the question only for an intent persisted before they were kept", () => {
    expect(sentenceStartsOf({ ...baseIntent("Stop. Go"), sentenceStarts: undefined })).toEqual([0, 6]);
  });
});
