import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { guideMatcherThresholds, matchGuideQuestions } from "@/lib/models/guide-matcher";
import type { CrossEncoder } from "@/lib/models/types";

/** A scorer whose logit depends on which text comes first: the matcher must not let the order decide. */
function orderSensitive(logitOf: (first: string, second: string) => number): CrossEncoder & { calls: [string, string][][] } {
  const calls: [string, string][][] = [];
  return {
    calls,
    info: { task: "cross-encoder", name: "test", precision: "int8", sha256: "", bytes: 0, source: "repository", file: "", dimensions: null, maxTokens: 96, id: "test", note: null, graph: null },
    score: async (pairs) => {
      calls.push(pairs);
      return pairs.map(([a, b]) => logitOf(a, b));
    },
  };
}

describe("the guide matcher's reading of guide questions", () => {
  it("averages both orders and compares the mean with the threshold", async () => {
    const scorer = orderSensitive((a, b) => (a.startsWith("guide") ? 4 : 0) + (b === "new" ? 0 : -10));
    const read = await matchGuideQuestions({ scorer, thresholds: { sql: 1.5, graph: 1.5 } }, "new", ["guide A"]);
    // (guide A, new) = 4; (new, guide A) = -10 + 0 → mean -3.
    expect(read).toEqual([{ logit: -3, same: false, sameOnGraph: false }]);
    const even = orderSensitive(() => 2);
    expect(await matchGuideQuestions({ scorer: even, thresholds: { sql: 1.5, graph: 1.5 } }, "new", ["g1", "g2"])).toEqual([
      { logit: 2, same: true, sameOnGraph: true },
      { logit: 2, same: true, sameOnGraph: true },
    ]);
    // One model call for every guide, both orders.
    expect(even.calls).toEqual([
      [
        ["g1", "new"],
        ["new", "g1"],
        ["g2", "new"],
        ["new", "g2"],
      ],
    ]);
  });

  it("reads a graph's guide as the same question only when the report gives graphs a threshold", async () => {
    const scorer = orderSensitive(() => 4);
    expect(await matchGuideQuestions({ scorer, thresholds: { sql: 3.5, graph: null } }, "new", ["g"])).toEqual([
      { logit: 4, same: true, sameOnGraph: false },
    ]);
    expect(await matchGuideQuestions({ scorer, thresholds: { sql: 3.5, graph: 4.5 } }, "new", ["g"])).toEqual([
      { logit: 4, same: true, sameOnGraph: false },
    ]);
  });

  it("asks nothing of the model when there is no guide", async () => {
    const scorer = orderSensitive(() => 0);
    expect(await matchGuideQuestions({ scorer, thresholds: { sql: 0, graph: 0 } }, "new", [])).toEqual([]);
    expect(scorer.calls).toHaveLength(0);
  });
});

describe("the guide matcher's thresholds", () => {
  const chosen = (threshold: number) => ({ threshold, precision: 0.9, recall: 0.5 });
  const withReport = (report: unknown, read: (dir: string) => void) => {
    const dir = mkdtempSync(path.join(tmpdir(), "matcher-report-"));
    try {
      writeFileSync(path.join(dir, "training-report.json"), JSON.stringify(report));
      read(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it("are the ones chosen where the product decides, among the nearest guides, when the report has it", () => {
    withReport({ threshold: chosen(4.5), in_product: { threshold: chosen(3.5) } }, (dir) =>
      expect(guideMatcherThresholds(dir)).toEqual({ sql: 3.5, graph: null }),
    );
    withReport({ threshold: chosen(4.5), in_product: { threshold: chosen(3.5), graph: { threshold: chosen(5) } } }, (dir) =>
      expect(guideMatcherThresholds(dir)).toEqual({ sql: 3.5, graph: 5 }),
    );
  });

  it("are the one over all pairs, and none for graphs, when the report has no replay, or the replay met no bar", () => {
    withReport({ threshold: chosen(4.5) }, (dir) => expect(guideMatcherThresholds(dir)).toEqual({ sql: 4.5, graph: null }));
    withReport({ threshold: chosen(4.5), in_product: { threshold: null, graph: { threshold: null } } }, (dir) =>
      expect(guideMatcherThresholds(dir)).toEqual({ sql: 4.5, graph: null }),
    );
  });

  it("refuses a report without a threshold", () => {
    withReport({ in_product: { threshold: chosen(3.5) } }, (dir) => expect(() => guideMatcherThresholds(dir)).toThrow());
  });
});
