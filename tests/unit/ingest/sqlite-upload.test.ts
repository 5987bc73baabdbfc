import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDemoSalesDatabase } from "@/lib/demo/sales-database";
import { declaredSqliteSize } from "@/lib/ingest/register";

const dir = mkdtempSync(path.join(tmpdir(), "mosaic-sqlite-size-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the size a SQLite file's header declares", () => {
  it("is the whole file for a whole database, and more than a truncated copy has", () => {
    const file = path.join(dir, "sales.sqlite");
    createDemoSalesDatabase(file);
    const bytes = readFileSync(file);
    expect(declaredSqliteSize(bytes)).toBe(bytes.length);
    expect(declaredSqliteSize(bytes.subarray(0, 3000))).toBe(bytes.length);
  });

  it("is unknown for a header too short or one whose page count is not valid", () => {
    expect(declaredSqliteSize(Buffer.alloc(50))).toBeNull();
    const header = Buffer.alloc(100);
    header.write("SQLite format 3\0", 0, "latin1");
    header.writeUInt16BE(4096, 16);
    header.writeUInt32BE(10, 28);
    header.writeUInt32BE(5, 24);
    header.writeUInt32BE(4, 92); // change counter ≠ version-valid-for: the count is stale
    expect(declaredSqliteSize(header)).toBeNull();
  });
});
