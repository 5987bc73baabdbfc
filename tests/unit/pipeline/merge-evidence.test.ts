import { describe, expect, it } from "vitest";
import { mergeIdenticalEvidence } from "@/lib/pipeline/merge-evidence";
import type { Answer, ScoredEvidence } from "@/lib/pipeline/contracts";
import { passage, row } from "./select-fixtures";

const SALES = ["kb-sales", "Aurora sales database"] as const;
const filtered = row(
  ...SALES,
  "orders",
  ["status", "number of orders"],
  ["returned", 7],
  "SELECT 'returned' AS status, COUNT(*) FROM orders WHERE status = 'returned'",
  0,
);
const grouped = row(
  ...SALES,
  "orders",
  ["status", "number of orders"],
  ["returned", 7],
  "SELECT status, COUNT(*) FROM orders GROUP BY status",
  2,
);
const shipped = row(
  ...SALES,
  "orders",
  ["status", "number of orders"],
  ["shipped", 31],
  "SELECT status, COUNT(*) FROM orders GROUP BY status",
  1,
);
const scored = (pieces: ScoredEvidence["piece"][]): ScoredEvidence[] =>
  pieces.map((piece, i) => ({ piece, score: 1 - i / 10, scores: {} }));
const answer = (citations: string[], extra: Partial<Answer> = {}): Answer => ({
  text: "7",
  refrained: false,
  reason: null,
  confidence: 0.8,
  citations,
  candidates: [],
  ...extra,
});

describe("identical evidence cited once", () => {
  it("merges the same row returned by two queries into the better-ranked one, which lists both queries", () => {
    const { evidence, answer: merged } = mergeIdenticalEvidence(scored([filtered, shipped, grouped]), answer([filtered.id, grouped.id]));
    expect(evidence.map((e) => e.piece.id)).toEqual([filtered.id, shipped.id]);
    expect(evidence[0].piece.provenance.query).toBe(filtered.provenance.query);
    expect(evidence[0].piece.provenance.alsoQueries).toEqual([grouped.provenance.query]);
    expect(merged.citations).toEqual([filtered.id]);
    // The input is left as it was (the run keeps its ranked evidence for the trace).
    expect(filtered.provenance.alsoQueries).toBeUndefined();
  });

  it("moves a derivation's operands to the kept copy", () => {
    const operand = { value: 7, text: "7", evidenceId: grouped.id, row: "returned", column: "number of orders" };
    const derivation = {
      operation: "sum" as const,
      operands: [operand],
      expression: "7 = 7",
      result: 7,
      scale: "" as const,
      unit: null,
      proposedBy: "classical" as const,
    };
    const { answer: merged } = mergeIdenticalEvidence(scored([filtered, grouped]), answer([grouped.id], { derivation }));
    expect(merged.citations).toEqual([filtered.id]);
    expect(merged.derivation?.operands[0].evidenceId).toBe(filtered.id);
  });

  it("keeps evidence that only looks alike: another source, another document, another row", () => {
    const otherKb = row("kb-archive", "Sales archive", "orders", ["status", "number of orders"], ["returned", 7], "SELECT 1", 0);
    const a = passage("kb-docs", "Policies", "returns-policy", 0, "Returns are accepted within 30 days.");
    const b = passage("kb-docs", "Policies", "travel-policy", 3, "Returns are accepted within 30 days.");
    const input = scored([filtered, otherKb, a, b, shipped]);
    const out = mergeIdenticalEvidence(input, answer([filtered.id, otherKb.id]));
    expect(out.evidence).toBe(input);
    expect(out.answer.citations).toEqual([filtered.id, otherKb.id]);
  });
});
