import { describe, expect, it } from "vitest";
import {
  COMBINED_WEIGHTS,
  ENTITY_MENTION_BOOST,
  UnknownScorerError,
  answerTypeScorer,
  bm25EntityScorer,
  combinedScorer,
  relationFit,
  relationFitScorer,
  defaultScorers,
  entityOverlapScorer,
  expectedTypes,
  scorerByName,
  scorerRegistry,
} from "@/lib/pipeline/scorers";
import type { EvidenceScorer } from "@/lib/pipeline/contracts";
import { intent, mention, passage, path, row, triple } from "./select-fixtures";

const MOVIES = ["kb-movies", "Movies graph"] as const;
const DOCS = ["kb-docs", "Aurora policies and reports"] as const;
const SALES = ["kb-sales", "Aurora sales database"] as const;
const GRAPH = ["kb-graph", "Aurora product and organisation graph"] as const;

const hanks = mention("Tom Hanks", [{ kbId: "kb-movies", label: "Tom Hanks", kind: "node", ref: "n-hanks" }]);

describe("scorer registry", () => {
  it("names the lexical scorers so configuration can refer to them, and the round names stand for their classical choice", () => {
    expect(Object.keys(defaultScorers()).sort()).toEqual([
      "answer-type",
      "bm25",
      "bm25-entity",
      "combined",
      "cross-encoder",
      "entity-overlap",
      "hybrid",
      "relation-fit",
    ]);
    for (const [name, scorer] of Object.entries(defaultScorers()))
      if (name !== "hybrid" && name !== "cross-encoder") expect(scorer.name).toBe(name);
    expect(scorerByName("combined")).toBe(combinedScorer);
    // Without models the first round is bm25-entity and the cross-encoder's slot is the classical fusion.
    expect(scorerByName("hybrid").name).toBe("bm25-entity");
    expect(scorerByName("cross-encoder")).toBe(combinedScorer);
    expect(() => scorerByName("dense")).toThrow(UnknownScorerError);
    expect(() => scorerByName("dense")).toThrow(/known scorers: .*bm25-entity/);
  });

  it("takes an async, batch-based scorer (a cross-encoder later) beside the defaults", async () => {
    const crossEncoder: EvidenceScorer = { name: "cross-encoder", score: async (_i, pieces) => pieces.map((p) => p.text.length) };
    const registry = scorerRegistry(crossEncoder);
    expect(scorerByName("cross-encoder", registry)).toBe(crossEncoder);
    expect(scorerByName("bm25", registry).name).toBe("bm25");
  });
});

describe("bm25-entity", () => {
  it("prefers the piece that names the question's entity over one that repeats part of its name", async () => {
    const q = intent("Which movies did Tom Hanks act in?", { entities: [hanks] });
    const named = passage(...DOCS, "a", 0, "Tom Hanks acted in Cast Away and in Big.", ["Tom Hanks"]);
    const partial = passage(...DOCS, "b", 0, "Hanks, Hanks and more Hanks: the movies of a family of actors who act.", ["Hanks"]);
    const unrelated = passage(...DOCS, "c", 0, "Returns are accepted within 30 days.");
    const [a, b, c] = await bm25EntityScorer.score(q, [named, partial, unrelated]);
    expect(a).toBeGreaterThan(b);
    expect(c).toBe(0);
    // Without entities it is plain BM25 coverage: no boost anywhere.
    const [a2] = await bm25EntityScorer.score(intent("Which movies did Tom Hanks act in?"), [named, partial, unrelated]);
    expect(a - a2).toBeCloseTo(ENTITY_MENTION_BOOST, 5);
  });
});

describe("entity-overlap", () => {
  it("counts exact names, linked labels and linked references fully, partial names by half", async () => {
    const nyc = mention("NYC", [{ kbId: "kb-graph", label: "New York City", ref: "http://aurora.example/loc/nyc" }]);
    const q = intent("Who are Tom Hanks's co-stars and what is in NYC?", { entities: [hanks, nyc] });
    const full = passage(...DOCS, "a", 0, "Tom Hanks filmed Big in New York City.", ["Tom Hanks", "New York City"]);
    const halfOfOne = passage(...DOCS, "b", 0, "Colin Hanks is an actor.", ["Colin Hanks"]);
    const byRef = triple(
      ...GRAPH,
      ["http://aurora.example/org/aurora-us", "Aurora US"],
      ["http://aurora.example/locatedIn", "located in"],
      ["http://aurora.example/loc/nyc", "NY"],
    );
    const [f, h, r] = await entityOverlapScorer.score(q, [full, halfOfOne, byRef]);
    expect(f).toBe(1);
    // "Hanks" is one of the two words of "Tom Hanks", counted at half, for one of the two mentions.
    expect(h).toBeCloseTo(0.125, 5);
    expect(r).toBeCloseTo(0.5, 5);
    expect(await entityOverlapScorer.score(intent("anything"), [full])).toEqual([0]);
  });
});

describe("answer-type fit", () => {
  const released = path(...MOVIES, [{ id: "m1", label: "Movie", caption: "Cast Away", properties: { released: 2000 } }], []);
  const dateText = passage(...DOCS, "a", 0, "The Oslo store opened on March 3, 2021 after a long renovation.");
  const yearOnly = passage(...DOCS, "b", 0, "Our 2025 report covers sales.");
  const noDate = passage(...DOCS, "c", 0, "Returns are accepted with a receipt.");
  const count = row(...SALES, "Query result", ["count(*)"], [6], "SELECT count(*) FROM singer", 0);
  const idOnly = row(...SALES, "orders", ["order_id"], [17], "SELECT order_id FROM orders", 0);
  const person = path(
    ...MOVIES,
    [
      { id: "p1", label: "Person", caption: "Tom Hanks" },
      { id: "m1", label: "Movie", caption: "Cast Away" },
    ],
    ["ACTED_IN"],
  );
  const personText = passage(...DOCS, "d", 0, "The report was signed by Maria Lindqvist, chief financial officer.");
  const revenue = row(...SALES, "regions", ["name", "revenue"], ["Nordics", 1250000], "SELECT name, revenue FROM regions", 0);
  const country = row(...SALES, "customers", ["name", "country"], ["Fjell AB", "Norway"], "SELECT name, country FROM customers", 0);
  const percentText = passage(...DOCS, "e", 0, "Revenue grew 12% in the DACH region.");

  const fit = async (types: Parameters<typeof intent>[1], pieces: Parameters<typeof answerTypeScorer.score>[1]) =>
    answerTypeScorer.score(intent("q", types), pieces);

  it("when → dates: date properties and parsable dates above bare years, above none", async () => {
    const [p, t, y, n] = await fit({ answerTypes: ["date"] }, [released, dateText, yearOnly, noDate]);
    expect(p).toBe(1);
    expect(t).toBe(0.8);
    expect(y).toBeGreaterThan(n);
    expect(n).toBe(0);
  });

  it("how many → counts: an aggregate cell fits best, an id column barely", async () => {
    const [c, id, text] = await fit({ answerTypes: ["count"], aggregate: "count" }, [count, idOnly, noDate]);
    expect(c).toBe(1);
    expect(id).toBeLessThan(c);
    expect(text).toBe(0);
    expect(expectedTypes(intent("q", { aggregate: "sum" }))).toEqual(["number"]);
  });

  it("who → people: a Person node, a known first name in text; money, places and percents by field and form", async () => {
    const singer = row(
      "kb-concerts",
      "Spider: concert_singer",
      "singer",
      ["Singer_ID", "Name", "Age"],
      [1, "Joe Sharp", 52],
      "SELECT * FROM singer",
      0,
    );
    const stadium = row(
      "kb-concerts",
      "Spider: concert_singer",
      "stadium",
      ["Stadium_ID", "Name"],
      [1, "Stark's Park"],
      "SELECT * FROM stadium",
      0,
    );
    const [node, text, none, singerRow, stadiumRow] = await fit({ answerTypes: ["person"] }, [person, personText, noDate, singer, stadium]);
    expect(node).toBe(1);
    expect(text).toBe(0.8);
    expect(none).toBe(0);
    // A name in a table of people (a role word as table name) names a person; a stadium's does not.
    expect(singerRow).toBe(0.9);
    expect(stadiumRow).toBe(0);
    expect(await fit({ answerTypes: ["money"] }, [revenue, noDate])).toEqual([1, 0]);
    expect(await fit({ answerTypes: ["location"] }, [country, noDate])).toEqual([1, 0]);
    expect((await fit({ answerTypes: ["percent"] }, [percentText, yearOnly]))[0]).toBe(1);
    expect(await fit({}, [person, count])).toEqual([0, 0]);
  });

  it("how many products → a figure whose column is in years does not fit; a count column does", async () => {
    const counted = row(...SALES, "Query result", ["category", "number of products"], ["Footwear", 2], "SELECT …", 0);
    const warranty = row(
      ...DOCS,
      "Return window and warranty by product category",
      ["Category", "Warranty (years)"],
      ["Footwear", 2],
      "footwear",
      0,
    );
    const q = intent("How many products are in the Footwear category?", { answerTypes: ["count"], aggregate: "count" });
    const [c, w] = await answerTypeScorer.score(q, [counted, warranty]);
    expect(c).toBe(1);
    expect(w).toBe(0.4);
    // The same warranty row fits "how many years".
    const [, years] = await answerTypeScorer.score(
      intent("How many years of warranty do backpacks have?", { answerTypes: ["count"], aggregate: "count" }),
      [counted, warranty],
    );
    expect(years).toBe(0.7);
  });
});

describe("combined", () => {
  it("mixes BM25 coverage, entity overlap and answer-type fit, and exposes the parts", async () => {
    const q = intent("When did Tom Hanks's Cast Away come out?", { entities: [hanks], answerTypes: ["date"] });
    const answer = path(
      ...MOVIES,
      [
        { id: "n-hanks", label: "Person", caption: "Tom Hanks" },
        { id: "m1", label: "Movie", caption: "Cast Away", properties: { released: 2000 } },
      ],
      ["ACTED_IN"],
    );
    const talk = passage(...DOCS, "x", 0, "Cast Away is a film people still talk about.");
    const { total, parts } = await combinedScorer.scoreParts(q, [answer, talk]);
    expect(Object.keys(parts).sort()).toEqual(Object.keys(COMBINED_WEIGHTS).sort());
    expect(total[0]).toBeGreaterThan(total[1]);
    const expected =
      COMBINED_WEIGHTS.bm25 * parts.bm25[0] +
      COMBINED_WEIGHTS["entity-overlap"] * parts["entity-overlap"][0] +
      COMBINED_WEIGHTS["answer-type"] * parts["answer-type"][0] +
      COMBINED_WEIGHTS["relation-fit"] * parts["relation-fit"][0];
    expect(total[0]).toBeCloseTo(expected, 10);
    expect(await combinedScorer.score(q, [answer, talk])).toEqual(total);
  });
});

describe("relation-fit", () => {
  const jacket: [string, string] = ["ex:fjord", "Fjord Down Jacket"];
  const madeBy = triple(...GRAPH, jacket, ["ex:madeBy", "made by"], ["ex:fjelltex", "Fjelltex Textiles"]);
  const category = triple(...GRAPH, jacket, ["ex:inCategory", "in category"], ["ex:jackets", "Jackets"]);
  const returns = row(...DOCS, "Return windows", ["Category", "Return window (days)"], ["Tents", 60], "search", 0, "search");
  const talk = passage(...DOCS, "x", 0, "The Fjord Down Jacket is made in Norway.");

  it("scores the fact along the asked relation above the entity's other facts, through lemmas", async () => {
    const q = intent("Who makes the Fjord Down Jacket?", { relation: "makes" });
    expect(await relationFitScorer.score(q, [madeBy, category, talk])).toEqual([1, 0, 0]);
  });

  it("reads row headers as relation names", () => {
    const [fit] = relationFit(intent("What is the return window for tents?", { relation: "return window" }), [returns]);
    expect(fit).toBeGreaterThan(0.7);
  });

  it("is 0 for every piece when the question names no relation", () => {
    expect(relationFit(intent("Fjord Down Jacket"), [madeBy, category, returns])).toEqual([0, 0, 0]);
  });
});

describe("what a scorer repeats of a search engine's ranking and what is new evidence", () => {
  const DOCS = ["kb-docs", "Aurora policies and reports"] as const;

  it("a collection phrase points at one document it occurs in, not at the thing: that document gets no credit beyond the word; an inflection of a question word is that word", async () => {
    const q = intent("Does ATM signalling protect cells from DNA damage?", {
      entities: [
        mention("ATM", [{ kbId: "kb-docs", label: "ATM", kind: "label", ref: "atm-doc", sourceObject: "collection" }]),
        mention("cell", [{ kbId: "kb-docs", label: "Cells", kind: "label", ref: "cells-doc", sourceObject: "collection" }]),
        mention("ataxia review", [
          { kbId: "kb-docs", label: "Ataxia telangiectasia: a review", kind: "document", ref: "review-doc", sourceObject: "collection" },
        ]),
      ],
    });
    const text = "ATM signalling protects cells after DNA damage.";
    const phraseDoc = passage(...DOCS, "atm-doc", 0, text);
    const otherDoc = passage(...DOCS, "other-doc", 0, text);
    const pluralDoc = passage(...DOCS, "cells-doc", 0, text);
    const titled = passage(...DOCS, "review-doc", 0, text);
    const { total, repeated } = await bm25EntityScorer.scoreParts(q, [phraseDoc, otherDoc, pluralDoc, titled]);
    const fresh = total.map((t, i) => t - repeated![i]);
    expect(fresh[0]).toBeCloseTo(0);
    expect(fresh[1]).toBeCloseTo(0);
    // "Cells" is the question's "cells" (and its mention "cell"): a word the engine matched.
    expect(fresh[2]).toBeCloseTo(0);
    // A document titled by the mention is about it: its reference is new evidence.
    expect(fresh[3]).toBeCloseTo(ENTITY_MENTION_BOOST / 3);
  });

  it("a name that is one word of the question is a word match the engine had; a name of several words, another name or a KB reference is new", async () => {
    const q = intent("Does IED raise mortality in inflammatory eye disease?", {
      entities: [
        mention("IED"),
        mention("inflammatory eye disease"),
        mention("NYC", [{ kbId: "kb-docs", label: "New York City", ref: "doc-ref" }]),
      ],
    });
    const oneWord = passage(...DOCS, "a", 0, "IED raised mortality.");
    const phrase = passage(...DOCS, "b", 0, "Mortality in inflammatory eye disease.");
    const scattered = passage(...DOCS, "c", 0, "Eye drops for an inflammatory disease.");
    const otherName = passage(...DOCS, "d", 0, "A cohort in New York City.");
    const pieces = [oneWord, phrase, scattered, otherName];
    const { total, repeated } = await bm25EntityScorer.scoreParts(q, pieces);
    const fresh = total.map((t, i) => t - repeated![i]);
    expect(fresh[0]).toBeCloseTo(0);
    expect(fresh[1]).toBeCloseTo(ENTITY_MENTION_BOOST / 3);
    expect(fresh[2]).toBeCloseTo(0);
    expect(fresh[3]).toBeCloseTo(ENTITY_MENTION_BOOST / 3);
    // Entity overlap: the one-word name and the scattered words of the phrase (a partial match) repeat the engine's word matches.
    const combined = await combinedScorer.scoreParts(q, pieces);
    const overlapFresh = combined.total.map(
      (t, i) =>
        t -
        combined.repeated![i] -
        COMBINED_WEIGHTS["answer-type"] * combined.parts["answer-type"][i] -
        COMBINED_WEIGHTS["relation-fit"] * combined.parts["relation-fit"][i],
    );
    expect(overlapFresh[0]).toBeCloseTo(0);
    expect(overlapFresh[2]).toBeCloseTo(0);
    expect(overlapFresh[1]).toBeCloseTo(COMBINED_WEIGHTS["entity-overlap"] / 3);
    expect(overlapFresh[3]).toBeCloseTo(COMBINED_WEIGHTS["entity-overlap"] / 3);
  });
});
