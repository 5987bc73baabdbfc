import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { LocalModelRuntime } from "@/lib/models/local-runtime";
import { type ModelHandles, handlesFrom } from "@/lib/models/runtime";
import type { RunOutcome } from "@/lib/pipeline/run";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { EMBEDDER, SHARED_MODELS_DIR, sharedModelsAvailable } from "@/tests/support/models/fixtures";
import { useDemoWorkspace } from "../support/demo-workspace";
import { TARGET_ENGINE } from "../support/test-database";

/**
 * Honest failure modes (issue 32) on real engines: the demo catalog and a small SQLite database of
 * one's own, built here. A filtered query that finds nothing says so with its conditions and no later
 * round drops the filter; a period without data is not answered from passages about another period;
 * an answer the critic rejected is never shown as a plain answer.
 */
describe(`honest failure modes (${TARGET_ENGINE})`, () => {
  const ws = useDemoWorkspace("mosaic-honest-");
  let staffKb: string;

  const answerQueries = (o: RunOutcome) => o.queries.filter((q) => q.role === "answer" && q.query.language === "sql");

  beforeAll(async () => {
    // A staff list of one's own: offices and roles that exist, but not every combination; hires in two years only.
    const file = path.join(ws.deps.dataDir, "staff.sqlite");
    const db = new Database(file);
    db.exec(
      `CREATE TABLE staff (staff_id INTEGER PRIMARY KEY, name TEXT NOT NULL, job_title TEXT NOT NULL, office TEXT NOT NULL, hired_on TEXT NOT NULL);`,
    );
    const insert = db.prepare("INSERT INTO staff (name, job_title, office, hired_on) VALUES (?, ?, ?, ?)");
    const rows: [string, string, string, string][] = [
      ["Maud Girard", "Engineer", "Lille", "2021-02-01"],
      ["Paul Roux", "Engineer", "Lille", "2022-06-15"],
      ["Ines Blanc", "Accountant", "Nantes", "2021-09-01"],
      ["Hugo Petit", "Engineer", "Nantes", "2022-01-10"],
      ["Lea Morel", "Accountant", "Lille", "2022-11-03"],
      ["Jean Faure", "Engineer", "Lyon", "2022-03-01"],
    ];
    for (const r of rows) insert.run(...r);
    db.close();
    const admin = await ws.handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } });
    const kb = await registerKnowledgeBase(
      ws.handle.prisma,
      ws.deps,
      admin.id,
      {
        kind: "SQL",
        name: "Staff list",
        description: "Our staff: names, job titles, offices and hiring dates.",
        connection: { dialect: "sqlite" },
        openToEveryone: true,
      },
      [{ name: "staff.sqlite", bytes: readFileSync(file) }],
    );
    staffKb = kb.id;
  }, 120_000);

  it("says that a filtered query found nothing, with its filter, and keeps the filter", async () => {
    // The control: accountants in Nantes exist and are listed from the rows.
    const some = await ws.ask("Which accountants work in the Nantes office?");
    expect(some.answer.text).toContain("Ines Blanc");
    // Lyon has an engineer only: no accountant there.
    const o = await ws.ask("Which accountants work in the Lyon office?");
    expect(o.winner?.kbId).toBe(staffKb);
    expect(o.answer.refrained).toBe(false);
    expect(o.answer.text).toMatch(/^No staff are recorded with .*Accountant.*Lyon.*\.$/);
    expect(o.answer.emptyResult?.kbName).toBe("Staff list");
    expect(
      answerQueries(o)
        .filter((q) => q.kbId === staffKb)
        .every((q) => q.query.text.includes("Lyon")),
    ).toBe(true);
  });

  it("answers 'none' for a period without data instead of answering from other evidence", async () => {
    const o = await ws.ask("Which staff were hired in 2019?");
    expect(o.winner?.kbId).toBe(staffKb);
    expect(o.answer.refrained).toBe(false);
    expect(o.answer.text).toBe("No staff are recorded for 2019.");
    expect(o.answer.emptyResult?.conditions).toEqual(["for 2019"]);
    // No round relaxed the period away.
    expect(o.iterations).toHaveLength(1);
    expect(
      answerQueries(o)
        .filter((q) => q.kbId === staffKb)
        .every((q) => q.query.text.includes("2019")),
    ).toBe(true);
  });

  it("does not answer a year the sales database has no orders for from an unrelated passage", async () => {
    const o = await ws.ask("Which product had the highest sales in 2023?");
    expect(o.answer.text).not.toMatch(/Trail Runner/);
    expect(o.answer.text).toMatch(/^No .* recorded for 2023\.$/);
    expect(o.winner?.kbName).toBe("Aurora sales database");
  });

  it("a filter combination that matches nothing in the demo data says so", async () => {
    const o = await ws.ask("Which tour operators are located in Austria?");
    expect(o.answer.refrained).toBe(false);
    expect(o.answer.text).toMatch(/^No customers are recorded with .*Tour operator.* Austria\.$/);
  });

  it("never shows an answer the critic rejected in its last round as a plain answer", async () => {
    const first = await ws.ask("Which customers are located in Munich?");
    expect(first.answer.text).toContain("Alpenweg GmbH");
    const o = await ws.ask("and in Berlin?", { conversationId: first.conversationId });
    const last = o.iterations[o.iterations.length - 1];
    if (!last.accepted) {
      // Withheld, or at most "not certain" with the critic's reason.
      expect(o.answer.refrained || o.answer.certainty === "uncertain").toBe(true);
      expect(o.answer.reason).toBeTruthy();
    }
    // Either way, the whole customer list is not presented as the customers in Berlin.
    expect(o.status === "ANSWERED" && o.answer.certainty !== "uncertain" && o.answer.text.includes("Alpenweg GmbH")).toBe(false);
  });
});

/**
 * An answer is drawn only from a source whose content is about the question: with the embedder, a
 * question no source covers is not answered from a document table about something else.
 */
describe.skipIf(!sharedModelsAvailable())("answers only from evidence about the question (with the embedder)", () => {
  const ws = useDemoWorkspace("mosaic-topic-");
  let runtime: LocalModelRuntime;
  let models: ModelHandles;
  const scratch = mkdtempSync(path.join(tmpdir(), "mosaic-topic-models-"));

  beforeAll(async () => {
    runtime = new LocalModelRuntime({
      precision: "int8",
      embedder: EMBEDDER,
      crossEncoder: null,
      locations: { modelsDir: SHARED_MODELS_DIR, cacheDir: path.join(scratch, "cache") },
      threads: 1,
      batchWaitMs: 2,
      batchSize: 32,
      queueLimit: 1000,
      timeoutMs: 20_000,
    });
    models = await handlesFrom(runtime);
  }, 120_000);
  afterAll(async () => {
    await runtime?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const ask = (question: string) => runPipeline(ws.handle.prisma, ws.deps, { question, user: ws.user, models });

  it("withholds a figure read from a table whose caption is about something else, naming the sources tried", async () => {
    // The demo documents hold travel, returns and report tables; none is about staff leave.
    const o = await ask("How many days of annual leave does a new employee get?");
    expect(o.answer.refrained).toBe(true);
    expect(o.answer.reason).toMatch(/None of the sources tried \(.*Aurora policies and reports.*\) states this/);
  });

  it("still answers from a table whose caption is about the question", async () => {
    const o = await ask("What is the per diem in London?");
    expect(o.answer.refrained).toBe(false);
    expect(o.answer.text).toMatch(/^75\b/);
  });
});
