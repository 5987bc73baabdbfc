import { describe, expect, it } from "vitest";
import { useDemoWorkspace } from "../support/demo-workspace";

/**
 * What the answer card says, through the whole classical pipeline on the demo workspace: refusals told by
 * their cause in plain words, explanations that match what is shown, identical evidence cited once.
 */
describe("answer wording (demo workspace)", () => {
  const { ask } = useDemoWorkspace("mosaic-wording-");
  const INTERNAL = /pieces|SQL|aggregate|schema-linking|sparql-pattern|score|threshold|\d\.\d\d/i;

  it("a question whose words no source knows says so, names its words and what to do", async () => {
    const o = await ask("How many zorblaxes were frobnicated?");
    expect(o.candidates).toEqual([]);
    expect(o.answer.refrained).toBe(true);
    expect(o.answer.reason).toMatch(
      /^None of your sources mentions 'zorblaxes' and 'frobnicated', so no source was searched\. Check the spelling/,
    );
    expect(o.answer.reason).not.toMatch(/returned no evidence/);
  });

  it("a misspelt question is read as the sources' words and answered as the question meant", async () => {
    const o = await ask("How many oders were retruned?");
    expect(o.answer.refrained).toBe(false);
    expect(o.answer.text).toBe("7");
  });

  it("a question in German is told that it was not read, not given a reason about the sources' content", async () => {
    const o = await ask("Wie hoch war der Umsatz in Mitteleuropa im Jahr 2025?");
    expect(o.answer.refrained).toBe(true);
    expect(o.answer.reason).toMatch(/^This question looks like it is in German\..*ask the question in English\.$/);
    expect(o.answer.reason).not.toMatch(/Mitteleuropa|region|evidence/i);
  });

  it("never shows the same row or passage twice, whichever queries returned it", async () => {
    // Merging itself is unit-tested (tests/unit/pipeline/merge-evidence.test.ts); here, over whole runs that
    // run several queries per source, no evidence the user sees repeats another.
    for (const question of [
      "How many orders were returned?",
      "What is the status of order 1001?",
      "What is the return window?",
      "Which product has the highest list price?",
    ]) {
      const o = await ask(question);
      const said = o.evidence.map(
        (e) => `${e.piece.provenance.kbName} ${e.piece.provenance.sourceObject ?? ""} ${e.piece.kind} ${e.piece.text}`,
      );
      expect(new Set(said).size, question).toBe(said.length);
      for (const id of o.answer.citations)
        expect(
          o.evidence.some((e) => e.piece.id === id),
          question,
        ).toBe(true);
    }
  });

  it("explains where an answer comes from in plain words", async () => {
    for (const question of [
      "How many orders were returned?",
      "Who is the chief executive of Aurora Outfitters GmbH?",
      "Which customers are in Munich?",
    ]) {
      const o = await ask(question);
      expect(o.answer.refrained).toBe(false);
      expect(o.winner?.reason).toMatch(/matched the question best/);
      expect(o.winner?.reason).not.toMatch(INTERNAL);
      expect(o.winner?.reason).not.toMatch(/\d/);
    }
  });
});
