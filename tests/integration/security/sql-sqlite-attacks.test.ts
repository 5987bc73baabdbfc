import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlBackend } from "@/lib/backends/sql";
import type { KnowledgeBackend } from "@/lib/backends/types";
import { queryAttackOutcome, queryAttacks, sqlText } from "../../support/attack-corpus";

/**
 * The SQLite part of the attack corpus against a real file: each attempt is refused before anything
 * runs, or contained by the engine's walls (the killable query process, its memory limit, the byte
 * budgets); afterwards the file is byte-for-byte what it was, and no message shows a server path.
 */

const dir = mkdtempSync(path.join(tmpdir(), "mosaic-attack-sqlite-"));
const file = path.join(dir, "database.sqlite");
const target = { table: "customer", column: "name" };
let kb: KnowledgeBackend;
let hashBefore: string;
const fileHash = () => createHash("sha256").update(readFileSync(file)).digest("hex");

beforeAll(() => {
  const db = new Database(file);
  db.exec(`CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
           INSERT INTO customer VALUES (1, 'Ada Lovelace', 'United Kingdom'), (2, 'Grace Hopper', 'United States');`);
  db.close();
  hashBefore = fileHash();
  kb = createSqlBackend({ dialect: "sqlite", file: "database.sqlite" }, {}, { kbId: "kb-attack", kbName: "Shop", storageDir: dir });
});

afterAll(async () => {
  await kb.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the SQLite attack corpus against a real file", () => {
  const cases = queryAttacks("sql-sqlite");

  it("has the cases the issue names", () => {
    const names = cases.map((c) => c.name).join("\n");
    for (const expected of ["hex(zeroblob", "300 rows of 1 MB", "parser bomb (15)", "load_extension", "ATTACH"])
      expect(names).toContain(expected);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s: refused or contained, nothing changed, nothing leaked", async (_, attack) => {
    const outcome = await queryAttackOutcome(attack, () =>
      kb.execute({ language: "sql", text: sqlText(attack, target) }, { timeoutMs: attack.timeoutMs ?? 5_000 }),
    );
    expect(outcome).toMatch(attack.says);
    expect(outcome).not.toContain(dir);
    expect(fileHash()).toBe(hashBefore);
  });

  it("still answers normally after the whole corpus", async () => {
    const r = await kb.execute({ language: "sql", text: "SELECT name FROM customer ORDER BY customer_id" });
    expect(r.records).toEqual([{ name: "Ada Lovelace" }, { name: "Grace Hopper" }]);
  });
});
