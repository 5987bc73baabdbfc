import { describe, expect, it } from "vitest";
import {
  explainUnreadQuestion,
  languageName,
  unreadQuestionReason,
  withSourcesSearched,
} from "@/lib/pipeline/stages/answer/unread-question";
import type { Answer, Candidate } from "@/lib/pipeline/contracts";
import { intent } from "./select-fixtures";

const refused: Answer = {
  text: "Not found in the sources.",
  refrained: true,
  reason: "No evidence was found; try other knowledge bases or rephrase the question.",
  confidence: 0,
  citations: [],
  candidates: [],
};
const sales = { kbId: "kb-sales", kbName: "Aurora sales database" } as Candidate;

describe("refusals told by their cause", () => {
  it("a question no source knows the words of names those words and says what to do, not that the sources returned nothing", () => {
    // The understand stage's keywords: the words searched for, with their stems.
    const misspelt = intent("How many oders were retruned?", { keywords: ["oders", "oder", "retruned", "retrun"] });
    const reason = unreadQuestionReason(misspelt, []);
    expect(reason).toBe(
      "None of your sources mentions 'oders' and 'retruned', so no source was searched. Check the spelling, or choose the knowledge bases to search under “Knowledge bases” and ask again.",
    );
    expect(explainUnreadQuestion(refused, misspelt, []).reason).toBe(reason);
  });

  it("a question in another language says so and asks for English, whatever the sources returned", () => {
    const reason = unreadQuestionReason(intent("Wie hoch war der Umsatz in Mitteleuropa?", { language: "de" }), [sales]);
    expect(reason).toMatch(/^This question looks like it is in German\. .* Please ask the question in English\.$/);
    expect(languageName("fr")).toBe("French");
  });

  it("leaves answers, and refusals with sources searched, to the answer stage", () => {
    const answered: Answer = { ...refused, text: "7", refrained: false, reason: null };
    expect(explainUnreadQuestion(answered, intent("How many oders were retruned?"), [])).toBe(answered);
    expect(explainUnreadQuestion(refused, intent("How many orders were returned?"), [sales])).toBe(refused);
    expect(unreadQuestionReason(intent("?"), [])).toMatch(/no words to look up/);
  });

  it("a refusal names the sources it searched, unless its reason already does", () => {
    const docs = { kbId: "kb-docs", kbName: "Aurora policies and reports" } as Candidate;
    const missing = { ...refused, reason: "None of the sources found mentions 'Asia'" };
    expect(withSourcesSearched(missing, [sales, docs, sales]).reason).toBe(
      "None of the sources found mentions 'Asia'. Sources searched: Aurora sales database; Aurora policies and reports.",
    );
    const named = { ...refused, reason: "'Asia' could not be found in Aurora sales database, so the query could not be restricted to it." };
    expect(withSourcesSearched(named, [sales, docs])).toBe(named);
    expect(withSourcesSearched(refused, [])).toBe(refused);
    const answered: Answer = { ...refused, text: "7", refrained: false, reason: null };
    expect(withSourcesSearched(answered, [sales])).toBe(answered);
  });
});
