import { describe, expect, it } from "vitest";
import { interleave, seededShuffle } from "@/lib/eval/sample";

describe("seeded sampling", () => {
  const items = Array.from({ length: 50 }, (_, i) => i);

  it("is deterministic per seed and a permutation of the input", () => {
    expect(seededShuffle(items, 7)).toEqual(seededShuffle(items, 7));
    expect(seededShuffle(items, 7)).not.toEqual(seededShuffle(items, 8));
    expect([...seededShuffle(items, 7)].sort((a, b) => a - b)).toEqual(items);
    expect(items[0]).toBe(0); // the input is not changed
  });

  it("interleaves lists so a prefix draws evenly from each", () => {
    expect(interleave<number | string>([[1, 2, 3], ["a"], ["x", "y"]])).toEqual([1, "a", "x", 2, "y", 3]);
  });
});
