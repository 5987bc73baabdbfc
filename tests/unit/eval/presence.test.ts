import { describe, expect, it } from "vitest";
import { holdsAnswer, prepareAnswers, presenceRank } from "@/lib/eval/metrics/presence";

describe("answer presence (Quasar AP@k)", () => {
  it("finds an answer phrase in a piece, on token boundaries", () => {
    const a = prepareAnswers(["Anke Vogel"]);
    expect(holdsAnswer("Aurora Outfitters GmbH chief executive Anke Vogel.", a)).toBe(true);
    expect(holdsAnswer("Vogel, Anke", a)).toBe(false);
    expect(holdsAnswer("Ankeberg Vogel", a)).toBe(false);
  });

  it("finds numbers however they are written, at the precision shown", () => {
    expect(holdsAnswer("Query result / number of singer: 6", prepareAnswers(["6"]))).toBe(true);
    expect(holdsAnswer("16 singers", prepareAnswers(["6"]))).toBe(false);
    expect(holdsAnswer("Total sales: $1,496.5", prepareAnswers(["1496.5"]))).toBe(true);
    expect(holdsAnswer("avg(age): 76.67", prepareAnswers(["76.66666666666667"]))).toBe(true);
    expect(holdsAnswer("avg(age): 77", prepareAnswers(["76.66666666666667"]))).toBe(false);
  });

  it("ranks the first piece holding any answer (1-based), null when absent", () => {
    const texts = ["nothing here", "still nothing", "Berlin 160 EUR", "Oslo 210 EUR"];
    expect(presenceRank(texts, prepareAnswers(["210", "Oslo"]))).toBe(4);
    expect(presenceRank(texts, prepareAnswers(["160"]))).toBe(3);
    expect(presenceRank(texts, prepareAnswers(["Tokyo"]))).toBeNull();
    expect(presenceRank(texts, prepareAnswers([]))).toBeNull();
  });
});
