import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BENCHMARK_NAMES } from "@/lib/ingest/benchmarks/load";
import { loadQuestionFile, questionCollectionName } from "@/lib/eval/question-files";

const dir = mkdtempSync(path.join(tmpdir(), "mosaic-question-files-"));
/** A datasets folder with only what a test puts there (no Spider files, no SciFact corpus). */
const datasets = path.join(dir, "datasets");
mkdirSync(datasets);

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

const tatqaContext = (uid: string, questions: unknown[]) => ({
  table: {
    uid,
    table: [
      ["", "2019", "2018"],
      ["Revenue", "1,496.5", "1,200.0"],
    ],
  },
  paragraphs: [{ uid: `${uid}-p1`, order: 1, text: "Revenue grew in 2019." }],
  questions,
});
const tatqaQuestion = (uid: string, over: Record<string, unknown> = {}) => ({
  uid,
  order: 1,
  question: "What was the revenue in 2019?",
  answer: ["1,496.5"],
  derivation: "",
  answer_type: "span",
  answer_from: "table",
  rel_paragraphs: [],
  req_comparison: false,
  scale: "million",
  ...over,
});

describe("question files (--questions): each dataset's own format", () => {
  afterAll(() => undefined);

  it("Spider JSON: questions over the named databases, with the file's name and checksum", () => {
    const text = JSON.stringify([
      { db_id: "perpetrator", question: "How many perpetrators are there?", query: "SELECT count(*) FROM perpetrator" },
      { db_id: "concert_singer", question: "How many singers?", query: "SELECT count(*) FROM singer", query_toks: ["ignored"] },
    ]);
    const loaded = loadQuestionFile("spider", file("held-out.json", text), datasets);
    expect(loaded.ref).toEqual({ name: "held-out.json", sha256: createHash("sha256").update(text).digest("hex") });
    expect(loaded.suite.key).toBe("spider");
    expect(loaded.suite.label).toBe("Spider (text-to-SQL) · held-out.json");
    expect(loaded.suite.questions.map((q) => [q.id, q.goldKbNames[0], q.tags])).toEqual([
      ["spider:perpetrator:0", BENCHMARK_NAMES.spider("perpetrator"), ["db:perpetrator", "hardness:easy"]],
      ["spider:concert_singer:1", BENCHMARK_NAMES.spider("concert_singer"), ["db:concert_singer", "hardness:easy"]],
    ]);
    // Without the dataset's file the gold SQL runs on the registered database.
    expect(loaded.suite.questions[0].gold).toMatchObject({
      type: "query",
      target: { type: "kb", kbName: BENCHMARK_NAMES.spider("perpetrator") },
    });
    expect(loaded.required.map((r) => [r.kbName, r.where])).toEqual([
      [BENCHMARK_NAMES.spider("perpetrator"), "item 1"],
      [BENCHMARK_NAMES.spider("concert_singer"), "item 2"],
    ]);
    // The same file for the RDF suite needs the RDF versions (and the SQL databases its gold runs on).
    const rdf = loadQuestionFile("sparql-from-spider", file("held-out.json", text), datasets);
    expect(rdf.required.map((r) => r.kbName)).toEqual([
      BENCHMARK_NAMES.spiderRdf("perpetrator"),
      BENCHMARK_NAMES.spider("perpetrator"),
      BENCHMARK_NAMES.spiderRdf("concert_singer"),
      BENCHMARK_NAMES.spider("concert_singer"),
    ]);
  });

  it("TAT-QA JSON: the file's contexts become a temporary collection the questions are asked over", () => {
    const loaded = loadQuestionFile(
      "tatqa",
      file(
        "tatqa-test.json",
        JSON.stringify([tatqaContext("t1", [tatqaQuestion("q1"), tatqaQuestion("q2", { answer_type: "arithmetic", answer: 296.5 })])]),
      ),
      datasets,
    );
    const name = questionCollectionName(loaded.ref);
    expect(name).toBe(`Evaluation questions ${loaded.ref.sha256.slice(0, 8)}: tatqa-test.json`);
    expect(loaded.collection).toMatchObject({ name, contexts: [{ table: { uid: "t1" } }] });
    expect(loaded.suite.questions.map((q) => [q.id, q.goldKbNames, q.evidence?.documentIds, q.tags?.[0]])).toEqual([
      ["tatqa:q1", [name], ["t1"], "type:span"],
      ["tatqa:q2", [name], ["t1"], "type:arithmetic"],
    ]);
    expect(loaded.suite.scope!({ name, origin: "user", kind: "DOCUMENTS" })).toBe(true);
    expect(loaded.suite.scope!({ name: BENCHMARK_NAMES.tatqa, origin: "benchmark", kind: "DOCUMENTS" })).toBe(false);
  });

  it("SciFact CSV: claims over the registered abstracts; a cited id outside the corpus is named", () => {
    const loaded = loadQuestionFile(
      "scifact",
      file("claims.csv", "id,claim,cited_doc_ids\n7,A claim.,[4983]\n8,Another claim.,[ 4983 5836]\n"),
      datasets,
    );
    expect(loaded.suite.questions.map((q) => [q.id, q.evidence?.documentIds])).toEqual([
      ["scifact:7", ["4983"]],
      ["scifact:8", ["4983", "5836"]],
    ]);
    expect(loaded.required).toEqual([{ kbName: BENCHMARK_NAMES.scifact, what: "the SciFact abstracts", where: "line 2" }]);
    mkdirSync(path.join(datasets, "scifact"), { recursive: true });
    writeFileSync(path.join(datasets, "scifact", "corpus.csv"), "doc_id,title,abstract,structured\n4983,T,['s'],False\n");
    expect(() =>
      loadQuestionFile(
        "scifact",
        file("claims.csv", "id,claim,cited_doc_ids\n7,A claim.,[4983]\n8,Another claim.,[ 4983 5836]\n"),
        datasets,
      ),
    ).toThrow("claims.csv, line 3: claim 8 cites 5836, which is not in the SciFact corpus");
  });

  it("Text2Cypher CSV: flagged rows are left out with a note, the type column breaks the metrics down", () => {
    const csv = [
      "question,cypher,type,database,syntax_error,timeout,returns_results,false_schema",
      "Which movies did Tom Hanks act in?,MATCH (p:Person {name: 'Tom Hanks'})-[:ACTED_IN]->(m) RETURN m.title,Simple Retrieval Queries,movies,False,False,True,",
      "Broken,MATCH (n RETURN n,Simple Retrieval Queries,movies,True,False,True,",
      "Most voted?,MATCH (m:Movie) RETURN m.title ORDER BY m.votes DESC LIMIT 1,Simple Retrieval Queries,movies,False,False,True,",
      "How many orders?,MATCH (o:Order) RETURN count(o),Simple Aggregation Queries,northwind,False,False,True,",
    ].join("\n");
    const loaded = loadQuestionFile("text2cypher", file("t2c.csv", csv), datasets);
    expect(loaded.suite.questions.map((q) => [q.id, q.tags])).toEqual([
      ["text2cypher:0", ["db:movies", "type:Simple Retrieval Queries"]],
      ["text2cypher:3", ["db:northwind", "type:Simple Aggregation Queries"]],
    ]);
    expect(loaded.notes).toEqual([
      "Left out 1 row of t2c.csv: the dataset flags its gold Cypher (syntax error, timeout, no results or false schema).",
      "Left out 1 row of t2c.csv: its gold Cypher needs Movie.votes, which the movies graph here does not have.",
    ]);
    // Only the three required columns: every row is used.
    expect(
      loadQuestionFile(
        "text2cypher",
        file("t2c-min.csv", "question,cypher,database\nHow many movies?,MATCH (m:Movie) RETURN count(m),movies\n"),
        datasets,
      ).suite.questions,
    ).toHaveLength(1);
  });

  it("stops on a broken file with the file, the line or item, and what is wrong", () => {
    const fails = (suite: string, name: string, text: string) => () => loadQuestionFile(suite, file(name, text), datasets);
    expect(fails("spider", "a.json", '[{"db_id": "x", "question": "q", "query": "SELECT 1"},\n {"db_id": "x" "question": "y"}]')).toThrow(
      /^a\.json is not valid JSON, line 2, column \d+: /,
    );
    expect(fails("spider", "b.json", '{"db_id": "x"}')).toThrow(
      "b.json must hold a JSON array of Spider questions ({db_id, question, query}).",
    );
    expect(fails("spider", "c.json", '[{"db_id": "x", "question": "How many?"}]')).toThrow('c.json, item 1 ("How many?"): has no "query".');
    expect(fails("spider", "d.json", "[]")).toThrow("d.json holds an empty list: there is nothing to evaluate.");
    expect(fails("spider", "e.json", "  \n")).toThrow("is empty");
    expect(fails("tatqa", "f.json", JSON.stringify([tatqaContext("t1", [tatqaQuestion("q1", { answer_type: "guess" })])]))).toThrow(
      'f.json, context 1 (table t1): "questions[1].answer_type" must be one of "span", "multi-span", "arithmetic", "count".',
    );
    expect(
      fails("tatqa", "g.json", JSON.stringify([tatqaContext("t1", [tatqaQuestion("q1")]), tatqaContext("t2", [tatqaQuestion("q1")])])),
    ).toThrow("g.json, context 2 (table t2): question uid q1 is used twice (first in context 1).");
    expect(
      fails(
        "tatqa",
        "h.json",
        JSON.stringify([{ table: { uid: "t1", table: [] }, paragraphs: [], questions: [{ ...tatqaQuestion("q1"), answer: undefined }] }]),
      ),
    ).toThrow('h.json, context 1 (table t1): has no "questions[1].answer".');
    expect(fails("scifact", "i.csv", "id,claim\n1,x\n")).toThrow('i.csv, line 1: the header has no column "cited_doc_ids"');
    expect(fails("text2cypher", "j.csv", "question,cypher,database\nWho?,MATCH (n) RETURN n,recommendations\n")).toThrow(
      'j.csv, line 2: the database "recommendations" is not registered: the Neo4j knowledge base "Neo4j movies and northwind" holds movies and northwind.',
    );
    expect(fails("text2cypher", "k.csv", "question,cypher,database\n,MATCH (n) RETURN n,movies\n")).toThrow(
      "k.csv, line 2: the question is empty.",
    );
    expect(fails("demo", "l.json", "[]")).toThrow(
      '--questions works with the suites spider, sparql-from-spider, tatqa, scifact, text2cypher, not "demo".',
    );
    expect(() => loadQuestionFile("spider", path.join(dir, "missing.json"), datasets)).toThrow(
      `The question file ${path.join(dir, "missing.json")} does not exist.`,
    );
  });
});
