import { describe, expect, it } from "vitest";
import { lemma, lemmaTerms } from "@/lib/pipeline/lemma";

describe("relation lemmas", () => {
  it("brings irregular verb forms and agent nouns to one lemma", () => {
    expect(lemma("made")).toBe("make");
    expect(lemma("makes")).toBe("make");
    expect(lemma("maker")).toBe("make");
    expect(lemma("director")).toBe("direct");
    expect(lemma("wrote")).toBe("write");
    expect(lemma("founder")).toBe("found");
  });

  it("leaves nouns that are not agent nouns alone", () => {
    expect(lemma("jacket")).toBe("jacket");
    expect(lemma("order")).not.toBe("ord");
    expect(lemma("city")).toBe("city");
  });

  it("makes 'makes' and 'made by' share a term, and 'located' meet 'located in'", () => {
    expect(lemmaTerms("Who makes the jacket")).toContain(lemmaTerms("made by")[0]);
    expect(lemmaTerms("where is it located")).toContain(lemmaTerms("located in")[0]);
    expect(lemmaTerms("the maker of the tent")).toContain(lemmaTerms("made by")[0]);
  });
});
