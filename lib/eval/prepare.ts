import neo4j, { type Session } from "neo4j-driver";
import { closeBackend } from "../backends/registry";
import { loadMoviesCypher } from "../ingest/benchmarks/movies";
import { loadNorthwindCsv } from "../ingest/benchmarks/northwind";
import { BENCHMARK_NAMES, loadBenchmarkCatalog } from "../ingest/benchmarks/load";
import type { CatalogDeps } from "../deps";
import { refreshKnowledgeBase } from "../ingest/refresh";
import { encryptSecrets } from "../crypto/secrets";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { DEMO_KB_NAMES, seedDemoCatalogOnce } from "../demo/seed-catalog";
import type { SuiteDefinition } from "./types";

export interface Neo4jSettings {
  uri: string;
  user: string;
  password?: string;
  database?: string;
}

/** Counts nodes of a label (the graphs are checked one by one: a server may hold one and not the other). */
async function countLabel(session: Session, label: string): Promise<number> {
  const r = await session.run(`MATCH (n:\`${label}\`) RETURN count(n) AS n`);
  return neo4j.integer.toNumber(r.records[0]!.get("n"));
}

/** Loads movies.cypher and the northwind CSVs into a Neo4j server that lacks them (each at most once). */
export async function ensureNeo4jGraphs(
  settings: Neo4jSettings,
  datasetsDir: string,
  log: (line: string) => void = () => undefined,
): Promise<void> {
  const driver = neo4j.driver(settings.uri, neo4j.auth.basic(settings.user, settings.password ?? ""));
  try {
    const session = driver.session({ database: settings.database, defaultAccessMode: neo4j.session.READ });
    let movies: number;
    let orders: number;
    try {
      movies = await countLabel(session, "Movie");
      orders = await countLabel(session, "Order");
    } finally {
      await session.close();
    }
    if (movies === 0) {
      const r = await loadMoviesCypher(driver, datasetsDir, { database: settings.database });
      log(`loaded the movies graph into Neo4j (${r.nodes} nodes)`);
    }
    if (orders === 0) {
      await loadNorthwindCsv(driver, datasetsDir, { database: settings.database });
      log("loaded the northwind graph into Neo4j");
    }
  } finally {
    await driver.close();
  }
}

/**
 * Makes sure the catalog a suite runs against exists (command line only; the app never loads
 * benchmarks by itself): the demo KBs (seeded once), the benchmark KBs from DATASETS_DIR (registered
 * once, idempotent), and for Text2Cypher the Neo4j KB pointing at NEO4J_URI with both graphs loaded.
 */
export async function prepareSuiteCatalog(
  prisma: PrismaClient,
  deps: CatalogDeps,
  suite: SuiteDefinition,
  opts: { neo4j?: Neo4jSettings; log?: (line: string) => void } = {},
): Promise<void> {
  const log = opts.log ?? (() => undefined);
  const needs = new Set(suite.questions.flatMap((q) => q.goldKbNames));
  if (suite.key === "demo" || suite.key === "mixed") await seedDemoCatalogOnce(prisma, deps);
  if (suite.key.startsWith("custom:") || suite.key === "demo") return;

  const existing = new Map(
    (await prisma.knowledgeBase.findMany({ select: { id: true, name: true, config: true } })).map((k) => [k.name, k]),
  );
  const neo4jKb = existing.get(BENCHMARK_NAMES.neo4j);
  const wantsNeo4j = needs.has(BENCHMARK_NAMES.neo4j);
  if (wantsNeo4j && opts.neo4j) {
    await ensureNeo4jGraphs(opts.neo4j, deps.datasetsDir, log);
    const config = (neo4jKb?.config ?? {}) as { uri?: string; user?: string; database?: string };
    if (neo4jKb && (config.uri !== opts.neo4j.uri || config.user !== opts.neo4j.user || config.database !== opts.neo4j.database)) {
      // The benchmark KB was registered against another server (a test harness picks a new port each start).
      await prisma.knowledgeBase.update({
        where: { id: neo4jKb.id },
        data: {
          config: {
            uri: opts.neo4j.uri,
            user: opts.neo4j.user,
            ...(opts.neo4j.database ? { database: opts.neo4j.database } : {}),
          } as Prisma.InputJsonValue,
          secretsCiphertext: opts.neo4j.password ? encryptSecrets({ password: opts.neo4j.password }, deps.encryptionKey) : null,
        },
      });
      await closeBackend(neo4jKb.id);
      const refreshed = await refreshKnowledgeBase(prisma, deps, neo4jKb.id);
      log(`pointed "${BENCHMARK_NAMES.neo4j}" at ${opts.neo4j.uri}: ${refreshed.message}`);
    }
  }
  const demoNames = new Set<string>(Object.values(DEMO_KB_NAMES));
  const missing = [...needs].filter((n) => !existing.has(n) && !demoNames.has(n) && (n !== BENCHMARK_NAMES.neo4j || opts.neo4j));
  if (!missing.length) return;
  log(`registering the benchmark catalog from ${deps.datasetsDir} (once; ${missing.length} KB(s) this suite needs are missing)`);
  const started = Date.now();
  const report = await loadBenchmarkCatalog(prisma, deps, { neo4j: wantsNeo4j ? opts.neo4j : undefined, log });
  log(
    `benchmark catalog: ${report.registered.length} registered, ${report.skipped.length} already there, ${report.failed.length} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  for (const f of report.failed) log(`  failed: ${f.name}: ${f.error}`);
}
