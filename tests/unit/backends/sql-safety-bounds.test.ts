import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { QueryRejectedError, QuerySyntaxError } from "@/lib/backends/errors";
import { checkSqlSafety, type SqlDialect } from "@/lib/backends/sql";
import { demoQuestions } from "@/lib/eval/suites/demo";

/**
 * Issue 16: every check is bounded. Cheap token checks refuse what is too long, unbalanced or too deeply
 * nested before any parser sees it; parsing runs in a helper process with a time budget, so a text that
 * sends node-sql-parser into exponential backtracking costs that process, never the server's event loop.
 * And allow, don't block must not refuse what questions need: every Spider gold query and every demo
 * gold query passes.
 */

/** Counts event-loop turns while `work` runs: a blocked loop turns zero times. */
async function loopTurnsDuring<T>(work: () => Promise<T>): Promise<{ result: T | Error; turns: number; ms: number }> {
  let turns = 0;
  const timer = setInterval(() => turns++, 10);
  const started = performance.now();
  let result: T | Error;
  try {
    result = await work();
  } catch (e) {
    result = e as Error;
  }
  clearInterval(timer);
  return { result, turns, ms: performance.now() - started };
}

describe("SQL safety check: bounded work", () => {
  it("refuses the unbalanced-parenthesis bomb at once, before any parser (15 froze the server for 7.5 s)", async () => {
    for (const n of [15, 17, 20, 25]) {
      for (const dialect of ["sqlite", "postgres"] as SqlDialect[]) {
        const sql = `SELECT ${"(".repeat(n)}1`;
        const started = performance.now();
        await expect(checkSqlSafety(sql, dialect)).rejects.toThrow(new RegExp(`${n} parentheses are opened but never closed`));
        expect(performance.now() - started).toBeLessThan(200);
      }
    }
    await expect(checkSqlSafety("SELECT 1))", "sqlite")).rejects.toThrow(QuerySyntaxError);
  });

  it("refuses nesting deeper than the limit and texts longer than the limit, naming both", async () => {
    const deep = `SELECT ${"(".repeat(65)}1${")".repeat(65)}`;
    await expect(checkSqlSafety(deep, "postgres")).rejects.toThrow(
      "Query refused: the query nests parentheses 65 levels deep, and at most 64 are allowed; write it more simply.",
    );
    const long = `SELECT '${"x".repeat(25_000)}'`;
    await expect(checkSqlSafety(long, "sqlite")).rejects.toThrow(/the query is 25,009 characters long, and at most 20,000 are allowed/);
    // Parentheses inside strings and comments are not nesting.
    await expect(checkSqlSafety(`SELECT '${"(".repeat(100)}' /* ${"(".repeat(100)} */`, "sqlite")).resolves.toBeTruthy();
  });

  it("stops a balanced text that backtracks exponentially at the time budget, while the event loop keeps turning", async () => {
    // Balanced, within the nesting limit, and still exponential for node-sql-parser's grammars (about 20 s at 16 levels).
    const bomb = `SELECT ${"(".repeat(16)}1,${")".repeat(16)}`;
    const { result, turns, ms } = await loopTurnsDuring(() => checkSqlSafety(bomb, "sqlite", { limits: { checkTimeoutMs: 800 } }));
    expect(result).toBeInstanceOf(QueryRejectedError);
    expect((result as Error).message).toBe(
      "Query refused: the query is too complex to check within 0.8 s; write it more simply (fewer nested parentheses or subqueries).",
    );
    expect(ms).toBeLessThan(800 + 3_000);
    // At 10 ms per turn, a free loop turns dozens of times in 800 ms; a blocked one not at all.
    expect(turns).toBeGreaterThan(20);
    // The checker that overran was replaced: the next check works.
    await expect(checkSqlSafety("SELECT 1", "sqlite", { limits: { checkTimeoutMs: 5_000 } })).resolves.toMatchObject({
      normalized: "SELECT 1",
    });
  });

  it("keeps checking other queries while one bomb waits for its deadline", async () => {
    // Order, not wall-clock time: a plain query checked after the bomb must settle before the bomb's
    // deadline. A checker that queued behind the bomb would settle it only after the bomb was refused.
    let bombSettled = false;
    const bomb = checkSqlSafety(`SELECT ${"(".repeat(17)}1,${")".repeat(17)}`, "sqlite", { limits: { checkTimeoutMs: 4_000 } }).finally(
      () => {
        bombSettled = true;
      },
    );
    bomb.catch(() => undefined); // awaited below; keeps a failed assertion from also reporting an unhandled rejection
    await expect(
      checkSqlSafety("SELECT Name FROM singer WHERE Age > 30", "sqlite", { limits: { checkTimeoutMs: 4_000 } }),
    ).resolves.toBeTruthy();
    expect(bombSettled).toBe(false);
    await expect(bomb).rejects.toThrow(/too complex to check/);
  });

  it("refuses a long chain of operators as too complex or accepts it, but never hangs or overflows the caller's stack", async () => {
    const chain = `SELECT ${Array.from({ length: 4_000 }, () => "1").join(" + ")}`;
    const { result, ms } = await loopTurnsDuring(() => checkSqlSafety(chain, "postgres"));
    expect(result instanceof Error ? result : null).toSatisfy((e: Error | null) => e === null || e instanceof QueryRejectedError);
    expect(ms).toBeLessThan(5_000);
  });
});

const DATASETS = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");
const SPIDER_DEV = path.join(DATASETS, "spider", "dev-questions.json");

describe("SQL safety check: allow, don't block what questions need", () => {
  it.skipIf(!existsSync(SPIDER_DEV))("accepts every Spider dev gold query (SQLite)", async () => {
    const gold = JSON.parse(readFileSync(SPIDER_DEV, "utf8")) as { db_id: string; query: string }[];
    expect(gold.length).toBeGreaterThan(400);
    const refused: string[] = [];
    for (const q of gold) {
      try {
        await checkSqlSafety(q.query, "sqlite");
      } catch (e) {
        refused.push(`${q.db_id}: ${q.query} → ${(e as Error).message}`);
      }
    }
    expect(refused).toEqual([]);
  });

  it("accepts every SQL gold query of the demo suite", async () => {
    const sqlGold = demoQuestions().flatMap((q) => (q.gold.type === "query" && q.gold.language === "sql" ? [q.gold.text] : []));
    expect(sqlGold.length).toBeGreaterThan(5);
    for (const text of sqlGold) await expect(checkSqlSafety(text, "sqlite"), text).resolves.toBeTruthy();
  });
});
