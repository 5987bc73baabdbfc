import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { TestModule, TestSpecification } from "vitest/node";
import type { Reporter } from "vitest/reporters";

/**
 * What a group of tests needs that `npm test` may not have, how a test file shows it needs it (the
 * variable or helper it reads), and the command that provides it.
 */
interface Tier {
  needs: string;
  available: () => boolean;
  usedBy: RegExp;
  run: string;
}

const SERVICES = "npm run test:services";
const datasetsDir = () => path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");

export const TIERS: Tier[] = [
  { needs: "a PostgreSQL server", available: () => !!process.env.TEST_POSTGRES_URL, usedBy: /TEST_POSTGRES_URL/, run: SERVICES },
  {
    needs: "a remote SPARQL endpoint (Virtuoso)",
    available: () => !!process.env.TEST_SPARQL_ENDPOINT,
    usedBy: /TEST_SPARQL_ENDPOINT/,
    run: SERVICES,
  },
  { needs: "Neo4j", available: () => !!process.env.TEST_NEO4J_URI, usedBy: /TEST_NEO4J_URI/, run: SERVICES },
  {
    needs: "the benchmark datasets",
    available: () => existsSync(path.join(datasetsDir(), "spider")),
    usedBy: /DATASETS_DIR/,
    run: "DATASETS_DIR=<folder with spider/, scifact/, tatqa/…> npm test",
  },
  {
    needs: "the embedded database (PGlite)",
    available: () => !process.env.TEST_POSTGRES_URL,
    usedBy: /TARGET_ENGINE !== "pglite"/,
    run: "npm test",
  },
];

/** The tier a skipped test file waits for: the first one this run lacks whose variable the file reads. */
export function tierOf(source: string, tiers: Tier[] = TIERS): Tier | null {
  return tiers.find((t) => !t.available() && t.usedBy.test(source)) ?? null;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * Ends a run with what it did not test: the tests skipped because a service or the data was missing,
 * grouped by what they need, with the command that runs them; and the browser tests when the run
 * left them out. Without it `npm test` reports a green run that silently skipped whole tiers.
 */
export default class SkippedTiersReporter implements Reporter {
  private projects = new Set<string>();

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>) {
    this.projects = new Set(specifications.map((s) => s.project.name));
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const byTier = new Map<Tier | null, { tests: number; files: number }>();
    for (const testModule of testModules) {
      const skipped = [...testModule.children.allTests()].filter((t) => t.result().state === "skipped").length;
      if (skipped === 0) continue;
      let source = "";
      try {
        source = readFileSync(testModule.moduleId, "utf8");
      } catch {
        // A virtual module: counted as skipped for another reason.
      }
      const tier = tierOf(source);
      const entry = byTier.get(tier) ?? { tests: 0, files: 0 };
      byTier.set(tier, { tests: entry.tests + skipped, files: entry.files + 1 });
    }
    const lines: string[] = [];
    const tiers = [...byTier.entries()].filter((e): e is [Tier, { tests: number; files: number }] => e[0] !== null);
    if (tiers.length) {
      const total = tiers.reduce((n, [, c]) => n + c.tests, 0);
      lines.push(`Skipped ${plural(total, "test", "tests")} that need what this run did not have:`);
      for (const [tier, c] of tiers)
        lines.push(`  ${String(c.tests).padStart(4)} need ${tier.needs} (${plural(c.files, "file", "files")}): ${tier.run}`);
      if (tiers.some(([t]) => t.run === SERVICES)) {
        lines.push(
          `  ${SERVICES} starts PostgreSQL, Virtuoso and Neo4j itself (Debian's postgresql, virtuoso-opensource, openjdk-17-jdk-headless, maven; see the README).`,
        );
      }
    }
    const other = byTier.get(null);
    if (other) lines.push(`${plural(other.tests, "test was", "tests were")} skipped by a filter or by the test itself.`);
    if (this.projects.size > 0 && !this.projects.has("e2e") && (this.projects.has("unit") || this.projects.has("integration"))) {
      lines.push("The browser tests are not part of this run: npm run test:e2e.");
    }
    if (lines.length) process.stdout.write(`\n${lines.join("\n")}\n`);
  }
}
