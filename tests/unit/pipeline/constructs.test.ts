import { describe, expect, it } from "vitest";
import { analyzeConstructs, askSpan } from "@/lib/pipeline/stages/understand/constructs";
import { countedNounWords } from "@/lib/pipeline/stages/understand/counted-noun";

/** The question's constructs read from its wording alone (understand/constructs.ts). */

describe("the ask span: what the question asks to be returned", () => {
  it.each([
    ["What are the names of the singers who are older than 30?", "names of the singers"],
    ["Show name, country, age for all singers ordered by age.", "name, country, age for all singers"],
    ["What is the name and capacity for the stadium with the highest average attendance?", "name and capacity for the stadium"],
    ["How many singers are from France?", "singers"],
    ["For each stadium, how many concerts play there?", "concerts"],
    [
      "How many countries does each continent have? List the continent id, continent name and the number of countries.",
      "continent id, continent name and the number of countries",
    ],
    ["Which airlines have a flight with source airport AHD?", "airlines"],
  ])("%s → %s", (question, ask) => {
    expect(askSpan(question)?.text).toBe(ask);
  });
});

describe("connectives, negations, count conditions, limits, grouping", () => {
  it("reads or / and / both / but not between conditions, and not 'or more' as a disjunction", () => {
    expect(analyzeConstructs("How many concerts are there in year 2014 or 2015?").connectives.map((c) => c.kind)).toEqual(["or"]);
    expect(analyzeConstructs("Which stadiums had concerts in both 2014 and 2015?").connectives.map((c) => c.kind)).toEqual(["both", "and"]);
    expect(analyzeConstructs("Which airlines fly from APG but not from CVO?").connectives.map((c) => c.kind)).toEqual(["but-not"]);
    expect(analyzeConstructs("Which grades have 4 or more students?").connectives).toEqual([]);
  });

  it("finds negations with what they govern, leaving bounds ('no more than') to the comparisons", () => {
    expect(analyzeConstructs("What are the names of people who are not from Russia?").negations).toMatchObject([
      { cue: "not", scope: "from Russia?" },
    ]);
    expect(analyzeConstructs("Show the stadium names without any concert.").negations).toMatchObject([
      { cue: "without", scope: "any concert." },
    ]);
    expect(analyzeConstructs("Which products cost no more than 100?").negations).toEqual([]);
  });

  it("reads bounds on how many of something a row has (HAVING)", () => {
    expect(analyzeConstructs("Which grades have 4 or more high schoolers?").counts).toMatchObject([
      { op: ">=", value: 4, noun: "high schoolers" },
    ]);
    expect(analyzeConstructs("conductors who have conducted at more than one orchestra").counts).toMatchObject([
      { op: ">", value: 1, noun: "orchestra" },
    ]);
    expect(analyzeConstructs("Which nationalities are shared by at least two people?").counts).toMatchObject([
      { op: ">=", value: 2, noun: "people" },
    ]);
    expect(analyzeConstructs("Find professionals with fewer than 3 treatments").counts).toMatchObject([
      { op: "<", value: 3, noun: "treatments" },
    ]);
  });

  it("reads list limits, ties, distinct and the breakdown", () => {
    expect(analyzeConstructs("List the first 3 orders placed in 1997.").limit).toBe(3);
    expect(analyzeConstructs("What are the top five products?").limit).toBe(5);
    expect(analyzeConstructs("Which product has the highest price?").limit).toBeNull();
    expect(analyzeConstructs("List 3 movies released after 2000.").limit).toBe(3);
    expect(analyzeConstructs("Name the three persons who directed Apollo 13.").limit).toBe(3);
    expect(analyzeConstructs("Which one of the stadiums has the largest capacity?").limit).toBeNull();
    expect(analyzeConstructs("List all the dogs with the highest age.").ties).toBe(true);
    expect(analyzeConstructs("Which dog is the oldest?").ties).toBe(false);
    expect(analyzeConstructs("What are the different countries with singers above age 20?").distinct).toBe(true);
    expect(analyzeConstructs("What was total revenue in 2024 by region?").grouping).toMatchObject({ kind: "by", text: "region" });
    expect(analyzeConstructs("How many singers are from each country?").grouping).toMatchObject({ kind: "each", text: "country" });
    expect(analyzeConstructs("How many orders were placed by customers?").grouping).toBeNull();
    expect(analyzeConstructs("Show the cars ordered by weight.").grouping).toBeNull();
  });

  it("reads what the answers have some of, outside the ask and not negated, with offsets", () => {
    const q = "Which dogs went through any treatments at least once?";
    expect(analyzeConstructs(q).existence).toEqual([{ text: "treatments at", at: q.indexOf("treatments") }]);
    const one = "List the customers with at least one order.";
    expect(analyzeConstructs(one).existence).toEqual([{ text: "order", at: one.indexOf("order") }]);
    // Negated: what the answers lack, not what they have.
    expect(analyzeConstructs("Which stadiums do not have any concert?").existence).toEqual([]);
    expect(analyzeConstructs("Find the owners without any dogs.").existence).toEqual([]);
    // Inside what is asked for: not a condition on the rows.
    expect(analyzeConstructs("Show any two products made in Berlin.").existence).toEqual([]);
  });
});

describe("the nouns whose rows a question counts", () => {
  it("takes the noun after a count phrase and after a ranking by count, with its offset", () => {
    const q = "How many different vendors supply the warehouse?";
    expect(analyzeConstructs(q).countNouns).toEqual([{ kind: "count", noun: "vendors supply", at: q.indexOf("vendors") }]);
    // "Count the number of …" counts what follows "number of", not the words "number of".
    expect(analyzeConstructs("Count the number of vendors.").countNouns).toMatchObject([{ kind: "count", noun: "vendors" }]);
    expect(analyzeConstructs("Count the total number of vendors.").countNouns).toMatchObject([{ kind: "count", noun: "vendors" }]);
    expect(analyzeConstructs("Which director made the greatest number of films?").countNouns).toMatchObject([
      { kind: "count", noun: "films" },
      { kind: "rank", noun: "films" },
    ]);
    expect(analyzeConstructs("List the names of all vendors.").countNouns).toEqual([]);
  });

  it("compares a noun phrase with table names by the phrase and by its first word", () => {
    expect(countedNounWords("Films released")).toEqual(["films released", "films"]);
    expect(countedNounWords("vendors")).toEqual(["vendors"]);
  });
});
