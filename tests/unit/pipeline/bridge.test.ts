import { describe, expect, it } from "vitest";
import { answerQuestion, buildQuestionFocus } from "@/lib/pipeline/stages/answer/classical";
import { findBridges } from "@/lib/pipeline/stages/answer/bridge";
import type { ScoredEvidence } from "@/lib/pipeline/contracts";
import { intent, mention, path, row, triple } from "./select-fixtures";

const GRAPH = ["kb-graph", "Aurora product and organisation graph"] as const;
const DOCS = ["kb-docs", "Aurora policies and reports"] as const;
const fjelltex = mention("Fjelltex Textiles", [
  { kbId: "kb-graph", label: "Fjelltex Textiles", kind: "label", ref: "http://ex/fjelltex", sourceObject: "ex:Organisation", score: 1 },
]);

const locatedIn = triple(...GRAPH, ["http://ex/fjelltex", "Fjelltex Textiles"], ["ex:locatedIn", "located in"], ["http://ex/oslo", "Oslo"]);
const hotel = (city: string, cap: number, i: number) =>
  row(
    ...DOCS,
    "Hotels and daily allowances",
    ["City", "Hotel cap per night (EUR)"],
    [city, cap],
    "hotel cap night city located",
    i,
    "search",
  );
const scored = (pieces: ReturnType<typeof row>[], scores: number[]): ScoredEvidence[] =>
  pieces.map((piece, i) => ({ piece, score: scores[i], scores: {} }));

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
    const where = intent("In which city is Fjelltex Textiles located?", {
      entities: [fjelltex],
      relation: "located",
      keywords: ["city", "located"],
      answerTypes: ["location"],
    });
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

describe("intersection lists (HybGRAG)", () => {
  const M = ["kb-movies", "Movies graph"] as const;
  const hanks = mention("Tom Hanks", [
    { kbId: "kb-movies", label: "Tom Hanks", kind: "node", ref: "n-hanks", sourceObject: "Person", score: 1 },
  ]);
  const ryan = mention("Meg Ryan", [
    { kbId: "kb-movies", label: "Meg Ryan", kind: "node", ref: "n-ryan", sourceObject: "Person", score: 1 },
  ]);
  // "movies" also links to a value elsewhere in the catalog: it must not block the intersection.
  const movies = mention("movies", [
    { kbId: "kb-shop", label: "Movies", kind: "value", ref: "category=Movies", sourceObject: "products", score: 1 },
  ]);
  const person = (id: string, caption: string) => ({ id, label: "Person", caption });
  const movie = (id: string, caption: string) => ({ id, label: "Movie", caption });
  const both = (id: string, title: string) =>
    path(...M, [person("n-ryan", "Meg Ryan"), movie(id, title), person("n-hanks", "Tom Hanks")], ["ACTED_IN", "ACTED_IN"]);
  const own = (id: string, title: string) =>
    path(...M, [person("n-hanks", "Tom Hanks"), movie(id, title)], ["ACTED_IN"], "MATCH p = (s)-[:ACTED_IN]-() RETURN p");

  it("keeps only the values whose evidence connects every entity the winner's evidence joins", () => {
    const q = intent("Which movies did Tom Hanks and Meg Ryan act in?", {
      entities: [movies, hanks, ryan],
      relation: "act",
      answerTypes: ["entity", "list"],
      keywords: ["movies", "act"],
    });
    const pieces = [both("m1", "Sleepless in Seattle"), both("m2", "You've Got Mail"), own("m3", "Cast Away"), own("m4", "Apollo 13")];
    const { answer } = answerQuestion({ intent: q, evidence: scored(pieces as ReturnType<typeof row>[], [0.9, 0.9, 0.8, 0.8]) });
    expect(answer.text.split(/, | and /).sort()).toEqual(["Sleepless in Seattle", "You've Got Mail"]);
  });
});
