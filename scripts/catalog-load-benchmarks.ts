// npm run catalog:load-benchmarks: registers the benchmark KBs from DATASETS_DIR (SciFact, TAT-QA, every
// Spider database, RDF versions of the Spider dev databases, and the Neo4j graphs when NEO4J_URI is set).
// Options: --spider-limit N, --scifact-limit N, --tatqa-limit N (quick partial catalogs).
import { existsSync } from "node:fs";
import { embedCollectionsNow } from "../lib/server/embed-now";
import { closeAllBackends } from "../lib/backends/registry";
import { loadBenchmarkCatalog } from "../lib/ingest/benchmarks/load";
import { catalogDeps } from "../lib/deps";
import { openAndBootstrap } from "../lib/db/bootstrap";
import { loadEnv } from "../lib/env";
import { shutdownModels } from "../lib/models/runtime";
import { runCli } from "./cli";

function numberFlag(name: string): number | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} needs a whole number.`);
  return n;
}

await runCli(async () => {
  const env = loadEnv();
  const deps = catalogDeps();
  if (!existsSync(deps.datasetsDir)) {
    throw new Error(
      `DATASETS_DIR (${deps.datasetsDir}) does not exist. Point it at the shared datasets folder, e.g. DATASETS_DIR=../shared/datasets.`,
    );
  }
  const { handle } = await openAndBootstrap(env);
  const started = Date.now();
  try {
    const neo4jUri = env.NEO4J_URI;
    const report = await loadBenchmarkCatalog(handle.prisma, deps, {
      spiderLimit: numberFlag("spider-limit"),
      scifactLimit: numberFlag("scifact-limit"),
      tatqaLimit: numberFlag("tatqa-limit"),
      neo4j: neo4jUri ? { uri: neo4jUri, user: env.NEO4J_USER, password: env.NEO4J_PASSWORD, database: env.NEO4J_DATABASE } : undefined,
      log: (line) => console.log(line),
    });
    if (!neo4jUri) console.log("NEO4J_URI is not set: the Neo4j movies and northwind graphs were not registered.");
    console.log(
      `\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s: ${report.registered.length} registered, ${report.skipped.length} already there, ${report.failed.length} failed.`,
    );
    for (const f of report.failed) console.log(`  failed: ${f.name}: ${f.error}`);
    if (report.failed.length) process.exitCode = 1;
    // Vectors for hybrid search: no server runs the embedding jobs here, so they run now.
    console.log(
      await embedCollectionsNow(handle.prisma, deps, { exclusive: handle.engine === "pglite", log: (line) => console.log(line) }),
    );
  } finally {
    await shutdownModels();
    await closeAllBackends();
    await handle.close();
  }
});
