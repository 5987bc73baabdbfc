import { describe, expect, it } from "vitest";
import { COMPACT_MAX_CHARS, DESCRIPTOR_MAX_CHARS } from "@/lib/backends/descriptor";
import { renderDescriptor, renderSourceUnits } from "@/lib/backends/sql/describe";
import type { SchemaSummary, TableInfo, TableStats } from "@/lib/backends/sql/schema";
import { asStringLiteral, unresolvedDoubleQuoted } from "@/lib/backends/sql/sqlite/double-quoted-strings";
import { identifierWords, looksLikeName, toJsonSafe } from "@/lib/backends/sql/values";
import { verbalizeRows } from "@/lib/backends/sql/verbalize";
import { checkSqlSafety } from "@/lib/backends/sql";
import type { BackendContext, RawResult, RowData } from "@/lib/backends/types";

const singer: TableInfo = {
  name: "singer",
  kind: "table",
  columns: [
    { name: "Singer_ID", type: "int", notNull: false },
    { name: "Name", type: "text", notNull: true },
    { name: "Country", type: "text", notNull: false },
  ],
  primaryKey: ["Singer_ID"],
  foreignKeys: [],
};
const order: TableInfo = {
  name: "Order",
  kind: "table",
  columns: [
    { name: "order_id", type: "int", notNull: false },
    { name: "Singer_ID", type: "int", notNull: false },
    { name: "Home/Away", type: "text", notNull: false },
  ],
  primaryKey: ["order_id"],
  foreignKeys: [{ columns: ["Singer_ID"], refTable: "singer", refColumns: ["Singer_ID"] }],
};

function summaryOf(tables: TableInfo[], stats: Record<string, TableStats> = {}): SchemaSummary {
  return { tables, stats: new Map(Object.entries(stats)), engineVersion: "SQLite 3.53.2" };
}

const SMALL = summaryOf([singer, order], {
  singer: {
    rows: 6,
    approximate: false,
    examples: { Singer_ID: [1, 2, 3], Name: ["Joe Sharp", "Timbaland"], Country: ["France", "Netherlands", "United States"] },
  },
  Order: { rows: 2, approximate: false, examples: { order_id: [10, 11], Singer_ID: [1], "Home/Away": ["Home"] } },
});
const ctx = { kbName: "concerts", dialect: "sqlite" as const, location: "file concerts.sqlite" };

describe("SQL descriptor", () => {
  it("writes CREATE TABLE with primary and foreign keys, row counts and example values", () => {
    const d = renderDescriptor(SMALL, ctx);
    expect(d.text).toContain('-- SQLite database "concerts" (file concerts.sqlite; SQLite 3.53.2): 2 tables, 6 columns, 8 rows.');
    expect(d.text).toContain(
      "CREATE TABLE singer (\n  Singer_ID int,\n  Name text NOT NULL,\n  Country text,\n  PRIMARY KEY (Singer_ID)\n);",
    );
    // Reserved words and odd characters are quoted so SQL copied from the descriptor runs.
    expect(d.text).toContain(
      'CREATE TABLE "Order" (\n  order_id int,\n  Singer_ID int,\n  "Home/Away" text,\n  PRIMARY KEY (order_id),\n  FOREIGN KEY (Singer_ID) REFERENCES singer(Singer_ID)\n);',
    );
    expect(d.text).toContain("-- examples: singer.Country: 'France', 'Netherlands', 'United States'");
    expect(d.text).toContain("-- singer: 6 rows");
    expect(d.compact).toBe(
      'SQLite "concerts": 2 tables.\nsinger(Singer_ID, Name, Country)\n"Order"(order_id, Singer_ID→singer, "Home/Away")',
    );
    expect(d.stats).toEqual({ tables: 2, columns: 6, rows: 8, foreignKeys: 1 });
  });

  it("counts one of a kind in the singular", () => {
    const one = renderDescriptor(summaryOf([singer], { singer: { rows: 1, approximate: false, examples: {} } }), ctx);
    expect(one.text).toContain('-- SQLite database "concerts" (file concerts.sqlite; SQLite 3.53.2): 1 table, 3 columns, 1 row.');
    expect(one.text).toContain("-- singer: 1 row");
    expect(one.compact).toMatch(/^SQLite "concerts": 1 table\.\n/);
  });

  it("has a version that follows the content", () => {
    const a = renderDescriptor(SMALL, ctx);
    expect(renderDescriptor(summaryOf([singer, order], Object.fromEntries(SMALL.stats)), ctx).version).toBe(a.version);
    const grown = summaryOf([singer, order], { ...Object.fromEntries(SMALL.stats), singer: { ...SMALL.stats.get("singer")!, rows: 7 } });
    expect(renderDescriptor(grown, ctx).version).not.toBe(a.version);
  });

  it("stays bounded for hundreds of tables and still names every table in the compact form", () => {
    const tables: TableInfo[] = Array.from({ length: 300 }, (_, i) => ({
      name: `table_${i}`,
      kind: "table",
      columns: Array.from({ length: 12 }, (_, j) => ({ name: `column_${j}_of_${i}`, type: "varchar(80)", notNull: false })),
      primaryKey: [`column_0_of_${i}`],
      foreignKeys: i > 0 ? [{ columns: [`column_1_of_${i}`], refTable: `table_${i - 1}`, refColumns: [`column_0_of_${i - 1}`] }] : [],
    }));
    const d = renderDescriptor(summaryOf(tables), ctx);
    expect(d.text.length).toBeLessThanOrEqual(DESCRIPTOR_MAX_CHARS);
    expect(d.compact.length).toBeLessThanOrEqual(COMPACT_MAX_CHARS);
    for (let i = 0; i < 300; i++) expect(d.compact).toMatch(new RegExp(`(^|\\n|, )table_${i}(\\(|,|$)`, "m"));
    expect(d.stats.tables).toBe(300);
  });

  it("turns each table into a source unit described from its content", () => {
    const units = renderSourceUnits(SMALL, "sqlite");
    expect(units.map((u) => u.key)).toEqual(["singer", "Order"]);
    expect(units[0]).toMatchObject({ name: "singer", contentType: "TABLE", tags: ["sqlite", "table", "referenced"] });
    expect(units[0].description).toBe(
      "Table singer: 6 rows; columns Singer_ID (int, primary key), Name (text), Country (text); referenced by Order. Examples: Name: Joe Sharp, Timbaland; Country: France, Netherlands, United States.",
    );
    expect(units[1].tags).toContain("has-foreign-keys");
    expect(units[1].description).toContain("Singer_ID (int, → singer)");
    expect(units[1].metadata).toMatchObject({ rows: 2, references: ["singer"], primaryKey: ["order_id"] });
  });
});

describe("SQL evidence", () => {
  const kb: BackendContext = { kbId: "kb-concerts", kbName: "Concerts", storageDir: "/tmp" };
  const result = (text: string, columns: string[], records: Record<string, unknown>[]): RawResult => ({
    query: { language: "sql", text },
    columns,
    records,
    truncated: false,
    elapsedMs: 1,
  });

  it("linearizes a table's rows and locates them by primary key, so two queries share ids", async () => {
    // A result is verbalized after its query was checked (SqlBackend.execute); the check reads its source table.
    await checkSqlSafety("SELECT * FROM singer", "sqlite");
    await checkSqlSafety("select singer_id, name, country from SINGER where country = 'Netherlands'", "sqlite");
    const a = verbalizeRows(
      result("SELECT * FROM singer", ["Singer_ID", "Name", "Country"], [{ Singer_ID: 1, Name: "Joe Sharp", Country: "Netherlands" }]),
      kb,
      "sqlite",
      [singer, order],
    );
    const b = verbalizeRows(
      result(
        "select singer_id, name, country from SINGER where country = 'Netherlands'",
        ["Singer_ID", "Name", "Country"],
        [{ Singer_ID: 1, Name: "Joe Sharp", Country: "Netherlands" }],
      ),
      kb,
      "sqlite",
      [singer, order],
    );
    expect(a[0].text).toBe("singer / Singer_ID: 1, Name: Joe Sharp, Country: Netherlands");
    expect(a[0].provenance).toMatchObject({
      kb: "kb-concerts",
      kbName: "Concerts",
      sourceObject: "singer",
      language: "sql",
      location: { table: "singer", key: "Singer_ID=1" },
    });
    expect((a[0].data as RowData).key).toEqual({ Singer_ID: 1 });
    expect(a[0].entities).toEqual(["Joe Sharp", "Netherlands"]);
    expect(b[0].id).toBe(a[0].id);
  });

  it("titles joins and aggregates 'Query result' and locates rows by query and position", () => {
    const text =
      'SELECT T1.Name, count(*) AS concerts FROM singer AS T1 JOIN "Order" AS T2 ON T1.Singer_ID = T2.Singer_ID GROUP BY T1.Name';
    const pieces = verbalizeRows(
      result(
        text,
        ["Name", "concerts"],
        [
          { Name: "Timbaland", concerts: 2 },
          { Name: "Joe Sharp", concerts: 1 },
        ],
      ),
      kb,
      "sqlite",
      [singer, order],
    );
    expect(pieces.map((p) => p.text)).toEqual([
      "Query result / Name: Timbaland, concerts: 2",
      "Query result / Name: Joe Sharp, concerts: 1",
    ]);
    expect(pieces[0].provenance.sourceObject).toBeNull();
    expect(pieces[1].provenance.location).toMatchObject({ table: "Query result", row: 1 });
    expect(new Set(pieces.map((p) => p.id)).size).toBe(2);
    expect(verbalizeRows(result(text, ["Name", "concerts"], [{ Name: "Timbaland", concerts: 2 }]), kb, "sqlite", null)[0].id).toBe(
      pieces[0].id,
    );
  });

  it("keeps only name-like strings as entities", () => {
    const p = verbalizeRows(
      result("SELECT * FROM singer", ["Singer_ID", "Name", "Country"], [{ Singer_ID: 7, Name: "2014", Country: "<binary 4 bytes>" }]),
      kb,
      "sqlite",
      [singer],
    );
    expect(p[0].entities).toEqual([]);
    expect(looksLikeName("United States")).toBe(true);
    expect(looksLikeName("1,234.5")).toBe(false);
    expect(looksLikeName("2024-01-02 03:04:05")).toBe(false);
    expect(looksLikeName("a".repeat(61))).toBe(false);
  });
});

describe("SQL values and names", () => {
  it("makes engine values JSON-safe", () => {
    expect(toJsonSafe(BigInt(42))).toBe(42);
    expect(toJsonSafe(BigInt("9007199254740993"))).toBe("9007199254740993");
    expect(toJsonSafe(Buffer.from([1, 2, 3]))).toBe("<binary 3 bytes>");
    expect(toJsonSafe(new Uint8Array(5))).toBe("<binary 5 bytes>");
    expect(toJsonSafe(new Date("2024-01-02T03:04:05Z"))).toBe("2024-01-02T03:04:05.000Z");
    expect(toJsonSafe(Number.NaN)).toBe("NaN");
    expect(toJsonSafe({ a: [BigInt(1), null] })).toEqual({ a: [1, null] });
  });

  it("splits identifiers into words", () => {
    expect(identifierWords("Singer_ID")).toBe("Singer ID");
    expect(identifierWords("songReleaseYear")).toBe("song Release Year");
    expect(identifierWords("HTMLPage_url")).toBe("HTML Page url");
  });

  it("applies SQLite's legacy double-quoted-string rule only to the name SQLite could not resolve", () => {
    const message =
      'SQLite could not run the query: no such column: "JetBlue Airways" - should this be a string literal in single-quotes?.';
    expect(unresolvedDoubleQuoted(message)).toBe("JetBlue Airways");
    expect(unresolvedDoubleQuoted("no such column: Airline")).toBeNull();
    const sql = 'SELECT "Country" FROM AIRLINES WHERE "Airline" = "JetBlue Airways" OR Airline = "JetBlue Airways"';
    expect(asStringLiteral(sql, "JetBlue Airways")).toBe(
      "SELECT \"Country\" FROM AIRLINES WHERE \"Airline\" = 'JetBlue Airways' OR Airline = 'JetBlue Airways'",
    );
    expect(asStringLiteral('SELECT 1 WHERE x = "it\'s"', "it's")).toBe("SELECT 1 WHERE x = 'it''s'");
    expect(asStringLiteral("SELECT 'JetBlue Airways'", "JetBlue Airways")).toBeNull();
  });
});
