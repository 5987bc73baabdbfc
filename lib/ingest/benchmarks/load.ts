import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import neo4j from "neo4j-driver";
import { loadSciFact } from "./scifact";
import { loadTatQa } from "./tatqa";
import { loadMoviesCypher } from "./movies";
import { loadNorthwindCsv } from "./northwind";
import { storeRdfFiles } from "../../backends/sparql/index";
import { directMappingFromSqlite } from "./direct-mapping";
import type { PrismaClient } from "../../db/generated/client";
import type { CatalogDeps } from "../../deps";
import { registerKnowledgeBase } from "../register";

/**
 * Benchmark knowledge bases hold published data sets, shared with every signed-in user as they were
 * before knowledge bases became private by default (issue 29): said explicitly, never left to a default.
 */
const BENCHMARKS_OPEN = true;

/**
 * Registers the public benchmark data in DATASETS_DIR as knowledge bases (origin "benchmark"):
 * SciFact and TAT-QA as document collections, every Spider database as a SQL KB, W3C Direct-Mapping
 * RDF versions of the Spider databases that have dev questions as SPARQL KBs, and the Neo4j movies and
 * northwind graphs when a Neo4j server is given. Idempotent: KBs already registered by name are skipped.
 */
export const BENCHMARK_NAMES = {
  scifact: "SciFact abstracts",
  tatqa: "TAT-QA financial reports",
  spider: (db: string) => `Spider: ${db}`,
  spiderRdf: (db: string) => `Spider RDF: ${db}`,
  neo4j: "Neo4j movies and northwind",
};

export interface BenchmarkLoadOptions {
  /** Only register the first N Spider databases (alphabetical), for quick runs. */
  spiderLimit?: number;
  /** SciFact/TAT-QA document limits, for quick runs. */
  scifactLimit?: number;
  tatqaLimit?: number;
  neo4j?: { uri: string; user: string; password?: string; database?: string };
  log?: (line: string) => void;
  /**
   * Called before each knowledge base and once at the end: how many of the total are done, and which one is
   * next. Awaited: a job's progress report throws when the job was cancelled, which stops the load there.
   */
  progress?: (p: BenchmarkLoadProgress) => void | Promise<void>;
  /** Aborted: the load stops before the next knowledge base (what is registered stays; a new load skips it). */
  signal?: AbortSignal;
}

export interface BenchmarkLoadProgress {
  done: number;
  total: number;
  /** The knowledge base being loaded now; null once every one is done. */
  current: string | null;
}

export interface BenchmarkLoadReport {
  registered: string[];
  skipped: string[];
  failed: { name: string; error: string }[];
}

function spiderDatabases(datasetsDir: string): string[] {
  const dir = path.join(datasetsDir, "spider", "database");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((db) => existsSync(path.join(dir, db, `${db}.sqlite`)))
    .sort();
}

/** The Spider databases that the dev questions use: their RDF versions back the sparql-from-spider suite. */
export function spiderDevDatabases(datasetsDir: string): string[] {
  const file = path.join(datasetsDir, "spider", "dev-questions.json");
  if (!existsSync(file)) return [];
  const questions = JSON.parse(readFileSync(file, "utf8")) as { db_id: string }[];
  return [...new Set(questions.map((q) => q.db_id))].sort();
}

export async function loadBenchmarkCatalog(
  prisma: PrismaClient,
  deps: CatalogDeps,
  opts: BenchmarkLoadOptions = {},
): Promise<BenchmarkLoadReport> {
  const log = opts.log ?? (() => undefined);
  const report: BenchmarkLoadReport = { registered: [], skipped: [], failed: [] };
  const existing = new Set((await prisma.knowledgeBase.findMany({ select: { name: true } })).map((k) => k.name));
  const admin = await prisma.user.findFirst({ where: { role: "ADMIN" }, orderBy: { createdAt: "asc" }, select: { id: true } });
  const owner = admin?.id ?? null;
  const datasets = deps.datasetsDir;
  const spider = spiderDatabases(datasets).slice(0, opts.spiderLimit ?? Infinity);
  const spiderSet = new Set(spider);
  const spiderRdf = spiderDevDatabases(datasets).filter((d) => spiderSet.has(d));
  const total = 2 + spider.length + spiderRdf.length + (opts.neo4j ? 1 : 0);
  let done = 0;

  async function attempt(name: string, register: () => Promise<unknown>) {
    opts.signal?.throwIfAborted();
    await opts.progress?.({ done, total, current: name });
    done++;
    if (existing.has(name)) {
      report.skipped.push(name);
      return;
    }
    const started = Date.now();
    try {
      await register();
      report.registered.push(name);
      existing.add(name);
      log(`registered ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    } catch (e) {
      report.failed.push({ name, error: (e as Error).message });
      log(`FAILED ${name}: ${(e as Error).message}`);
    }
  }

  await attempt(BENCHMARK_NAMES.scifact, () =>
    registerKnowledgeBase(
      prisma,
      deps,
      owner,
      {
        kind: "DOCUMENTS",
        name: BENCHMARK_NAMES.scifact,
        description:
          "SciFact: 5,183 scientific abstracts (biomedical research findings) used to verify scientific claims. Wadden et al. 2020, CC BY-NC 2.0.",
        connection: { language: "en" },
        openToEveryone: BENCHMARKS_OPEN,
      },
      [],
      { origin: "benchmark", populate: async (ctx) => void (await loadSciFact(ctx, datasets, { limit: opts.scifactLimit })) },
    ),
  );
  await attempt(BENCHMARK_NAMES.tatqa, () =>
    registerKnowledgeBase(
      prisma,
      deps,
      owner,
      {
        kind: "DOCUMENTS",
        name: BENCHMARK_NAMES.tatqa,
        description:
          "TAT-QA dev: 278 excerpts of company financial reports, each a table with paragraphs (revenue, costs, assets, shares). Zhu et al. 2021.",
        connection: { language: "en" },
        openToEveryone: BENCHMARKS_OPEN,
      },
      [],
      { origin: "benchmark", populate: async (ctx) => void (await loadTatQa(ctx, datasets, { limit: opts.tatqaLimit })) },
    ),
  );

  for (const db of spider) {
    await attempt(BENCHMARK_NAMES.spider(db), () =>
      registerKnowledgeBase(
        prisma,
        deps,
        owner,
        {
          kind: "SQL",
          name: BENCHMARK_NAMES.spider(db),
          description: `Spider benchmark database ${db.replace(/_/g, " ")} (SQLite). Yu et al. 2018, CC BY-SA 4.0.`,
          connection: { dialect: "sqlite" },
          openToEveryone: BENCHMARKS_OPEN,
        },
        [],
        { origin: "benchmark", sqliteSourcePath: path.join(datasets, "spider", "database", db, `${db}.sqlite`) },
      ),
    );
  }
  for (const db of spiderRdf) {
    await attempt(BENCHMARK_NAMES.spiderRdf(db), () =>
      registerKnowledgeBase(
        prisma,
        deps,
        owner,
        {
          kind: "SPARQL",
          name: BENCHMARK_NAMES.spiderRdf(db),
          description: `RDF version of the Spider database ${db.replace(/_/g, " ")} by the W3C Direct Mapping (tables become classes, columns predicates, foreign keys links).`,
          connection: { mode: "embedded" },
          openToEveryone: BENCHMARKS_OPEN,
        },
        [],
        {
          origin: "benchmark",
          populate: async (ctx) => {
            const nt = directMappingFromSqlite(
              path.join(datasets, "spider", "database", db, `${db}.sqlite`),
              `http://mosaic.local/spider/${db}/`,
            );
            await storeRdfFiles(ctx, [{ name: `${db}.nt`, bytes: Buffer.from(nt), format: "ntriples" }]);
          },
        },
      ),
    );
  }

  if (opts.neo4j) {
    const { uri, user, password, database } = opts.neo4j;
    await attempt(BENCHMARK_NAMES.neo4j, async () => {
      await loadNeo4jBenchmarkGraphs(uri, user, password ?? "", datasets, database, log);
      return registerKnowledgeBase(
        prisma,
        deps,
        owner,
        {
          kind: "CYPHER",
          name: BENCHMARK_NAMES.neo4j,
          description:
            "Neo4j example graphs: movies (people who acted in, directed, produced, wrote or reviewed films) and northwind (customers, orders, products, suppliers, employees).",
          connection: { uri, user, database, password },
          openToEveryone: BENCHMARKS_OPEN,
        },
        [],
        { origin: "benchmark" },
      );
    });
  }
  await opts.progress?.({ done, total, current: null });
  return report;
}

/** Loads movies.cypher and the local Northwind CSVs into an empty Neo4j database (skipped when it has data). */
async function loadNeo4jBenchmarkGraphs(
  uri: string,
  user: string,
  password: string,
  datasetsDir: string,
  database: string | undefined,
  log: (l: string) => void,
) {
  const driver = neo4j.driver(uri, neo4j.auth.basic(user, password));
  try {
    const session = driver.session({ database, defaultAccessMode: neo4j.session.WRITE });
    try {
      const count = (await session.run("MATCH (n) RETURN count(n) AS n")).records[0].get("n").toNumber();
      if (count > 0) {
        log(`Neo4j already holds ${count} nodes: not loading the graphs again`);
        return;
      }
    } finally {
      await session.close();
    }
    await loadMoviesCypher(driver, datasetsDir, { database });
    const northwind = await loadNorthwindCsv(driver, datasetsDir, { database });
    log(`loaded movies and northwind into Neo4j (${JSON.stringify(northwind)})`);
  } finally {
    await driver.close();
  }
}
