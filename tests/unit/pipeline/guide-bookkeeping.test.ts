import { describe, expect, it } from "vitest";
import type { NativeQuery } from "@/lib/backends/types";
import { formulationGuides } from "@/lib/pipeline/run/guide-bookkeeping";
import type { GuideHit } from "@/lib/pipeline/run/types";

const hit = (query: NativeQuery, matcher: GuideHit["matcher"]): GuideHit => ({
  guideId: "g1",
  question: "How many staff are there?",
  score: 0.7,
  lexicalScore: 0.2,
  matcher,
  kbIds: ["kb1"],
  examples: [{ kbId: "kb1", sourceObject: null, query }],
  actions: [],
  invalidActions: 0,
});

describe("the guides formulation adapts", () => {
  it("take the matcher's word by the kind of source each guide query reads", () => {
    const read = { logit: 4, same: true, sameOnGraph: false };
    const [sql] = formulationGuides([hit({ language: "sql", text: "SELECT COUNT(*) FROM staff" }, read)]);
    expect(sql).toMatchObject({ sameQuestion: true, matcherLogit: 4 });
    const [cypher] = formulationGuides([hit({ language: "cypher", text: "MATCH (s:Staff) RETURN count(s)" }, read)]);
    expect(cypher).toMatchObject({ sameQuestion: false, matcherLogit: 4 });
    const [onGraph] = formulationGuides([
      hit({ language: "sparql", text: "SELECT (COUNT(?s) AS ?n) WHERE { ?s a <Staff> }" }, { ...read, sameOnGraph: true }),
    ]);
    expect(onGraph.sameQuestion).toBe(true);
  });

  it("leave the reading out when no matcher ran", () => {
    const [g] = formulationGuides([hit({ language: "sql", text: "SELECT COUNT(*) FROM staff" }, undefined)]);
    expect(g.sameQuestion).toBeUndefined();
    expect(g.matcherLogit).toBeUndefined();
  });
});
