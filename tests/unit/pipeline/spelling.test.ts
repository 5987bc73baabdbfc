import { describe, expect, it } from "vitest";
import { type LabelRow, fuzzyMatchScore, inMemoryEntityLookup, typingDistance } from "@/lib/pipeline/entity-lookup";
import { unknownWords } from "@/lib/pipeline/spelling";
import { understandQuestion } from "@/lib/pipeline/stages/understand/classical";

const KB = "kb-sales";
const LABELS: Omit<LabelRow, "normalized">[] = [
  { kbId: KB, label: "orders", kind: "table", ref: "orders", sourceObject: "orders" },
  { kbId: KB, label: "customers", kind: "table", ref: "customers", sourceObject: "customers" },
  { kbId: KB, label: "returned", kind: "value", ref: "orders.status=returned", sourceObject: "orders" },
  { kbId: KB, label: "difference", kind: "column", ref: "orders.difference", sourceObject: "orders" },
  { kbId: KB, label: "Munich", kind: "value", ref: "customers.city=Munich", sourceObject: "customers" },
];
const lookup = inMemoryEntityLookup(LABELS);
const NOW = new Date("2026-01-15T12:00:00Z");

describe("misspelt question words", () => {
  it("counts a swap of neighbouring letters as one slip, and lets the first letter alone fix the range", () => {
    expect(typingDistance("retruned", "returned")).toBe(1);
    expect(typingDistance("oders", "orders")).toBe(1);
    expect(typingDistance("orders", "orders")).toBe(0);
    expect(typingDistance("abcd", "acbd")).toBe(1);
    expect(typingDistance("kitten", "sitting")).toBe(3);
    expect(fuzzyMatchScore("retruned", "returned")).toBeGreaterThan(0.5);
    expect(fuzzyMatchScore("oders", "orders")).toBeGreaterThan(0.5);
    expect(fuzzyMatchScore("oders", "borders")).toBe(0);
  });

  it("tells English words from slips by a dictionary", async () => {
    expect(await unknownWords(["different", "located", "orders", "oders", "retruned", "Munich"])).toEqual(["oders", "retruned"]);
  });

  it("reads a misspelt word as the nearby label of a source and analyses the corrected question", async () => {
    const { intent, notes } = await understandQuestion({
      question: "How many oders were retruned?",
      history: [],
      kbIds: [KB],
      lookup,
      now: NOW,
    });
    expect(intent.question).toBe("How many oders were retruned?");
    expect(intent.completed).toBe("How many orders were returned?");
    expect(intent.entities.map((e) => [e.mention, e.links[0]?.ref])).toEqual([
      ["orders", "orders"],
      ["returned", "orders.status=returned"],
    ]);
    expect(intent.aggregate).toBe("count");
    expect(notes).toContain(
      "Read “oders” as “orders” and “retruned” as “returned”: neither the dictionary nor any source knows the words as typed.",
    );
  });

  it("leaves real words the catalog lacks, names and words of sources outside the user's access as typed", async () => {
    // "different" is one slip from nothing here but two from "difference": an English word is never corrected.
    const real = await understandQuestion({ question: "How many different orders are there?", history: [], kbIds: [KB], lookup, now: NOW });
    expect(real.intent.completed).toBe("How many different orders are there?");
    const outside = await understandQuestion({
      question: "How many oders were retruned?",
      history: [],
      kbIds: ["kb-other"],
      lookup,
      now: NOW,
    });
    expect(outside.intent.completed).toBe("How many oders were retruned?");
    expect(outside.notes).toEqual([]);
  });
});
