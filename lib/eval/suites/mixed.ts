import { interleave, seededShuffle } from "../sample";
import type { EvalQuestion, SuiteDefinition } from "../types";
import { demoQuestions } from "./demo";
import { scifactQuestions } from "./scifact";
import { spiderQuestions } from "./spider";
import { tatqaQuestions } from "./tatqa";
import { text2cypherQuestions } from "./text2cypher";

/**
 * OmniRetrieval's setting: every benchmark KB and the demo KBs registered together, questions drawn
 * from each suite, the system choosing among all of them. A Spider question may be answered from its
 * SQL database or from the RDF version of it (both are gold sources). The order interleaves the suites
 * (each shuffled by the run's seed, see `order`), so `--limit N` draws evenly from each.
 */
export function mixedSuite(datasetsDir: string): SuiteDefinition {
  const parts: EvalQuestion[][] = [
    spiderQuestions(datasetsDir, "both").map((q) => ({ ...q, id: q.id.replace(/^spider:/, "mixed:spider:") })),
    tatqaQuestions(datasetsDir).map((q) => ({ ...q, id: `mixed:${q.id}` })),
    scifactQuestions(datasetsDir).map((q) => ({ ...q, id: `mixed:${q.id}` })),
    text2cypherQuestions(datasetsDir).map((q) => ({ ...q, id: `mixed:${q.id}` })),
    // A follow-up keeps naming its earlier question, under that question's mixed id.
    demoQuestions().map((q) => ({ ...q, id: `mixed:${q.id}`, ...(q.followUpOf ? { followUpOf: `mixed:${q.followUpOf}` } : {}) })),
  ];
  return {
    key: "mixed",
    label: "Mixed (every source together)",
    description:
      "Questions from Spider, TAT-QA, SciFact, Text2Cypher and the demo, with every benchmark and demo KB registered together: source selection among all of them.",
    questions: parts.flat(),
    order: (questions, seed) => {
      const bySuite = new Map<string, EvalQuestion[]>();
      for (const q of questions) bySuite.set(q.suite, [...(bySuite.get(q.suite) ?? []), q]);
      return interleave([...bySuite.values()].map((list) => seededShuffle(list, seed)));
    },
    scope: (kb) => kb.origin === "benchmark" || kb.origin === "demo",
  };
}
