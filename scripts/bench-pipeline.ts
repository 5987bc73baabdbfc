// npm run bench -- pipeline [--questions N] [--data-dir DIR] [--models on|off]: per-stage p50/p95 of the
// pipeline over N questions (default 100) drawn evenly from Spider, SciFact, TAT-QA, Spider-RDF and, when
// NEO4J_URI is set, Text2Cypher, on the benchmark catalog (loaded into DIR first if it is not there).
// --models on (default): the sentence embedder (and cross-encoder, when configured) from MODELS_* ranks
// too, and the collections are embedded first; off: classical ranking only.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { embedCollectionsNow } from "../lib/server/embed-now";
import { closeAllBackends } from "../lib/backends/registry";
import { loadBenchmarkCatalog, spiderDevDatabases } from "../lib/ingest/benchmarks/load";
import { openAndBootstrap } from "../lib/db/bootstrap";
import { loadEnv } from "../lib/env";
import { runPipeline } from "../lib/runs/run-pipeline";
import { getSecrets } from "../lib/local-secrets";
import { NO_MODELS, resolveModels, shutdownModels } from "../lib/models/runtime";
import { flag, percentile, spread } from "./bench-stats";

export async function benchPipeline(args: string[]) {
  const env = loadEnv();
  const datasets = path.resolve(env.DATASETS_DIR);
  const total = Number(flag(args, "questions") ?? 100);
  const dataDir = path.resolve(flag(args, "data-dir") ?? mkdtempSync(path.join(tmpdir(), "mosaic-bench-pipeline-")));
  const { handle } = await openAndBootstrap({ ...env, DATA_DIR: dataDir, DATABASE_URL: undefined, SEED_DEMO: true });
  const deps = { dataDir, encryptionKey: getSecrets({ ...env, DATA_DIR: dataDir }).encryptionKey, datasetsDir: datasets };
  try {
    const t0 = Date.now();
    const neo4j = env.NEO4J_URI
      ? { uri: env.NEO4J_URI, user: env.NEO4J_USER, password: env.NEO4J_PASSWORD, database: env.NEO4J_DATABASE }
      : undefined;
    const load = await loadBenchmarkCatalog(handle.prisma, deps, { neo4j });
    console.log(
      `Benchmark catalog in ${dataDir}: ${load.registered.length} registered, ${load.skipped.length} already there (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
    const modelsOn = (flag(args, "models") ?? "on") !== "off";
    if (modelsOn) console.log(await embedCollectionsNow(handle.prisma, deps, { exclusive: true, log: (line) => console.log(`  ${line}`) }));
    const models = modelsOn ? await resolveModels(handle.prisma) : NO_MODELS;
    for (const note of models.notes) console.log(note);
    console.log(
      `Models: ${models.embedder ? models.embedder.info.id : "none (classical ranking)"}${models.crossEncoder ? ` + ${models.crossEncoder.info.id}` : ""}`,
    );

    const spider = JSON.parse(readFileSync(path.join(datasets, "spider", "dev-questions.json"), "utf8")) as { question: string }[];
    const claims = (parse(readFileSync(path.join(datasets, "scifact", "claims_train.csv")), { columns: true }) as { claim: string }[]).map(
      (c) => c.claim,
    );
    const tatqa = (
      JSON.parse(readFileSync(path.join(datasets, "tatqa", "tatqa_dataset_dev.json"), "utf8")) as { questions: { question: string }[] }[]
    ).flatMap((c) => c.questions.map((q) => q.question));
    const cypherFile = path.join(datasets, "text2cypher", "movies-northwind-dev.csv");
    const cypher =
      neo4j && existsSync(cypherFile)
        ? (parse(readFileSync(cypherFile), { columns: true }) as { question: string }[]).map((r) => r.question)
        : [];
    const groups = [spider.map((q) => q.question), claims, tatqa, ...(cypher.length ? [cypher] : [])];
    const per = Math.ceil(total / groups.length);
    const questions = groups.flatMap((g) => spread(g, per)).slice(0, total);
    console.log(`Spider dev databases with RDF versions: ${spiderDevDatabases(datasets).length}; questions: ${questions.length}\n`);

    const admin = await handle.prisma.user.findFirstOrThrow({ where: { role: "ADMIN" } });
    const user = { id: admin.id, role: admin.role, groupIds: [] };
    const perStage = new Map<string, number[]>();
    const totals: number[] = [];
    let answered = 0;
    // One warm-up run: opening backends, building indexes and embedding the catalog's texts once is not per-question work.
    const w0 = Date.now();
    await runPipeline(handle.prisma, deps, { question: "How many singers are there?", user, models });
    console.log(`warm-up run: ${((Date.now() - w0) / 1000).toFixed(1)} s`);
    for (const q of questions) {
      const o = await runPipeline(handle.prisma, deps, { question: q, user, models });
      totals.push(o.totalMs);
      if (!o.answer.refrained) answered++;
      for (const [stage, ms] of Object.entries(o.timings)) perStage.set(stage, [...(perStage.get(stage) ?? []), ms]);
    }
    const rows = [...perStage.entries()].map(([stage, ms]) => {
      const s = [...ms].sort((a, b) => a - b);
      return { stage, p50: percentile(s, 50), p95: percentile(s, 95) };
    });
    const t = [...totals].sort((a, b) => a - b);
    console.log("stage              p50 ms   p95 ms");
    for (const r of rows)
      console.log(`${r.stage.padEnd(18)} ${String(Math.round(r.p50)).padStart(6)}   ${String(Math.round(r.p95)).padStart(6)}`);
    console.log(
      `${"end to end".padEnd(18)} ${String(Math.round(percentile(t, 50))).padStart(6)}   ${String(Math.round(percentile(t, 95))).padStart(6)}`,
    );
    console.log(
      `\n${questions.length} questions, ${answered} answered, ${questions.length - answered} refrained; peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
    );
  } finally {
    await shutdownModels();
    await closeAllBackends();
    await handle.close();
  }
}
