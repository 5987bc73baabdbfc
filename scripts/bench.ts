// npm run bench -- sources: measured figures, printed (not timed tests). Each phase runs in its own
// process so its peak memory (maxRSS) is its own.
//   sources: SciFact ingest (docs/s), BM25 latency over 200 SciFact claims (p50/p95), descriptors of all Spider databases.
//   attack: the attack corpus in a loop against the running app while /api/health is polled (scripts/bench-attack.ts).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { createDocumentsBackend, documentsConfigSchema, loadSciFact } from "../lib/backends/documents";
import { createSqlBackend } from "../lib/backends/sql";
import type { BackendContext } from "../lib/backends/types";
import { loadEnv } from "../lib/env";

const datasets = path.resolve(loadEnv().DATASETS_DIR);

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

function summary(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p95: percentile(s, 95), max: s[s.length - 1], mean: s.reduce((a, b) => a + b, 0) / s.length };
}

const peakMiB = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function phaseScifactIngest(dir: string) {
  const ctx: BackendContext = { kbId: "bench-scifact", kbName: "SciFact", storageDir: dir };
  const t0 = performance.now();
  const report = await loadSciFact(ctx, datasets);
  const seconds = (performance.now() - t0) / 1000;
  return { documents: report.added, seconds: +seconds.toFixed(2), docsPerSecond: Math.round(report.added / seconds), peakMiB: peakMiB() };
}

async function phaseBm25(dir: string) {
  const ctx: BackendContext = { kbId: "bench-scifact", kbName: "SciFact", storageDir: dir };
  const backend = createDocumentsBackend(documentsConfigSchema.parse({}), {}, ctx);
  const claims = (parse(readFileSync(path.join(datasets, "scifact", "claims_train.csv")), { columns: true }) as { claim: string }[])
    .map((c) => c.claim)
    .filter(Boolean)
    .slice(0, 200);
  await backend.execute({ language: "search", text: "warm up" }, { maxRows: 100 });
  const times: number[] = [];
  for (const claim of claims) {
    const t = performance.now();
    await backend.execute({ language: "search", text: claim }, { maxRows: 100 });
    times.push(performance.now() - t);
  }
  await backend.close();
  const s = summary(times);
  return { queries: s.n, topK: 100, p50ms: +s.p50.toFixed(2), p95ms: +s.p95.toFixed(2), maxMs: +s.max.toFixed(2), peakMiB: peakMiB() };
}

async function phaseSpiderDescriptors() {
  const root = path.join(datasets, "spider", "database");
  const dbs = readdirSync(root).filter((d) => existsSync(path.join(root, d, `${d}.sqlite`))).sort();
  const scratch = mkdtempSync(path.join(tmpdir(), "mosaic-bench-spider-"));
  const times: number[] = [];
  let chars = 0;
  const t0 = performance.now();
  for (const db of dbs) {
    const t = performance.now();
    const backend = createSqlBackend({ dialect: "sqlite", file: path.join(root, db, `${db}.sqlite`) }, {}, { kbId: db, kbName: db, storageDir: scratch });
    const d = await backend.describe();
    chars += d.text.length;
    await backend.close();
    times.push(performance.now() - t);
  }
  const total = (performance.now() - t0) / 1000;
  rmSync(scratch, { recursive: true, force: true });
  const s = summary(times);
  return { databases: dbs.length, totalSeconds: +total.toFixed(2), perDbP50ms: +s.p50.toFixed(1), perDbP95ms: +s.p95.toFixed(1), meanDescriptorChars: Math.round(chars / dbs.length), peakMiB: peakMiB() };
}

async function runPhase(phase: string, dir: string) {
  const result = phase === "scifact-ingest" ? await phaseScifactIngest(dir) : phase === "bm25" ? await phaseBm25(dir) : await phaseSpiderDescriptors();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function child(phase: string, dir: string): Record<string, number> {
  const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1], "--phase", phase, "--dir", dir], { encoding: "utf8", env: process.env });
  if (r.status !== 0) throw new Error(`phase ${phase} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop()!);
}

const args = process.argv.slice(2);
const phaseIdx = args.indexOf("--phase");
if (phaseIdx >= 0) {
  await runPhase(args[phaseIdx + 1], args[args.indexOf("--dir") + 1]);
} else {
  const suite = args[0];
  if (suite === "pipeline") {
    const { benchPipeline } = await import("./bench-pipeline");
    await benchPipeline(args.slice(1));
    process.exit(0);
  }
  if (suite === "attack") {
    // Runs on import (its own arguments follow "attack").
    await import("./bench-attack");
  }
  if (suite !== "sources") {
    console.error("Usage: npm run bench -- sources | pipeline [--questions N] [--data-dir DIR] | attack [--seconds N] [--attackers N] [--base-url URL --pid PID]");
    process.exit(2);
  }
  if (!existsSync(datasets)) {
    console.error(`DATASETS_DIR (${datasets}) does not exist; set DATASETS_DIR=../shared/datasets.`);
    process.exit(1);
  }
  const dir = mkdtempSync(path.join(tmpdir(), "mosaic-bench-scifact-"));
  try {
    console.log(`Mosaic bench: sources (node ${process.version}, ${(await import("node:os")).cpus().length} cores)\n`);
    const ingest = child("scifact-ingest", dir);
    console.log("SciFact ingest          ", ingest);
    const bm25 = child("bm25", dir);
    console.log("BM25 over 200 claims    ", bm25);
    const spider = child("spider-descriptors", dir);
    console.log("Spider descriptors      ", spider);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
