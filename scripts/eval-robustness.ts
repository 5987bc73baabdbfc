// npx tsx scripts/eval-robustness.ts sample --suite <spider|tatqa|text2cypher> [--seed N]
// npx tsx scripts/eval-robustness.ts check [--suite <spider|tatqa|text2cypher|all>] [--neo4j-harness]
// The robustness suite's upkeep (eval/robustness/README.md). `sample` prints the dev items the seed draws
// (the worklist the rewrites were written from). `check` loads each overlay against DATASETS_DIR (every
// broken item is named with its reason), says whether its items come from the seed's sample, and runs
// each dev item's gold (an item whose gold fails cannot be paired) and every changed gold: Spider's on
// the dataset's SQLite files, Text2Cypher's on Neo4j (NEO4J_URI, or a throw-away one with
// --neo4j-harness; skipped otherwise). It exits 1 when anything is wrong.
import neo4j from "neo4j-driver";
import { catalogDeps } from "../lib/deps";
import { loadEnv } from "../lib/env";
import { AppError } from "../lib/errors";
import { ensureNeo4jGraphs } from "../lib/eval/prepare";
import { checkChangedGold, checkDevGold, type GoldRunner, sqliteGoldRunner } from "../lib/eval/robustness/check";
import {
  isRobustnessSuite,
  loadRobustnessSet,
  readRobustnessDataset,
  ROBUSTNESS_SUITES,
  type RobustnessSuiteKey,
} from "../lib/eval/robustness/overlay";
import { drawRobustnessSample, ROBUSTNESS_SEED } from "../lib/eval/robustness/sample";
import { runCli } from "./cli";

const USAGE =
  "Usage: npx tsx scripts/eval-robustness.ts sample --suite <spider|tatqa|text2cypher> [--seed N] | check [--suite <spider|tatqa|text2cypher|all>] [--neo4j-harness]";

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const v = argv[i + 1];
  if (v === undefined || v.startsWith("--")) throw new AppError("VALIDATION", `${name} needs a value. ${USAGE}`);
  return v;
}

function suitesOf(value: string | undefined, allowAll: boolean): RobustnessSuiteKey[] {
  if (!value || (allowAll && value === "all")) return [...ROBUSTNESS_SUITES];
  if (!isRobustnessSuite(value)) throw new AppError("VALIDATION", `There is no robustness set "${value}". ${USAGE}`);
  return [value];
}

/** Cypher gold through a READ session, rows as arrays (what the check compares). */
function cypherRunner(settings: { uri: string; user: string; password?: string }) {
  const driver = neo4j.driver(settings.uri, neo4j.auth.basic(settings.user, settings.password ?? ""));
  const run: GoldRunner = async (q) => {
    if (q.gold.type !== "query") throw new Error(`${q.id}: the gold is not a query`);
    const session = driver.session({ defaultAccessMode: neo4j.session.READ });
    try {
      const result = await session.run(q.gold.text);
      return result.records.map((r) => r.keys.map((k) => JSON.stringify(r.get(k))));
    } finally {
      await session.close();
    }
  };
  return Object.assign(run, { close: () => driver.close() });
}

await runCli(async () => {
  const [command, ...argv] = process.argv.slice(2);
  const deps = catalogDeps();
  if (command === "sample") {
    const [suite] = suitesOf(flag(argv, "--suite") ?? "", false);
    const seed = Number(flag(argv, "--seed") ?? ROBUSTNESS_SEED);
    if (!Number.isInteger(seed)) throw new AppError("VALIDATION", `--seed needs a whole number. ${USAGE}`);
    const refs = drawRobustnessSample(readRobustnessDataset(suite, deps.datasetsDir), seed);
    console.log(JSON.stringify({ suite, seed, n: refs.length, refs }, null, 2));
    return;
  }
  if (command !== "check") throw new AppError("VALIDATION", USAGE);

  const env = loadEnv();
  let failed = false;
  let harness: { stop(): Promise<void> } | null = null;
  let cypher: (GoldRunner & { close(): Promise<void> }) | null = null;
  try {
    for (const suite of suitesOf(flag(argv, "--suite"), true)) {
      const set = loadRobustnessSet(suite, deps.datasetsDir);
      const counts = Object.entries(set.classCounts)
        .map(([c, n]) => `${c} ${n}`)
        .join(", ");
      console.log(`${suite}: ${set.rewritten.length} rewrites of ${set.dev.length} dev items (${counts}); seed ${set.seed}.`);
      const sample = new Set(drawRobustnessSample(readRobustnessDataset(suite, deps.datasetsDir), set.seed).map(String));
      const outside = set.dev.filter((q) => !sample.has(q.id.slice(q.id.lastIndexOf(":") + 1)));
      if (outside.length) {
        failed = true;
        console.log(
          `  ${outside.length} dev item(s) are not in the seed's sample: ${outside
            .slice(0, 5)
            .map((q) => q.id)
            .join(", ")}`,
        );
      } else console.log(`  every dev item is in the sample seed ${set.seed} draws (${sample.size} items).`);

      let run: GoldRunner | null = null;
      if (suite === "spider") run = sqliteGoldRunner();
      if (suite === "text2cypher") {
        if (!cypher) {
          let settings = env.NEO4J_URI ? { uri: env.NEO4J_URI, user: env.NEO4J_USER, password: env.NEO4J_PASSWORD } : null;
          if (!settings && argv.includes("--neo4j-harness")) {
            const { startNeo4j } = await import("../tests/support/services/neo4j");
            const server = await startNeo4j();
            harness = server;
            settings = server;
          }
          if (settings) {
            await ensureNeo4jGraphs(settings, deps.datasetsDir);
            cypher = cypherRunner(settings);
          }
        }
        run = cypher;
        if (!run) console.log("  changed Cypher gold not run: set NEO4J_URI or add --neo4j-harness.");
      }
      if (suite === "tatqa")
        console.log("  changed TAT-QA answers are recomputed by hand from the report (eval/robustness/README.md); nothing to run.");
      if (!run) continue;
      const devProblems = await checkDevGold(set, run);
      console.log(`  ${set.dev.length} dev gold queries run: ${devProblems.length ? `${devProblems.length} fail` : "each runs"}.`);
      for (const p of devProblems) console.log(`    ${p.id}: ${p.detail}`);
      if (devProblems.length) failed = true;
      const { checked, problems } = await checkChangedGold(set, run);
      if (suite === "spider") (run as ReturnType<typeof sqliteGoldRunner>).close();
      console.log(
        `  ${checked} changed gold queries run: ${problems.length ? `${problems.length} problem(s)` : "each returns rows of its own"}.`,
      );
      for (const p of problems) console.log(`    ${p.id}: ${p.problem}: ${p.detail}`);
      if (problems.some((p) => p.problem !== "same-as-dev")) failed = true;
    }
  } finally {
    await cypher?.close();
    await harness?.stop();
  }
  if (failed) process.exitCode = 1;
});
