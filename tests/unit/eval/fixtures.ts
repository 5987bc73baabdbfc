import type { QuestionResult } from "@/lib/eval/types";

/** A per-question result with everything "not applicable"; tests override what they score. */
export function result(over: Partial<QuestionResult> & { id: string }): QuestionResult {
  return {
    suite: "test",
    position: 0,
    question: `question ${over.id}`,
    kind: "SQL",
    tags: [],
    runId: `run-${over.id}`,
    status: "ANSWERED",
    answer: "x",
    withheld: null,
    gold: { answers: ["x"], unanswerable: false, kbNames: [] },
    source: { candidates: [], winner: null, inCandidates: null, rankedFirst: null, winnerCorrect: null },
    retrieval: null,
    evidenceRecall: null,
    execution: null,
    presence: null,
    scores: { p1: null, em: null, f1: null },
    refrain: { refrained: false, correctDecision: null },
    timings: {},
    totalMs: 0,
    usage: null,
    degradations: [],
    ...over,
  };
}
