// npm run bench -- sources | pipeline | models: measured figures, printed (not timed tests). Each phase runs in its own
// process so its peak memory (maxRSS) is its own.
//   sources: SciFact ingest (docs/s), BM25 latency over 200 SciFact claims (p50/p95), descriptors of all Spider databases.
//     --engine opensearch: the same SciFact phases on the SQLite and the OpenSearch engine side by side, plus both
//     engines' NDCG@10 / Recall@100 on the training claims; the cluster is SEARCH_URL, or with --opensearch-harness
//     a throw-away test node (Java 17 + Maven, tests/support/opensearch). With --models on, both collections are
//     also embedded (all-MiniLM-L6-v2 int8 from MODELS_DIR) and hybrid search is measured the same way.
//   guides: what 1,000 registered extraction guides cost an ask (scripts/bench-guides.ts).
//   pipeline: scripts/bench-pipeline.ts; models: scripts/bench-models.ts; audit: what the audit record costs a question (scripts/bench-audit.ts).
//   uploads: main-thread timer lateness while the hostile uploads of issue 31 are read (scripts/bench-hostile-uploads.ts).
//   attack: the attack corpus in a loop against the running app while /api/health is polled (scripts/bench-attack.ts).
//   instances: two app instances on one PostgreSQL and one OpenSearch node behind a round-robin client (scripts/bench-instances.ts).
//   api: ask p50/p95 through /api/v1 (JSON, SSE) and the MCP server against the Ask page's route (scripts/bench-api.ts).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { availableParallelism } from "node:os";
import { createDocumentsBackend, type DocumentsConfig, documentsConfigSchema } from "../lib/backends/documents";
import { loadSciFact } from "../lib/ingest/benchmarks/scifact";
import { OpenSearchCollection } from "../lib/backends/documents/opensearch/collection";
import { embedMissingVectors, openSearchVectorStore, sqliteVectorStore } from "../lib/backends/documents/vector-store";
import { LocalModelRuntime } from "../lib/models/local-runtime";
import { ndcgAtK, recallAtK } from "../lib/eval/metrics/retrieval";
import { scifactQuestions } from "../lib/eval/suites/scifact";
import { createSqlBackend } from "../lib/backends/sql";
import type { BackendContext } from "../lib/backends/types";
import { loadEnv } from "../lib/env";
import { percentile } from "./bench-stats";

const datasets = path.resolve(loadEnv().DATASETS_DIR);

function summary(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    max: s[s.length - 1],
    mean: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

const peakMiB = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** The collection's engine for a phase: SQLite in `dir`, or OpenSearch at the phase's --search-url (a fresh index prefix per run). */
function engineConfig(engine: string, searchUrl: string | undefined, run: string): DocumentsConfig {
  if (engine !== "opensearch") return documentsConfigSchema.parse({});
  return documentsConfigSchema.parse({
    engine: "opensearch",
    opensearch: { url: searchUrl, indexPrefix: `mosaic-bench-${run}`, replicas: 0 },
  });
}

async function phaseScifactIngest(dir: string, config: DocumentsConfig) {
  const ctx: BackendContext = { kbId: "bench-scifact", kbName: "SciFact", storageDir: dir };
  const t0 = performance.now();
  const report = await loadSciFact(ctx, datasets, { config });
  const seconds = (performance.now() - t0) / 1000;
  return { documents: report.added, seconds: +seconds.toFixed(2), docsPerSecond: Math.round(report.added / seconds), peakMiB: peakMiB() };
}

async function phaseBm25(dir: string, config: DocumentsConfig) {
  const ctx: BackendContext = { kbId: "bench-scifact", kbName: "SciFact", storageDir: dir };
  const backend = createDocumentsBackend(config, {}, ctx);
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

function benchRuntime(): LocalModelRuntime {
  const env = loadEnv();
  return new LocalModelRuntime({
    precision: "int8",
    embedder: env.EMBEDDING_MODEL,
    crossEncoder: null,
    locations: {
      modelsDir: path.resolve(env.MODELS_DIR),
      cacheDir: path.resolve(env.DATA_DIR, "models"),
      hubUrl: env.MODELS_HUB_URL ?? null,
    },
    threads: availableParallelism(),
    batchWaitMs: 2,
    batchSize: 32,
    queueLimit: 100_000,
    timeoutMs: 30 * 60_000,
  });
}

/** The embedding job's work on the collection's engine (the same loop the job runs). */
async function phaseEmbed(dir: string, config: DocumentsConfig) {
  const ctx: BackendContext = { kbId: "bench-scifact", kbName: "SciFact", storageDir: dir };
  const rt = benchRuntime();
  const embedder = await rt.embedder();
  const store = config.engine === "opensearch" ? openSearchVectorStore(OpenSearchCollection.open(config, {}, ctx)) : sqliteVectorStore(ctx);
  try {
    await store.prepare(embedder.info.id, embedder.info.dimensions ?? 0);
    const t0 = performance.now();
    const state = await embedMissingVectors(store, embedder, { stepTimeoutMs: 10 * 60_000 });
    const seconds = (performance.now() - t0) / 1000;
    return { rows: state.embedded, seconds: +seconds.toFixed(1), rowsPerSecond: Math.round(state.embedded / seconds), peakMiB: peakMiB() };
  } finally {
    await store.close();
    await rt.close();
  }
}

/** Hybrid search latency over 200 claims at top-100, the query's embedding included (as a question pays it). */
async function phaseHybrid(dir: string, config: DocumentsConfig) {
  const ctx: BackendContext = { kbId: "bench-scifact", kbName: "SciFact", storageDir: dir };
  const rt = benchRuntime();
  const embedder = await rt.embedder();
  const backend = createDocumentsBackend(config, {}, ctx);
  const claims = scifactQuestions(datasets).slice(0, 200);
  await backend.execute({ language: "search", text: "warm up" }, { maxRows: 100, embedder });
  const times: number[] = [];
  let hybrid = 0;
  for (const c of claims) {
    const t = performance.now();
    const r = await backend.execute({ language: "search", text: c.question }, { maxRows: 100, embedder });
    times.push(performance.now() - t);
    if (r.records[0]?.retrieval) hybrid++;
  }
  await backend.close();
  await rt.close();
  const s = summary(times);
  return {
    queries: s.n,
    hybrid,
    topK: 100,
    p50ms: +s.p50.toFixed(2),
    p95ms: +s.p95.toFixed(2),
    maxMs: +s.max.toFixed(2),
    peakMiB: peakMiB(),
  };
}

/** BEIR's measure of the first stage: each training claim searched (top 100), its cited abstracts relevant. */
async function phaseQuality(dir: string, config: DocumentsConfig, withModels = false) {
  const ctx: BackendContext = { kbId: "bench-scifact", kbName: "SciFact", storageDir: dir };
  const backend = createDocumentsBackend(config, {}, ctx);
  const rt = withModels ? benchRuntime() : null;
  const embedder = rt ? await rt.embedder() : null;
  const claims = scifactQuestions(datasets);
  let ndcg = 0;
  let recall = 0;
  for (const c of claims) {
    const docs = [
      ...new Set(
        (await backend.execute({ language: "search", text: c.question }, { maxRows: 100, embedder })).records.map((r) =>
          String(r.documentId),
        ),
      ),
    ];
    const cited = c.evidence?.documentIds ?? [];
    const ranks = cited.map((id) => (docs.indexOf(id) >= 0 ? docs.indexOf(id) + 1 : null));
    ndcg += ndcgAtK(ranks, 10, cited.length);
    recall += recallAtK(ranks, 100, cited.length);
  }
  await backend.close();
  await rt?.close();
  return {
    claims: claims.length,
    ranking: embedder ? "hybrid" : "bm25",
    ndcgAt10: +(ndcg / claims.length).toFixed(4),
    recallAt100: +(recall / claims.length).toFixed(4),
    peakMiB: peakMiB(),
  };
}

async function phaseSpiderDescriptors() {
  const root = path.join(datasets, "spider", "database");
  const dbs = readdirSync(root)
    .filter((d) => existsSync(path.join(root, d, `${d}.sqlite`)))
    .sort();
  const scratch = mkdtempSync(path.join(tmpdir(), "mosaic-bench-spider-"));
  const times: number[] = [];
  let chars = 0;
  const t0 = performance.now();
  for (const db of dbs) {
    const t = performance.now();
    const backend = createSqlBackend(
      { dialect: "sqlite", file: path.join(root, db, `${db}.sqlite`) },
      {},
      { kbId: db, kbName: db, storageDir: scratch },
    );
    const d = await backend.describe();
    chars += d.text.length;
    await backend.close();
    times.push(performance.now() - t);
  }
  const total = (performance.now() - t0) / 1000;
  rmSync(scratch, { recursive: true, force: true });
  const s = summary(times);
  return {
    databases: dbs.length,
    totalSeconds: +total.toFixed(2),
    perDbP50ms: +s.p50.toFixed(1),
    perDbP95ms: +s.p95.toFixed(1),
    meanDescriptorChars: Math.round(chars / dbs.length),
    peakMiB: peakMiB(),
  };
}

async function runPhase(phase: string, dir: string, config: DocumentsConfig) {
  const result =
    phase === "scifact-ingest"
      ? await phaseScifactIngest(dir, config)
      : phase === "bm25"
        ? await phaseBm25(dir, config)
        : phase === "quality"
          ? await phaseQuality(dir, config)
          : phase === "embed"
            ? await phaseEmbed(dir, config)
            : phase === "hybrid"
              ? await phaseHybrid(dir, config)
              : phase === "hybrid-quality"
                ? await phaseQuality(dir, config, true)
                : await phaseSpiderDescriptors();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function child(
  phase: string,
  dir: string,
  engine: { name: string; url?: string; run: string } = { name: "sqlite", run: "" },
): Record<string, number> {
  const engineArgs = ["--engine", engine.name, "--run", engine.run, ...(engine.url ? ["--search-url", engine.url] : [])];
  const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1], "--phase", phase, "--dir", dir, ...engineArgs], {
    encoding: "utf8",
    env: process.env,
  });
  if (r.status !== 0) throw new Error(`phase ${phase} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop()!);
}

const args = process.argv.slice(2);
const phaseIdx = args.indexOf("--phase");
const argOf = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
if (phaseIdx >= 0) {
  await runPhase(
    args[phaseIdx + 1],
    args[args.indexOf("--dir") + 1],
    engineConfig(argOf("--engine") ?? "sqlite", argOf("--search-url"), argOf("--run") ?? ""),
  );
} else {
  const suite = args[0];
  if (suite === "pipeline") {
    const { benchPipeline } = await import("./bench-pipeline");
    await benchPipeline(args.slice(1));
    process.exit(0);
  }
  if (suite === "guides") {
    const { benchGuides } = await import("./bench-guides");
    await benchGuides(args.slice(1));
    process.exit(0);
  }
  if (suite === "audit") {
    const { benchAudit } = await import("./bench-audit");
    await benchAudit(args.slice(1));
    process.exit(0);
  }
  if (suite === "models") {
    const { benchModels } = await import("./bench-models");
    await benchModels(args.slice(1));
    process.exit(0);
  }
  if (suite === "uploads") {
    // Runs on import (its own arguments follow "uploads").
    await import("./bench-hostile-uploads");
  }
  if (suite === "attack") {
    // Runs on import (its own arguments follow "attack").
    await import("./bench-attack");
  }
  if (suite === "api") {
    const { benchApi } = await import("./bench-api");
    await benchApi(args.slice(1));
    process.exit(0);
  }
  if (suite === "instances") {
    const { benchInstances } = await import("./bench-instances");
    await benchInstances();
    process.exit(0);
  }
  if (suite !== "sources") {
    console.error(
      "Usage: npm run bench -- sources [--engine sqlite|opensearch] [--opensearch-harness] [--models on] | pipeline [--questions N] [--data-dir DIR] [--models on|off] | models [--runs N] [--threads N] [--data-dir DIR] | attack [--seconds N] [--attackers N] [--base-url URL --pid PID] | uploads [--parsers PATH] [--limit S] | instances [--questions N] [--clients N] [--documents N] [--models on] | audit [--questions N] | api [--rounds N] | guides [--guides N] [--questions M] [--data-dir DIR] [--models on|off]",
    );
    process.exit(2);
  }
  if (!existsSync(datasets)) {
    console.error(`DATASETS_DIR (${datasets}) does not exist; set DATASETS_DIR=../shared/datasets.`);
    process.exit(1);
  }
  const dir = mkdtempSync(path.join(tmpdir(), "mosaic-bench-scifact-"));
  const withOpenSearch = argOf("--engine") === "opensearch";
  let harness: { url: string; stop(): Promise<void> } | undefined;
  try {
    console.log(`Mosaic bench: sources (node ${process.version}, ${(await import("node:os")).cpus().length} cores)\n`);
    if (withOpenSearch) {
      let url = loadEnv().SEARCH_URL;
      if (!url && args.includes("--opensearch-harness")) {
        const { startOpenSearch } = await import("../tests/support/services/opensearch");
        harness = await startOpenSearch();
        url = harness.url;
        console.log(`OpenSearch test node at ${url} (one node, -Xmx512m)`);
      }
      if (!url)
        throw new Error(
          "--engine opensearch needs a cluster: set SEARCH_URL, or pass --opensearch-harness to start a test node (Java 17 + Maven).",
        );
      // Side by side in one run: the same phases on each engine, each phase in its own process.
      const run = Date.now().toString(36);
      const engines = [
        { name: "sqlite", run },
        { name: "opensearch", url, run },
      ];
      const models = argOf("--models") === "on";
      for (const phase of ["scifact-ingest", "bm25", "quality", ...(models ? ["embed", "hybrid", "hybrid-quality"] : [])]) {
        for (const engine of engines) console.log(`${phase.padEnd(15)} ${engine.name.padEnd(11)}`, child(phase, dir, engine));
      }
      if (harness === undefined) console.log(`(indexes mosaic-bench-${run}-* are left on ${url}; delete them when done)`);
    } else {
      const ingest = child("scifact-ingest", dir);
      console.log("SciFact ingest          ", ingest);
      const bm25 = child("bm25", dir);
      console.log("BM25 over 200 claims    ", bm25);
      const spider = child("spider-descriptors", dir);
      console.log("Spider descriptors      ", spider);
    }
  } finally {
    await harness?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
