import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { guideMatcherThreshold, matchGuideQuestions } from "@/lib/models/guide-matcher";
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
    const read = await matchGuideQuestions({ scorer, threshold: 1.5 }, "new", ["guide A"]);
    // (guide A, new) = 4; (new, guide A) = -10 + 0 → mean -3.
    expect(read).toEqual([{ logit: -3, same: false }]);
    const even = orderSensitive(() => 2);
    expect(await matchGuideQuestions({ scorer: even, threshold: 1.5 }, "new", ["g1", "g2"])).toEqual([
      { logit: 2, same: true },
      { logit: 2, same: true },
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

  it("asks nothing of the model when there is no guide", async () => {
    const scorer = orderSensitive(() => 0);
    expect(await matchGuideQuestions({ scorer, threshold: 0 }, "new", [])).toEqual([]);
    expect(scorer.calls).toHaveLength(0);
  });
});

describe("the guide matcher's threshold", () => {
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

  it("is the one chosen where the product decides, among the nearest guides, when the report has it", () => {
    withReport({ threshold: chosen(4.5), in_product: { threshold: chosen(3.5) } }, (dir) => expect(guideMatcherThreshold(dir)).toBe(3.5));
  });

  it("is the one over all pairs when the report has no replay, or the replay met no bar", () => {
    withReport({ threshold: chosen(4.5) }, (dir) => expect(guideMatcherThreshold(dir)).toBe(4.5));
    withReport({ threshold: chosen(4.5), in_product: { threshold: null } }, (dir) => expect(guideMatcherThreshold(dir)).toBe(4.5));
  });

  it("refuses a report without a threshold", () => {
    withReport({ in_product: { threshold: chosen(3.5) } }, (dir) => expect(() => guideMatcherThreshold(dir)).toThrow());
  });
});
