import { describe, expect, it } from "vitest";
import { answerQuestion, buildQuestionFocus } from "@/lib/pipeline/stages/answer";
import { findBridges } from "@/lib/pipeline/stages/answer/bridge";
import type { ScoredEvidence } from "@/lib/pipeline/types";
import { intent, mention, row, triple } from "./select-fixtures";

const GRAPH = ["kb-graph", "Aurora product and organisation graph"] as const;
const DOCS = ["kb-docs", "Aurora policies and reports"] as const;
const fjelltex = mention("Fjelltex Textiles", [{ kbId: "kb-graph", label: "Fjelltex Textiles", kind: "label", ref: "http://ex/fjelltex", sourceObject: "ex:Organisation", score: 1 }]);

const locatedIn = triple(...GRAPH, ["http://ex/fjelltex", "Fjelltex Textiles"], ["ex:locatedIn", "located in"], ["http://ex/oslo", "Oslo"]);
const hotel = (city: string, cap: number, i: number) => row(...DOCS, "Hotels and daily allowances", ["City", "Hotel cap per night (EUR)"], [city, cap], "hotel cap night city located", i, "search");
const scored = (pieces: ReturnType<typeof row>[], scores: number[]): ScoredEvidence[] => pieces.map((piece, i) => ({ piece, score: scores[i], scores: {} }));

describe("bridges across sources", () => {
  const q = intent("What is the hotel cap per night in the city where Fjelltex Textiles is located?", {
    entities: [fjelltex],
    relation: "hotel cap per night located",
    keywords: ["hotel", "cap", "night", "city", "located"],
    answerTypes: ["number"],
  });

  it("joins a graph fact to another source's row about its far end, and cites both", () => {
    const evidence = scored([hotel("Stockholm", 190, 0), hotel("Oslo", 210, 1), hotel("Berlin", 160, 2), locatedIn], [0.5, 0.5, 0.5, 0.3]);
    expect(findBridges(evidence, buildQuestionFocus(q)).map((b) => b.entity.mention)).toEqual(["Oslo"]);
    const { answer } = answerQuestion({ intent: q, evidence });
    expect(answer.refrained).toBe(false);
    expect(answer.text).toMatch(/^210\b/);
    expect(answer.citations).toContain(locatedIn.id);
    expect(answer.citations).toContain(evidence[1].piece.id);
  });

  it("is no bridge when no other source's row holds an asked column: the far end is then the answer itself", () => {
    const where = intent("In which city is Fjelltex Textiles located?", { entities: [fjelltex], relation: "located", keywords: ["city", "located"], answerTypes: ["location"] });
    const evidence = scored([locatedIn, hotel("Oslo", 210, 0)], [0.6, 0.3]);
    expect(findBridges(evidence, buildQuestionFocus(where))).toEqual([]);
    expect(answerQuestion({ intent: where, evidence }).answer.text).toBe("Oslo");
  });

  it("needs the fact to follow a relation the question names", () => {
    const madeBy = triple(...GRAPH, ["http://ex/fjelltex", "Fjelltex Textiles"], ["ex:supplies", "supplies"], ["http://ex/oslo", "Oslo"]);
    const evidence = scored([hotel("Oslo", 210, 0), madeBy], [0.5, 0.3]);
    expect(findBridges(evidence, buildQuestionFocus(q))).toEqual([]);
  });
});
