import { describe, expect, it } from "vitest";
import { parseCsvRecords } from "@/lib/eval/question-file-errors";
import { parseCitedIds, parseSciFactClaims, scifactQuestionsFrom } from "@/lib/eval/suites/scifact";

const HEADER = "id,claim,evidence_doc_id,evidence_label,evidence_sentences,cited_doc_ids";

function claims(csv: string) {
  return parseSciFactClaims(parseCsvRecords(csv, "claims.csv", ["id", "claim", "cited_doc_ids"]), "claims.csv");
}

describe("SciFact claims with BEIR relevance (relevant = cited_doc_ids)", () => {
  it("reads the cited ids in the dataset's numpy print and in plain lists", () => {
    expect(parseCitedIds("[31715818]")).toEqual(["31715818"]);
    expect(parseCitedIds("[ 5152028 11705328]")).toEqual(["5152028", "11705328"]);
    expect(parseCitedIds("[1, 2, 2]")).toEqual(["1", "2"]);
    expect(parseCitedIds("[]")).toEqual([]);
    expect(parseCitedIds("[12 abc]")).toBeNull();
  });

  it("keeps every claim, including those without an evidence abstract, and merges the rows of one claim", () => {
    const parsed = claims(
      [
        HEADER,
        "0,0-dimensional biomaterials lack inductive properties.,,,[],[31715818]",
        "2,1 in 5 million in UK have abnormal PrP positivity.,13734012,CONTRADICT,[4],[13734012]",
        "13,Claim with two cited abstracts.,5152028,SUPPORT,[1],[ 5152028 11705328]",
        "13,Claim with two cited abstracts.,11705328,SUPPORT,[2],[ 5152028 11705328]",
      ].join("\n"),
    );
    expect(parsed.map((c) => [c.id, c.cited])).toEqual([
      ["0", ["31715818"]],
      ["2", ["13734012"]],
      ["13", ["5152028", "11705328"]],
    ]);
    const questions = scifactQuestionsFrom(parsed);
    // Claim 0 has no evidence_doc_id: the old suite dropped it; BEIR keeps it with its cited abstract.
    expect(questions[0]).toMatchObject({ id: "scifact:0", gold: { type: "retrieval-only" }, evidence: { documentIds: ["31715818"] } });
    expect(questions[2].evidence?.documentIds).toEqual(["5152028", "11705328"]);
  });

  it("stops on a broken row, naming the file, the line and what is wrong", () => {
    expect(() => claims(`id,claim\n1,a claim`)).toThrow('claims.csv, line 1: the header has no column "cited_doc_ids"');
    expect(() => claims(`${HEADER}\n1,A claim.,,,[],[12 x]`)).toThrow(
      'claims.csv, line 2: cited_doc_ids "[12 x]" is not a list of document ids',
    );
    expect(() => claims(`${HEADER}\n1,A claim.,,,[],[1]\n2,,,,[],[3]`)).toThrow("claims.csv, line 3: claim 2 has no text");
    expect(() => claims(`${HEADER}\n1,A claim.,,,[],[]`)).toThrow("claims.csv, line 2: claim 1 cites no document");
    expect(() => claims(`${HEADER}\n1,A claim.,,,[],[1]\n1,Another claim.,,,[],[1]`)).toThrow(
      "claims.csv, line 3: claim 1 appears again (first on line 2)",
    );
    expect(() => claims(`${HEADER}\n1,"unterminated,,,[],[1]`)).toThrow(/claims\.csv is not readable CSV/);
    expect(() => claims(HEADER)).toThrow("claims.csv has a header but no rows");
  });
});
