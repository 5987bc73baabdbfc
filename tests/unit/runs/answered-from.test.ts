import { describe, expect, it } from "vitest";
import type { ScoredEvidence } from "@/lib/pipeline/contracts";
import { answeredFromKbs } from "@/lib/runs/answered-from";

function piece(id: string, kb: string): ScoredEvidence {
  return {
    piece: {
      id,
      kind: "row",
      text: id,
      entities: [],
      data: {} as never,
      provenance: { kb, kbName: kb, sourceObject: null, query: "", language: "sql", location: {} },
    },
    score: 1,
    scores: {},
  };
}

const evidence = [piece("e1", "kb-sales"), piece("e2", "kb-docs"), piece("e3", "kb-graph")];
const winner = { kbId: "kb-sales", kbName: "Sales", reason: "best evidence" };
const answer = (refrained: boolean, citations: string[]) => ({
  text: "",
  refrained,
  reason: null,
  confidence: 0.5,
  citations,
  candidates: [],
});

describe("which sources a run answered from", () => {
  it("is every source the answer cites", () => {
    expect([...answeredFromKbs({ status: "ANSWERED", answer: answer(false, ["e2", "e3"]), evidence, winner })].sort()).toEqual([
      "kb-docs",
      "kb-graph",
    ]);
  });

  it("falls back to the winning source for an answer without citations", () => {
    expect([...answeredFromKbs({ status: "ANSWERED", answer: answer(false, []), evidence, winner })]).toEqual(["kb-sales"]);
  });

  it("is none for a run that gave no answer, though evidence selection named a best source", () => {
    expect(answeredFromKbs({ status: "REFRAINED", answer: answer(true, []), evidence, winner }).size).toBe(0);
    expect(answeredFromKbs({ status: "ANSWERED", answer: answer(true, ["e1"]), evidence, winner }).size).toBe(0);
    for (const status of ["FAILED", "CANCELLED"] as const)
      expect(answeredFromKbs({ status, answer: answer(false, ["e1"]), evidence, winner }).size).toBe(0);
  });
});
