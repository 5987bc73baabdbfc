import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkerColumnText } from "@/lib/catalog/semantic-texts";
import { LocalModelRuntime } from "@/lib/models/local-runtime";
import { SchemaLinkerMissingError, schemaLinkerDir, schemaLinkerFiles } from "@/lib/models/schema-linker";
import type { CrossEncoder } from "@/lib/models/types";
import { closenessFromLogit, learnedColumnMeaning } from "@/lib/pipeline/stages/formulate/sql/learned-column-meaning";
import { columnKey } from "@/lib/pipeline/stages/formulate/sql/column-meaning";
import type { SqlStructure } from "@/lib/pipeline/stages/formulate/sql/sql-structure";
import { intent } from "@/tests/unit/pipeline/select-fixtures";

const scratch = mkdtempSync(path.join(tmpdir(), "mosaic-linker-"));

/** A schema the scorer never saw (it was fitted on Spider's training databases): an HR database with cryptic names. */
const column = (name: string, type: string) => ({ name, type, examples: [] });
const HR: SqlStructure = {
  kind: "sql",
  dialect: "sqlite",
  tables: [
    {
      name: "staff",
      columns: [
        column("staff_id", "INTEGER"),
        column("full_name", "TEXT"),
        column("birth_date", "TEXT"),
        column("hired_on", "TEXT"),
        column("annual_salary_eur", "REAL"),
        column("dept_id", "INTEGER"),
      ],
      primaryKey: ["staff_id"],
      foreignKeys: [{ columns: ["dept_id"], refTable: "department", refColumns: ["dept_id"] }],
      rows: 40,
    },
    {
      name: "department",
      columns: [column("dept_id", "INTEGER"), column("dept_name", "TEXT"), column("office_city", "TEXT")],
      primaryKey: ["dept_id"],
      foreignKeys: [],
      rows: 5,
    },
  ],
};

describe("the shipped schema linker", () => {
  let runtime: LocalModelRuntime;
  let linker: CrossEncoder;

  beforeAll(async () => {
    runtime = new LocalModelRuntime({
      precision: "int8",
      embedder: "all-MiniLM-L6-v2",
      crossEncoder: null,
      locations: { modelsDir: path.join(scratch, "none"), cacheDir: path.join(scratch, "cache") },
      threads: 1,
      batchWaitMs: 2,
      batchSize: 32,
      queueLimit: 1000,
      timeoutMs: 30_000,
    });
    linker = (await runtime.schemaLinker())!;
  }, 60_000);
  afterAll(async () => {
    await runtime?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("loads from the repository, checked against its training report", () => {
    expect(linker.info.name).toBe("mosaic-schema-linker");
    expect(linker.info.source).toBe("repository");
    expect(linker.info.precision).toBe("int8");
  });

  it("puts the column a question asks about in other words above its table's other attributes", async () => {
    const staff = HR.tables[0]!;
    const attributes = staff.columns.map((c) => c.name).filter((c) => !c.endsWith("_id"));
    for (const [question, asked] of [
      ["What do people in each department earn on average?", "annual_salary_eur"],
      ["List the staff by how much they are paid", "annual_salary_eur"],
      ["When was each employee born?", "birth_date"],
    ] as const) {
      const logits = await linker.score(attributes.map((c) => [question, linkerColumnText(staff.name, c)]));
      const best = attributes[logits.indexOf(Math.max(...logits))];
      expect(best, question).toBe(asked);
    }
    const meaning = (await learnedColumnMeaning(linker, intent("When was each employee born?"), HR))!;
    expect(meaning.get(columnKey("staff", "birth_date")) ?? 0).toBeGreaterThan(0);
    expect(meaning.get(columnKey("department", "office_city")) ?? 0).toBe(0);
  });

  it("says nothing below even odds and 1 at certainty", () => {
    expect(closenessFromLogit(-3)).toBe(0);
    expect(closenessFromLogit(0)).toBe(0);
    expect(closenessFromLogit(20)).toBeCloseTo(1, 6);
    expect(closenessFromLogit(Math.log(3))).toBeCloseTo(0.5, 6);
  });

  it("refuses a model file that is not the one its training report names", async () => {
    const copy = path.join(scratch, "broken");
    mkdirSync(path.join(copy, "onnx"), { recursive: true });
    for (const f of ["tokenizer.json", "tokenizer_config.json", "training-report.json"])
      copyFileSync(path.join(schemaLinkerDir(), f), path.join(copy, f));
    writeFileSync(path.join(copy, "onnx", "model_quantized.onnx"), "version https://git-lfs.github.com/spec/v1\n");
    await expect(schemaLinkerFiles(copy)).rejects.toThrow(SchemaLinkerMissingError);
    await expect(schemaLinkerFiles(path.join(scratch, "nowhere"))).rejects.toThrow(/missing/);
  });
});
