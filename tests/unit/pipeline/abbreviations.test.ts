import { describe, expect, it } from "vitest";
import { definedAbbreviations } from "@/lib/pipeline/abbreviations";
import { entityOverlap } from "@/lib/pipeline/scorers";
import { mentionForms } from "@/lib/pipeline/scorers/mentions";
import { intent, mention, passage } from "./select-fixtures";

const DOCS = ["kb-docs", "Aurora policies and reports"] as const;

describe("abbreviations a question defines in parentheses", () => {
  it("finds the words that spell the short form, its first letter starting a word", () => {
    expect(definedAbbreviations("Female carriers of the Apolipoprotein E4 (APOE4) allele age early.")).toEqual([
      { long: "Apolipoprotein E4", short: "APOE4" },
    ]);
    expect(definedAbbreviations("What was the change in Value added tax (VAT) receivables?")).toEqual([
      { long: "Value added tax", short: "VAT" },
    ]);
    expect(definedAbbreviations("AMP-activated protein kinase (AMPK) activation reduces fibrosis.")).toEqual([
      { long: "AMP-activated protein kinase", short: "AMPK" },
    ]);
  });

  it("takes no parenthesis that is not spelled by the words before it", () => {
    expect(definedAbbreviations("What is revenue (in millions) in 2019?")).toEqual([]);
    expect(definedAbbreviations("The total (2019) was higher than the total (XYZ) before.")).toEqual([]);
  });

  it("makes the two names one entity, so a passage using either is about it", () => {
    const q = intent("Genomic sequences responsible for Hutchinson-Gilford progeria syndrome (HGPS) are known.", {
      entities: [mention("Hutchinson-Gilford progeria syndrome"), mention("HGPS")],
    });
    const forms = mentionForms(q);
    expect(forms).toHaveLength(1);
    expect(forms[0].forms).toEqual(expect.arrayContaining(["hutchinson gilford progeria syndrome", "hgps"]));
    // The short form is a word of the question: matching it is a word match the engine had.
    expect(forms[0].wordForms.has("hgps")).toBe(true);
    const long = passage(...DOCS, "a", 0, "Hutchinson-Gilford progeria syndrome is a premature ageing disorder.");
    const short = passage(...DOCS, "b", 0, "HGPS is a premature ageing disorder.");
    expect(entityOverlap(q, [long, short])).toEqual([1, 1]);
    // A short form that is a stopword ("WHO") would match any passage saying "who": it stays out.
    const who = mentionForms(
      intent("The World Health Organization (WHO) data collection is biased.", { entities: [mention("World Health Organization")] }),
    );
    expect(who[0].forms).toEqual(["world health organization"]);
  });
});
