import { describe, expect, it } from "vitest";
import { scoreAnswer, statesNothing } from "@/lib/eval/metrics/answer";
import { placeFollowUps } from "@/lib/eval/runner";
import { DEMO_CATEGORIES, demoQuestions } from "@/lib/eval/suites/demo";
import type { EvalQuestion } from "@/lib/eval/types";

describe("demo suite", () => {
  const qs = demoQuestions();

  it("asks at least 60 questions, at least 6 in each category, every one with a category", () => {
    expect(qs.length).toBeGreaterThanOrEqual(60);
    for (const c of DEMO_CATEGORIES) expect(qs.filter((q) => q.category === c).length, c).toBeGreaterThanOrEqual(6);
    expect(qs.every((q) => (DEMO_CATEGORIES as readonly string[]).includes(q.category ?? ""))).toBe(true);
  });

  it("keeps the ids of the first 28 questions, so earlier reports compare question by question", () => {
    const byId = new Map(qs.map((q) => [q.id, q.question]));
    expect(byId.get("demo:1")).toBe("What percentage of products contained recycled or certified materials in 2025?");
    expect(byId.get("demo:16")).toBe("Which customers are located in Munich?");
    expect(byId.get("demo:28")).toBe("Who won the 1998 FIFA World Cup?");
    expect(new Set(qs.map((q) => q.id)).size).toBe(qs.length);
  });

  it("asks each follow-up after an earlier question, including the issue's 'And in Berlin?' after Munich", () => {
    const index = new Map(qs.map((q, i) => [q.id, i]));
    const followUps = qs.filter((q) => q.followUpOf);
    expect(followUps.length).toBeGreaterThanOrEqual(6);
    for (const q of followUps) expect(index.get(q.followUpOf!)!).toBeLessThan(index.get(q.id)!);
    const berlin = followUps.find((q) => q.question === "And in Berlin?")!;
    expect(qs.find((q) => q.id === berlin.followUpOf)!.question).toBe("Which customers are located in Munich?");
    expect(berlin.gold).toEqual({ type: "unanswerable", nothingRecorded: "No customers are located in Berlin." });
  });

  it("holds the issue's questions with the gold the data gives", () => {
    const gold = (text: string) => qs.find((q) => q.question === text)?.gold;
    expect(gold("Which product had the highest sales in 2023?")).toEqual({
      type: "unanswerable",
      nothingRecorded: "No sales are recorded for 2023.",
    });
    // No HR data and no handbook in the demo: both are questions to refrain from.
    expect(gold("What is the average salary per department?")).toEqual({ type: "unanswerable" });
    expect(gold("How many vacation days do employees get per year?")).toEqual({ type: "unanswerable" });
    expect(gold("What is the average order value per customer segment?")).toMatchObject({ type: "query", language: "sql" });
    expect(gold("What was the highest-selling product in 2024?")).toMatchObject({ type: "query", language: "sql" });
  });

  it("gives a list question its items, so a list naming them in any order is right and one missing an item is not", () => {
    const q = qs.find((x) => x.question === "Which products does Fjelltex Textiles make?")!;
    expect(q.gold.type).toBe("answers");
    const gold = q.gold as { answers: string[]; list?: boolean };
    const score = (text: string) => scoreAnswer(text, { answers: gold.answers, list: !!gold.list, question: q.question }).p1;
    expect(score("Fjord Down Jacket, Storm Shell Jacket, Arctic Sleeping Bag and Summer Sleeping Bag")).toBe(true);
    expect(score("Summer Sleeping Bag, Arctic Sleeping Bag, Storm Shell Jacket, Fjord Down Jacket")).toBe(true);
    expect(score("Fjord Down Jacket, Storm Shell Jacket and Arctic Sleeping Bag")).toBe(false);
  });
});

describe("follow-ups in a run's order", () => {
  const q = (id: string, followUpOf?: string): EvalQuestion => ({
    id,
    suite: "t",
    question: id,
    kind: "SQL",
    goldKbNames: [],
    gold: { type: "unanswerable" },
    ...(followUpOf ? { followUpOf } : {}),
  });

  it("moves each follow-up right after its question, chains in order", () => {
    const out = placeFollowUps([q("c", "b"), q("x"), q("b", "a"), q("a"), q("y")]);
    expect(out.map((x) => x.id)).toEqual(["x", "a", "b", "c", "y"]);
  });

  it("leaves out a follow-up whose question is not in the list (it cannot be asked as a follow-up)", () => {
    expect(placeFollowUps([q("b", "a"), q("c", "b"), q("x")]).map((x) => x.id)).toEqual(["x"]);
  });

  it("leaves questions without follow-ups in their order", () => {
    expect(placeFollowUps([q("3"), q("1"), q("2")]).map((x) => x.id)).toEqual(["3", "1", "2"]);
  });
});

describe("statesNothing", () => {
  it("accepts answers that say nothing matched", () => {
    for (const t of [
      "No sales are recorded for 2023.",
      "No customers are located in Berlin.",
      "None.",
      "There are no orders in 2026.",
      "The query returned no rows.",
      "Nothing was found for 2022.",
    ])
      expect(statesNothing(t), t).toBe(true);
  });

  it("rejects answers that name a value, and a refusal (no text)", () => {
    for (const t of ["Trail Runner 2", "No. 1 is the Trail Runner 2", "Alpenweg GmbH, none other", "0", "Notably, the Basecamp 4 Tent"])
      expect(statesNothing(t), t).toBe(false);
    expect(statesNothing(null)).toBe(false);
  });
});
