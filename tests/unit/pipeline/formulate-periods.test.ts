import { describe, expect, it } from "vitest";
import { checkSqlSafety } from "@/lib/backends/sql";
import type { KbStructure } from "@/lib/backends/types";
import { formulateSql, noAdjustments } from "@/lib/pipeline/stages/formulate/classical";
import { periodSql } from "@/lib/pipeline/stages/formulate/sql/period-sql";
import type { Intent } from "@/lib/pipeline/contracts";
import { candidate, intent, SHOP } from "./formulate-fixtures";

/** Calendar periods of a date column as grouping keys, when no column holds the period (period-columns.ts). Intents by hand. */

const shop = candidate("kb-shop", "SQL");

async function answerSql(i: Intent, structure: Extract<KbStructure, { kind: "sql" }> = SHOP): Promise<string> {
  const { queries } = await formulateSql(i, shop, structure, noAdjustments(), 1, 0);
  const text = queries[0]?.query.text ?? "";
  await checkSqlSafety(text, structure.dialect);
  return text;
}

describe("grouping by a period of a date", () => {
  it("groups a count by the year of the date when no column holds the year", async () => {
    const text = await answerSql(intent("How many orders were placed in each year?", { aggregate: "count" }));
    expect(text).toContain(`strftime('%Y', "order_date") AS "year"`);
    expect(text).toContain(`GROUP BY strftime('%Y', "order_date")`);
  });

  it("ranks the periods the question asks for by a superlative", async () => {
    const text = await answerSql(
      intent("Which month had the most orders?", { superlative: { direction: "max", attribute: "orders", limit: 1 } }),
    );
    expect(text).toMatch(/GROUP BY strftime\('%Y-%m', "(orders"\.")?order_date"\)/);
    expect(text).toMatch(/ORDER BY COUNT\((\*|DISTINCT "orders"\."order_id")\) DESC\s+LIMIT 1$/);
  });

  it("groups by a column that holds the period itself", async () => {
    const withYear: Extract<KbStructure, { kind: "sql" }> = {
      ...SHOP,
      tables: SHOP.tables.map((t) =>
        t.name === "orders" ? { ...t, columns: [...t.columns, { name: "year", type: "INTEGER", examples: [2024, 2025] }] } : t,
      ),
    };
    const text = await answerSql(intent("How many orders were placed in each year?", { aggregate: "count" }), withYear);
    expect(text).not.toContain("strftime");
    expect(text).toContain('GROUP BY "year"');
  });

  it("is written with each engine's own date functions", () => {
    const sqlite = { column: "d", dateTyped: false, dialect: "sqlite" as const };
    expect(periodSql('"d"', { ...sqlite, unit: "month" })).toBe(`strftime('%Y-%m', "d")`);
    expect(periodSql('"d"', { ...sqlite, unit: "quarter" })).toBe(
      `strftime('%Y', "d") || '-Q' || ((CAST(strftime('%m', "d") AS INTEGER) + 2) / 3)`,
    );
    const pg = { column: "d", dateTyped: true, dialect: "postgres" as const };
    expect(periodSql('"d"', { ...pg, unit: "quarter" })).toBe(`to_char("d", 'YYYY-"Q"Q')`);
    expect(periodSql('"d"', { ...pg, dateTyped: false, unit: "month" })).toBe(`substr("d", 1, 7)`);
  });
});
