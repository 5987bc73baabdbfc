import { describe, expect, it } from "vitest";
import { classifyHardness, goldSqlTree, hardnessCountsOf, spiderHardness } from "@/lib/eval/metrics/spider-hardness";

/**
 * Counts worked out by hand from the official rules (evaluation.py: count_component1, count_component2,
 * count_others, eval_hardness) on concert_singer queries; the classes are those the official script
 * prints for the same queries.
 */
const counts = (sql: string) => hardnessCountsOf(goldSqlTree(sql));

describe("Spider hardness (official eval_hardness rules)", () => {
  it("easy: at most one component-1 clause, nothing else", () => {
    // COUNT(*) alone: one aggregation is not "more than one".
    expect(counts("SELECT count(*) FROM singer")).toEqual({ component1: 0, component2: 0, others: 0 });
    expect(spiderHardness("SELECT count(*) FROM singer")).toBe("easy");
    expect(spiderHardness("SELECT name FROM singer WHERE age > 20")).toBe("easy");
    // BETWEEN … AND … is one condition: its AND is not a connective.
    expect(counts("SELECT name FROM singer WHERE age BETWEEN 20 AND 30")).toEqual({ component1: 1, component2: 0, others: 0 });
  });

  it("medium: a second clause, a join, several columns or aggregations", () => {
    // ORDER BY (1) and three columns (others 1).
    expect(counts("SELECT name, country, age FROM singer ORDER BY age DESC")).toEqual({ component1: 1, component2: 0, others: 1 });
    // WHERE (1) + one join (1).
    expect(counts("SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id WHERE T1.year = 2014")).toEqual({
      component1: 2,
      component2: 0,
      others: 0,
    });
    // WHERE (1) + OR (1); two conditions (others 1).
    expect(counts("SELECT name FROM singer WHERE age > 20 OR country = 'France'")).toEqual({ component1: 2, component2: 0, others: 1 });
    // WHERE (1) + LIKE (1).
    expect(counts("SELECT name FROM singer WHERE name LIKE '%a%'")).toEqual({ component1: 2, component2: 0, others: 0 });
    // Three aggregations and three columns: others 2, still medium.
    expect(counts("SELECT max(capacity), min(capacity), avg(capacity) FROM stadium")).toEqual({ component1: 0, component2: 0, others: 2 });
    expect(counts("SELECT name, capacity FROM stadium ORDER BY capacity DESC LIMIT 1")).toEqual({
      component1: 2,
      component2: 0,
      others: 1,
    });
    for (const sql of [
      "SELECT name, country, age FROM singer ORDER BY age DESC",
      "SELECT max(capacity), min(capacity), avg(capacity) FROM stadium",
      "SELECT country, count(*) FROM singer GROUP BY country",
    ]) {
      expect(spiderHardness(sql)).toBe("medium");
    }
  });

  it("HAVING: its conditions' aggregates do not count, its AND does (as in the official script)", () => {
    // join (1) + GROUP BY (1); the HAVING count(*) is not an aggregation for count_others.
    const one = counts(
      "SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id HAVING count(*) >= 2",
    );
    expect(one).toEqual({ component1: 2, component2: 0, others: 0 });
    // The AND between two HAVING conditions passes the official has_agg test once: one "aggregation", not more than one.
    const two = counts(
      "SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id HAVING count(*) >= 2 AND avg(T2.capacity) > 1000",
    );
    expect(two).toEqual({ component1: 2, component2: 0, others: 0 });
    expect(classifyHardness(two)).toBe("medium");
  });

  it("hard: a subquery or set operation with a simple outer query, or three component-1 clauses", () => {
    // NOT IN (subquery): WHERE (1), nested (1); the NOT flag counts as one aggregation (official quirk), not more than one.
    expect(counts("SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)")).toEqual({
      component1: 1,
      component2: 1,
      others: 0,
    });
    expect(spiderHardness("SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)")).toBe("hard");
    expect(spiderHardness("SELECT song_name FROM singer WHERE age > (SELECT avg(age) FROM singer)")).toBe("hard");
    // INTERSECT, UNION, EXCEPT: the right-hand query is one nested component; the outer query is counted alone.
    expect(counts("SELECT name FROM singer WHERE age > 40 INTERSECT SELECT name FROM singer WHERE age < 30")).toEqual({
      component1: 1,
      component2: 1,
      others: 0,
    });
    expect(spiderHardness("SELECT country FROM singer WHERE age > 40 UNION SELECT country FROM singer WHERE age < 30")).toBe("hard");
    expect(
      counts(
        "SELECT name FROM stadium EXCEPT SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id WHERE T1.year = 2014",
      ),
    ).toEqual({
      component1: 0,
      component2: 1,
      others: 0,
    });
    // Two joins (2) + WHERE (1) = 3.
    const sql =
      "SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id JOIN concert AS T3 ON T2.concert_id = T3.concert_id WHERE T3.year = 2014";
    expect(counts(sql)).toEqual({ component1: 3, component2: 0, others: 0 });
    expect(spiderHardness(sql)).toBe("hard");
  });

  it("extra: more clauses, or a subquery beside anything else", () => {
    // join + GROUP BY + ORDER BY + LIMIT = 4.
    expect(
      counts(
        "SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id ORDER BY count(*) DESC LIMIT 1",
      ),
    ).toEqual({
      component1: 4,
      component2: 0,
      others: 0,
    });
    // A subquery and a second WHERE condition.
    const nested = counts("SELECT name FROM singer WHERE country != 'France' AND age NOT IN (SELECT age FROM singer WHERE age > 40)");
    expect(nested).toEqual({ component1: 1, component2: 1, others: 1 });
    expect(classifyHardness(nested)).toBe("extra");
    expect(
      spiderHardness("SELECT name FROM stadium WHERE capacity > (SELECT avg(capacity) FROM stadium) AND highest > 100 ORDER BY name"),
    ).toBe("extra");
    expect(
      spiderHardness(
        "SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id WHERE T1.year = 2014 INTERSECT SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id WHERE T1.year = 2015",
      ),
    ).toBe("extra");
  });

  it("reads a table named like a keyword (Spider's SHOW), and gives null for text that is not SQL", () => {
    expect(spiderHardness("SELECT avg(Attendance) FROM SHOW")).toBe("easy");
    expect(spiderHardness("not a query")).toBeNull();
  });

  it("classifies the boundary counts as eval_hardness does", () => {
    expect(classifyHardness({ component1: 1, component2: 0, others: 0 })).toBe("easy");
    expect(classifyHardness({ component1: 1, component2: 0, others: 2 })).toBe("medium");
    expect(classifyHardness({ component1: 2, component2: 0, others: 1 })).toBe("medium");
    expect(classifyHardness({ component1: 2, component2: 0, others: 2 })).toBe("extra");
    expect(classifyHardness({ component1: 2, component2: 0, others: 3 })).toBe("hard");
    expect(classifyHardness({ component1: 3, component2: 0, others: 2 })).toBe("hard");
    expect(classifyHardness({ component1: 1, component2: 1, others: 0 })).toBe("hard");
    expect(classifyHardness({ component1: 0, component2: 2, others: 0 })).toBe("extra");
    expect(classifyHardness({ component1: 4, component2: 0, others: 0 })).toBe("extra");
  });
});
