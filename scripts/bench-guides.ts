// npm run bench -- guides [--guides N] [--questions M] [--data-dir DIR] [--models on|off]
// What registered extraction guides cost an ask (issue 28: "latency with 1,000 guides: ask p50 within
// 10 % of none"). On the benchmark catalog (loaded into DIR first if it is not there), M Spider dev
// questions (default 60, spread evenly) are asked with no guide registered, then N guides (default 1,000)
// are imported from Spider's TRAINING questions on their own training databases (every item checked as
// `npm run guides:import` checks it: a query that returns no rows is skipped and the next one is drawn),
// the same questions are asked again, the guides are removed, and the questions are asked a third time
// (the drift of the machine between the first and the last pass). Prints p50/p95 of the whole ask and of
// the guide lookup per pass; a figure, not a test.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { closeAllBackends } from "../lib/backends/registry";
import { openAndBootstrap } from "../lib/db/bootstrap";
import { loadEnv } from "../lib/env";
import { evalGuideOwner, registerEvalGuides } from "../lib/eval/guides";
import { runGuideReader } from "../lib/guides/retrieval";
import { loadBenchmarkCatalog } from "../lib/ingest/benchmarks/load";
import { getSecrets } from "../lib/local-secrets";
import { NO_MODELS, resolveModels, shutdownModels } from "../lib/models/runtime";
import { mulberry32 } from "../lib/random";
import { textEmbeddings } from "../lib/models/text-embeddings";
import { runPipeline } from "../lib/runs/run-pipeline";
import { embedCollectionsNow } from "../lib/server/embed-now";
import { flag, percentile, spread } from "./bench-stats";

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

export async function benchGuides(args: string[]) {
  const env = loadEnv();
  const datasets = path.resolve(env.DATASETS_DIR);
  const wantedGuides = Number(flag(args, "guides") ?? 1000);
  const total = Number(flag(args, "questions") ?? 60);
  const dataDir = path.resolve(flag(args, "data-dir") ?? mkdtempSync(path.join(tmpdir(), "mosaic-bench-guides-")));
  const { handle } = await openAndBootstrap({ ...env, DATA_DIR: dataDir, DATABASE_URL: undefined, SEED_DEMO: true });
  const prisma = handle.prisma;
  const deps = { dataDir, encryptionKey: getSecrets({ ...env, DATA_DIR: dataDir }).encryptionKey, datasetsDir: datasets };
  try {
    const loaded = await loadBenchmarkCatalog(prisma, deps, {});
    console.log(`Benchmark catalog in ${dataDir}: ${loaded.registered.length} registered, ${loaded.skipped.length} already there`);
    const modelsOn = (flag(args, "models") ?? "on") !== "off";
    if (modelsOn) console.log(await embedCollectionsNow(prisma, deps, { exclusive: true, log: (line) => console.log(`  ${line}`) }));
    const models = modelsOn ? await resolveModels(prisma) : NO_MODELS;
    console.log(`Models: ${models.embedder ? models.embedder.info.id : "none (classical ranking)"}`);

    const admin = await prisma.user.findFirstOrThrow({ where: { role: "ADMIN" }, orderBy: { createdAt: "asc" } });
    const user = { id: admin.id, role: admin.role, groupIds: [] };
    const before = await prisma.extractionGuide.count();
    const kbIds = (await prisma.knowledgeBase.findMany({ select: { id: true } })).map((k) => k.id);
    const semantic = models.embedder ? { embedder: models.embedder, texts: textEmbeddings(prisma, models.embedder) } : null;
    const dev = JSON.parse(readFileSync(path.join(datasets, "spider", "dev-questions.json"), "utf8")) as { question: string }[];
    const questions = spread(
      dev.map((q) => q.question),
      total,
    );

    async function pass(label: string) {
      const totals: number[] = [];
      const lookups: number[] = [];
      for (const question of questions) {
        const o = await runPipeline(prisma, deps, { question, user, models });
        totals.push(o.totalMs);
        // The lookup the run does first (lib/guides/retrieval.ts), timed alone: nearest guides and their vocabulary.
        const l0 = performance.now();
        const guides = runGuideReader(prisma);
        await guides.nearest({ user, question, kbIds, limit: 3, minScore: 0.2, semantic });
        await guides.examples({ user, kbIds });
        lookups.push(performance.now() - l0);
      }
      const t = totals.sort((a, b) => a - b);
      const g = lookups.sort((a, b) => a - b);
      const row = { label, p50: percentile(t, 50), p95: percentile(t, 95), lookupP50: percentile(g, 50), lookupP95: percentile(g, 95) };
      console.log(
        `${label.padEnd(28)} ask p50 ${String(Math.round(row.p50)).padStart(5)} ms  p95 ${String(Math.round(row.p95)).padStart(5)} ms` +
          `   guide lookup p50 ${row.lookupP50.toFixed(1)} ms  p95 ${row.lookupP95.toFixed(1)} ms` +
          `   (load ${load()})`,
      );
      return row;
    }

    // A warm-up ask: opening backends and building indexes once is not per-question work.
    await runPipeline(prisma, deps, { question: "How many singers are there?", user, models });
    console.log(`${questions.length} Spider dev questions per pass; ${before} guides registered before the bench\n`);
    const none = await pass("no guides");

    // Training questions on present training databases, drawn with a fixed seed; drawn until N import.
    const train = (
      JSON.parse(readFileSync(path.join(datasets, "spider", "train-questions.json"), "utf8")) as {
        db_id: string;
        question: string;
        query: string;
      }[]
    ).filter((q) => !["baseball_1", "soccer_1"].includes(q.db_id));
    const rand = mulberry32(1);
    for (let i = train.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [train[i], train[j]] = [train[j], train[i]];
    }
    const owner = await evalGuideOwner(prisma, user);
    const registered: Awaited<ReturnType<typeof registerEvalGuides>>[] = [];
    let imported = 0;
    let next = 0;
    const t0 = Date.now();
    while (imported < wantedGuides && next < train.length) {
      const batch = train.slice(next, next + (wantedGuides - imported));
      next += batch.length;
      const file = { items: batch, ref: { name: "bench", sha256: "" } };
      const r = await registerEvalGuides(prisma, deps, owner, file);
      registered.push(r);
      imported += r.guideIds.length;
    }
    console.log(`\nImported ${imported} guides from ${next} training questions in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // Their questions embedded, as the server's job runner does after an import (not timed as an ask).
    if (modelsOn) console.log(await embedCollectionsNow(prisma, deps, { exclusive: true, log: (line) => console.log(`  ${line}`) }));
    console.log("");
    const withGuides = await pass(`${imported} guides`);
    let removed = 0;
    for (const r of registered) removed += await r.remove();
    const after = await pass("no guides again (drift)");
    console.log(
      `\nRemoved ${removed} guides. Ask p50 with ${imported} guides: ${((withGuides.p50 / none.p50 - 1) * 100).toFixed(1)} % against the first pass, ${((withGuides.p50 / after.p50 - 1) * 100).toFixed(1)} % against the last, ${((withGuides.p50 / ((none.p50 + after.p50) / 2) - 1) * 100).toFixed(1)} % against their mean (the pass with guides sits between them in time).`,
    );
    console.log(`Peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`);
  } finally {
    await shutdownModels();
    await closeAllBackends();
    await handle.close();
  }
}
