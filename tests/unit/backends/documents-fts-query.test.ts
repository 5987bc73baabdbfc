import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_QUERY_TERMS, buildFtsQuery, queryTerms } from "@/lib/backends/documents/fts-query";

/** Inputs that would be FTS5 syntax (or a syntax error) if spliced into MATCH. */
const HOSTILE = [
  "NEAR(",
  'NEAR("storm" "surge", 2)',
  '"unbalanced',
  "body:storm",
  "heading : storm",
  "{heading body}: storm",
  "storm AND surge",
  "storm OR",
  "NOT storm",
  "- storm",
  "stor*",
  "^storm",
  "(storm",
  "storm)",
  "storm + surge",
  "'); DROP TABLE documents; --",
  '""""',
  "\u0000storm\u0000",
  "AND OR NOT NEAR",
];

describe("buildFtsQuery", () => {
  it("quotes every term and joins them with OR", () => {
    expect(buildFtsQuery("How high was the storm surge?", "en")).toBe('"high" OR "storm" OR "surge"');
  });

  it("searches words that the index stores as one token once, keeping the first spelling", () => {
    // Formulation writes keywords with their stems; the porter tokenizer maps both to one token.
    expect(queryTerms("drugs drug potential potenti indications indic", "en")).toEqual(["drugs", "potential", "indications"]);
    expect(queryTerms("Straße strasse STRASSE", "de")).toEqual(["straße", "strasse"]);
  });

  it("drops a stopword before it can hide a content word with the same token", () => {
    expect(queryTerms("does doe", "en")).toEqual(["doe"]);
  });

  it("keeps function words when the question has nothing else", () => {
    expect(queryTerms("Who are The Who?", "en")).toEqual(["who", "are", "the"]);
  });

  it("keeps stopwords for languages without a stopword list", () => {
    expect(queryTerms("the storm", "de")).toEqual(["the", "storm"]);
  });

  it("returns null when there is no word to search for", () => {
    expect(buildFtsQuery("?!- ()*", "en")).toBeNull();
  });

  it("bounds the number of terms", () => {
    const text = Array.from({ length: 500 }, (_, i) => `term${i}`).join(" ");
    expect(queryTerms(text, "en")).toHaveLength(MAX_QUERY_TERMS);
  });

  it("turns operators and column filters into plain words", () => {
    expect(buildFtsQuery("body:storm AND NEAR(surge", "en")).toBe('"body" OR "storm" OR "near" OR "surge"');
  });

  describe("against a real FTS5 table", () => {
    let db: Database.Database;
    beforeAll(() => {
      db = new Database(":memory:");
      db.exec("CREATE VIRTUAL TABLE t USING fts5 (heading, body, tokenize = 'porter unicode61')");
      db.prepare("INSERT INTO t (heading, body) VALUES (?, ?)").run("Lighthouse log", "The storm surge reached the lower gallery.");
      db.prepare("INSERT INTO t (heading, body) VALUES (?, ?)").run("NOT a heading", "near the body of water");
    });
    afterAll(() => db.close());

    it.each(HOSTILE)("runs %j without a syntax error and matches only words", (input) => {
      const match = buildFtsQuery(input, "en");
      if (match === null) {
        expect(input).not.toMatch(/[\p{L}\p{N}]/u); // only inputs without any word may yield no query
        return;
      }
      expect(() => db.prepare("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t)").all(match)).not.toThrow();
    });

    it("would have been syntax without quoting (the corpus is meaningful)", () => {
      expect(() => db.prepare("SELECT rowid FROM t WHERE t MATCH ?").all("NEAR(")).toThrow(/syntax/);
      expect(() => db.prepare("SELECT rowid FROM t WHERE t MATCH ?").all('"unbalanced')).toThrow();
    });

    it("matches a column name as a word rather than filtering by column", () => {
      const rows = db.prepare("SELECT rowid FROM t WHERE t MATCH ?").all(buildFtsQuery("body:storm", "en")) as { rowid: number }[];
      // Unquoted, "body:storm" would restrict to the body column and miss row 2; quoted it matches both rows.
      expect(rows.map((r) => r.rowid).sort()).toEqual([1, 2]);
    });

    it("scores a word and its stem together as the word alone (one token, counted once)", () => {
      const score = (text: string) =>
        (db.prepare("SELECT bm25(t) AS s FROM t WHERE t MATCH ? ORDER BY rowid").all(buildFtsQuery(text, "en")) as { s: number }[]).map(
          (r) => r.s,
        );
      expect(score("storms storm gallery")).toEqual(score("storm gallery"));
      // Quoted twice, the shared token would have counted twice.
      const twice = db.prepare("SELECT bm25(t) AS s FROM t WHERE t MATCH ?").pluck().get('"storms" OR "storm" OR "gallery"') as number;
      expect(twice).toBeLessThan(score("storm gallery")[0]);
    });

    it("stems quoted terms like the index does", () => {
      const rows = db.prepare("SELECT rowid FROM t WHERE t MATCH ?").all(buildFtsQuery("storms surging", "en")) as { rowid: number }[];
      expect(rows.map((r) => r.rowid)).toEqual([1]);
    });
  });
});
