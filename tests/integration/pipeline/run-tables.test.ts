import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import { loadBenchmarkCatalog } from "@/lib/ingest/benchmarks/load";
import type { CatalogDeps } from "@/lib/deps";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { scoreTatQa } from "@/lib/eval/metrics/tatqa";
import type { RunOutcome } from "@/lib/pipeline/run";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { DATASETS, useDemoWorkspace } from "../support/demo-workspace";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * Answers read from report tables through the whole classical pipeline, on the real documents backend
 * (SQLite FTS5): the demo workspace's policies and annual report, and TAT-QA report contexts.
 */

describe("answers from report tables (demo workspace)", () => {
  const { ask } = useDemoWorkspace("mosaic-tables-");
  const noInternals = (o: RunOutcome) => expect(o.answer.reason ?? "").not.toMatch(/threshold|scored|\d\.\d\d|stage/i);

  it("computes a percentage change from the report's table, with the derivation and its cited rows", async () => {
    const o = await ask("What was the percentage change in Central Europe revenue from 2024 to 2025?");
    expect(o.answer).toMatchObject({ text: "23.64%", refrained: false });
    expect(o.answer.derivation).toMatchObject({
      operation: "change-ratio",
      expression: "(13.6 − 11) / 11 × 100 = 23.64%",
      scale: "percent",
    });
    const row = o.evidence.find((e) => e.piece.id === o.answer.derivation!.operands[0].evidenceId);
    expect(row?.piece.kind).toBe("row");
    expect(o.answer.citations).toContain(row!.piece.id);
  });

  it("answers a count question with the count, not with a figure in years from another table", async () => {
    const o = await ask("How many products are in the Footwear category?");
    expect(o.answer.text).toBe("2");
  });

  it("answers the hotel cap with the per-city caps, and the follow-up 'And in Berlin?' with the Berlin row", async () => {
    const first = await ask("What is the travel policy's hotel cap?");
    expect(first.answer.text).toBe("Stockholm: 190 EUR, Oslo: 210 EUR, Berlin: 160 EUR, Munich: 175 EUR and London: 240 EUR");
    const berlin = await ask("And in Berlin?", { conversationId: first.conversationId });
    expect(berlin.answer.refrained).toBe(false);
    expect(berlin.answer.text).toBe("160 EUR");
    noInternals(berlin);
    const cited = berlin.evidence.find((e) => e.piece.id === berlin.answer.citations[0]);
    expect(cited?.piece.text).toContain("City: Berlin");
  });

  it("reads a growth question as the change, not the level", async () => {
    const o = await ask("By how much did Aurora Outfitters' revenue grow in 2025?");
    expect(o.answer.text).toBe("12%");
  });

  it("still refuses what the sources do not hold, in plain words", async () => {
    const o = await ask("What was the revenue of the Asia region in 2025?");
    expect(o.answer.refrained).toBe(true);
    noInternals(o);
  });
});

describe.skipIf(!existsSync(path.join(DATASETS, "tatqa/tatqa_dataset_dev.json")))("answers from report tables (TAT-QA contexts)", () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  const admin = { id: "", role: "ADMIN" as const, groupIds: [] as string[] };

  beforeAll(async () => {
    db = await createTestDatabase({ seed: true });
    handle = (await openAndBootstrap(db.env)).handle;
    deps = { dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-tatqa-")), encryptionKey: Buffer.alloc(32, 8), datasetsDir: DATASETS };
    const report = await loadBenchmarkCatalog(handle.prisma, deps, { spiderLimit: 0, scifactLimit: 1, tatqaLimit: 6 });
    expect(report.failed).toEqual([]);
    admin.id = (await handle.prisma.user.findFirstOrThrow({ where: { role: "ADMIN" } })).id;
  }, 180_000);
  afterAll(async () => {
    await closeAllBackends();
    await handle.close();
    await db.cleanup();
  });

  const ask = async (question: string) => {
    const kb = await handle.prisma.knowledgeBase.findFirstOrThrow({ where: { name: "TAT-QA financial reports" } });
    return runPipeline(handle.prisma, deps, { question, user: admin, kbIds: [kb.id] });
  };

  it.each([
    ["What is the 2019 average defined contribution schemes?", { answer: 172, answerType: "arithmetic", scale: "million" }, "average"],
    [
      "What was the percentage change in the amount for Appliances in 2019 from 2018?",
      { answer: -12.14, answerType: "arithmetic", scale: "percent" },
      "change-ratio",
    ],
    [
      "What was the change in the amount for Appliances in 2019 from 2018?",
      { answer: -94, answerType: "arithmetic", scale: "million" },
      "difference",
    ],
  ] as const)("computes '%s' as TAT-QA's gold, scale included", async (question, gold, operation) => {
    const o = await ask(question);
    expect(scoreTatQa(o.answer.text, { ...gold, answer: gold.answer } as Parameters<typeof scoreTatQa>[1]).em).toBe(1);
    expect(o.answer.derivation?.operation).toBe(operation);
  });

  it("answers which period a line item peaked in, and a cell with its scale", async () => {
    expect((await ask("In which year is the amount of total sales the largest?")).answer.text).toBe("2019");
    const total = await ask("What were the total liabilities of IMFT in 2018?");
    expect(total.answer.text).toContain("1,305");
  });
});
