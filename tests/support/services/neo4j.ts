import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import neo4j, { type Driver } from "neo4j-driver";
import { loadMoviesCypher } from "../../../lib/ingest/benchmarks/movies";
import { prepareMavenProject, startJvm } from "./jvm-service";
import { freePort } from "./postgres";

/**
 * A throw-away Neo4j Community 5.26 (LTS) for the integration tests: Neo4j's in-process test harness
 * (Maven Central's org.neo4j.test:neo4j-harness, with APOC core as a plugin) run by the machine's Java 17
 * from the small Maven project in tests/support/neo4j, Bolt only, on a free loopback port, with its own
 * data directory. Needs `java` (17+) and `mvn` on PATH; the first build downloads ~170 MB into ~/.m2,
 * later builds work offline.
 */

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
const PROJECT_DIR = path.resolve(REPO_ROOT, "tests/support/neo4j");
const TARGET_DIR = path.join(PROJECT_DIR, "target");
const MAIN_CLASS = "mosaic.TestNeo4j";
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 30_000;

export const NEO4J_TEST_USER = "neo4j";
/** Authentication stays on so the tests also see refused credentials; the password guards nothing. */
export const NEO4J_TEST_PASSWORD = "mosaic-neo4j-test";

export interface Neo4jServer {
  uri: string;
  user: string;
  password: string;
  stop(): Promise<void>;
}

export function datasetsDir(): string {
  return path.resolve(REPO_ROOT, process.env.DATASETS_DIR ?? "../shared/datasets");
}

/** Builds the harness with Maven unless target/ is already built from the current sources. */
export function prepareNeo4j(): { built: boolean; elapsedMs: number } {
  return prepareMavenProject(PROJECT_DIR, "the test Neo4j");
}

/** Starts a fresh, empty Neo4j; stop() ends the JVM and deletes its data. */
export async function startNeo4j(): Promise<Neo4jServer> {
  prepareNeo4j();
  const port = await freePort();
  const base = mkdtempSync(path.join(tmpdir(), "mosaic-neo4j-"));
  const jvm = await startJvm({
    what: "Neo4j",
    classPath: [path.join(TARGET_DIR, "classes"), path.join(TARGET_DIR, "lib", "*"), path.join(TARGET_DIR, "plugins", "*")],
    mainClass: MAIN_CLASS,
    args: [String(port), path.join(base, "db"), path.join(TARGET_DIR, "plugins")],
    // Tests start Neo4j often and run it briefly: quick JIT over peak speed.
    jvmFlags: ["-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError"],
    workDir: base,
    env: { NEO4J_TEST_PASSWORD },
    startTimeoutMs: START_TIMEOUT_MS,
    stopTimeoutMs: STOP_TIMEOUT_MS,
  });
  return { uri: jvm.address, user: NEO4J_TEST_USER, password: NEO4J_TEST_PASSWORD, stop: jvm.stop };
}

/** The variables the integration tests read. */
export function neo4jTestEnv(server: Pick<Neo4jServer, "uri" | "user" | "password">): Record<string, string> {
  return { TEST_NEO4J_URI: server.uri, TEST_NEO4J_USER: server.user, TEST_NEO4J_PASSWORD: server.password };
}

/** Loads <DATASETS_DIR>/neo4j-movies/movies.cypher. Test setup, so it writes directly, not through a backend. */
export async function loadMoviesGraph(
  target: Driver | { uri: string; user: string; password: string },
  options: { database?: string } = {},
): Promise<{ nodes: number; relationships: number }> {
  const driver = "session" in target ? target : neo4j.driver(target.uri, neo4j.auth.basic(target.user, target.password));
  try {
    return await loadMoviesCypher(driver, datasetsDir(), options);
  } finally {
    if (driver !== target) await driver.close();
  }
}

// `npx tsx tests/support/services/neo4j.ts`: start one for manual runs and print the env to export.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const t0 = performance.now();
  const build = prepareNeo4j();
  const t1 = performance.now();
  const server = await startNeo4j();
  const t2 = performance.now();
  console.log(`# build ${build.built ? `${Math.round(t1 - t0)} ms` : "up to date"}, start ${Math.round(t2 - t1)} ms`);
  for (const [k, v] of Object.entries(neo4jTestEnv(server))) console.log(`export ${k}=${v}`);
  const shutdown = () => void server.stop().then(() => process.exit(0));
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  process.stdin.resume();
  process.stdin.once("end", shutdown);
}
