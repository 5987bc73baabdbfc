import { describe, expect, it } from "vitest";
import { closestTable, NOUN_TABLE_FLOOR, NOUN_TABLE_MARGIN } from "@/lib/pipeline/stages/formulate/noun-tables";
import decision from "@/lib/data/counted-noun-meaning.json";
import { namesAKind } from "@/lib/pipeline/stages/understand/counted-noun";

const cosines = (entries: [string, number][]) => new Map(entries);

describe("the table a count noun names by meaning", () => {
  it("reads its floor and margin from the fitted decision, which recorded how it did on held-out databases", () => {
    expect(NOUN_TABLE_FLOOR).toBe(decision.floor);
    expect(NOUN_TABLE_MARGIN).toBe(decision.margin);
    expect(decision.training.precision).toBeGreaterThanOrEqual(0.9);
    expect(decision.training.leaveOneDatabaseOut.taken).toBeGreaterThan(0);
  });

  it("takes the closest table only when it reaches the floor and stands the margin above the next", () => {
    const above = NOUN_TABLE_FLOOR + 0.05;
    expect(
      closestTable(
        cosines([
          ["movie", above],
          ["person", 0.2],
        ]),
      ),
    ).toBe("movie");
    expect(
      closestTable(
        cosines([
          ["movie", NOUN_TABLE_FLOOR - 0.01],
          ["person", 0.2],
        ]),
      ),
    ).toBeNull();
    expect(closestTable(cosines([["movie", above]]))).toBe("movie");
    expect(closestTable(cosines([]))).toBeNull();
    // Of two tables above the floor, the closer one, when it stands the margin above the other.
    expect(
      closestTable(
        cosines([
          ["person", above],
          ["movie", above + NOUN_TABLE_MARGIN + 0.01],
        ]),
      ),
    ).toBe("movie");
  });

  it("places by meaning only nouns that name a kind of row, not a thing by its name", () => {
    expect(namesAKind("films")).toBe(true);
    expect(namesAKind("TV channels")).toBe(true);
    expect(namesAKind("Acme Air flights")).toBe(false);
    expect(namesAKind("flights of Acme")).toBe(false);
  });
});
