import { describe, expect, it } from "vitest";
import type { KbStructure } from "@/lib/backends/types";
import {
  annotateStructure,
  MeasureExpressionError,
  parseMeasureExpression,
  readTableNotes,
  renderExpression,
  tableNotesSchema,
} from "@/lib/catalog/table-notes";

const COLUMNS = ["order_id", "quantity", "unit_price", "Unit Cost"];
const sql = (expression: string) => renderExpression(parseMeasureExpression(expression, COLUMNS), (c) => `"${c}"`);

describe("a measure's expression", () => {
  it("reads arithmetic over the table's columns, names matched without regard to case", () => {
    expect(sql("quantity * unit_price")).toBe('"quantity" * "unit_price"');
    expect(sql('(Unit_Price - "unit cost") / unit_price')).toBe('("unit_price" - "Unit Cost") / "unit_price"');
    expect(sql("quantity*unit_price*1.19")).toBe('"quantity" * "unit_price" * 1.19');
    expect(sql("-quantity + 2")).toBe('- "quantity" + 2');
    // Two minus signs stay apart: written together they would start an SQL comment.
    expect(sql("quantity--1")).toBe('"quantity" - - 1');
  });

  it.each([
    ["quantity * price", /"price" is not a column/],
    ["SUM(quantity)", /"SUM" is not a column/],
    ["quantity; DROP TABLE orders", /Cannot read ";/],
    ["(quantity * unit_price", /parenthesis is not closed/],
    ["quantity unit_price", /Unexpected "unit_price"/],
    ["quantity *", /ends too early/],
    ["2 * 3", /at least one column/],
    ["quantity -- comment", /"comment" is not a column/],
    ["'a' || quantity", /Cannot read/],
    ["", /empty/],
  ])("refuses %j, saying why", (expression, message) => {
    expect(() => parseMeasureExpression(expression, COLUMNS)).toThrow(MeasureExpressionError);
    expect(() => parseMeasureExpression(expression, COLUMNS)).toThrow(message);
  });
});

describe("notes as stored", () => {
  it("normalises synonyms and refuses two measures of one name", () => {
    const notes = tableNotesSchema.parse({
      columns: [{ name: "unit_price", synonyms: ["Price", "price", " list price "] }],
      measures: [{ name: "revenue", expression: "quantity * unit_price" }],
    });
    expect(notes.columns[0].synonyms).toEqual(["price", "list price"]);
    expect(notes.measures[0].aggregate).toBe("sum");
    expect(
      tableNotesSchema.safeParse({
        measures: [
          { name: "revenue", expression: "quantity" },
          { name: "Revenue", expression: "unit_price" },
        ],
      }).success,
    ).toBe(false);
    // Anything else read back from the database is no notes, not an error in every run.
    expect(readTableNotes({ measures: "nonsense" })).toEqual({ columns: [], measures: [] });
    expect(readTableNotes(null)).toEqual({ columns: [], measures: [] });
  });
});

describe("the structure schema linking reads", () => {
  const structure: KbStructure = {
    kind: "sql",
    dialect: "sqlite",
    tables: [
      {
        name: "order_items",
        columns: COLUMNS.map((name) => ({ name, type: "REAL", examples: [] })),
        primaryKey: [],
        foreignKeys: [],
        rows: 3,
      },
      {
        name: "orders",
        columns: [{ name: "order_id", type: "INTEGER", examples: [] }],
        primaryKey: ["order_id"],
        foreignKeys: [],
        rows: 1,
      },
    ],
  };

  it("adds each measure as a column of its table and carries the columns' synonyms; a broken measure is left out and named", () => {
    const notes = tableNotesSchema.parse({
      columns: [{ name: "unit_price", synonyms: ["price paid"], description: "After discount." }],
      measures: [
        { name: "revenue", expression: "quantity * unit_price", synonyms: ["turnover"] },
        { name: "margin", expression: "unit_price - cost" },
      ],
    });
    const { structure: annotated, skipped } = annotateStructure(structure, (t) => (t === "order_items" ? notes : undefined));
    if (annotated.kind !== "sql") throw new Error("sql expected");
    const items = annotated.tables[0].columns;
    expect(items.find((c) => c.name === "unit_price")).toMatchObject({ synonyms: ["price paid"], description: "After discount." });
    expect(items.find((c) => c.name === "revenue")).toMatchObject({
      synonyms: ["turnover"],
      measure: { aggregate: "sum", parts: [{ column: "quantity" }, { text: "*" }, { column: "unit_price" }] },
    });
    expect(items.some((c) => c.name === "margin")).toBe(false);
    expect(skipped).toEqual([expect.stringContaining('the measure "margin" of order_items ("cost" is not a column')]);
    // A table without notes is the same object: nothing to copy.
    expect(annotated.tables[1]).toBe(structure.kind === "sql" ? structure.tables[1] : null);
    expect(annotateStructure(structure, () => undefined).structure).toBe(structure);
  });
});
