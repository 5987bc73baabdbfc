import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import neo4j, { type Driver } from "neo4j-driver";
import { loadMoviesCypher } from "../../../lib/backends/cypher/datasets/movies";
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
const STAMP_FILE = path.join(TARGET_DIR, "mosaic-build.stamp");
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

/** A hash of everything the build reads: a changed pom or Java source means the build is stale. */
function sourcesHash(): string {
  const hash = createHash("sha256");
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else hash.update(path.relative(PROJECT_DIR, full)).update(readFileSync(full));
    }
  };
  hash.update(readFileSync(path.join(PROJECT_DIR, "pom.xml")));
  visit(path.join(PROJECT_DIR, "src"));
  return hash.digest("hex");
}

function requireTool(cmd: string, args: string[], hint: string): void {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  if (r.error || r.status !== 0) throw new Error(`${cmd} is not available (${r.error?.message ?? r.stderr.trim()}). ${hint}`);
}

/** Builds the harness with Maven unless target/ is already built from the current sources. */
export function prepareNeo4j(): { built: boolean; elapsedMs: number } {
  const started = performance.now();
  const expected = sourcesHash();
  if (existsSync(STAMP_FILE) && readFileSync(STAMP_FILE, "utf8") === expected) return { built: false, elapsedMs: 0 };
  const hint = "Install Java 17 and Maven, e.g. apt-get update && apt-get install -y openjdk-17-jdk-headless maven.";
  requireTool("java", ["-version"], hint);
  requireTool("mvn", ["-v"], hint);
  rmSync(TARGET_DIR, { recursive: true, force: true });
  const r = spawnSync("mvn", ["-q", "-B", "-f", path.join(PROJECT_DIR, "pom.xml"), "package"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) {
    const tail = `${r.stdout}\n${r.stderr}`.trim().split("\n").slice(-30).join("\n");
    throw new Error(`Building the test Neo4j failed (mvn package in ${PROJECT_DIR}). The first build downloads from Maven Central; later builds use ~/.m2.\n${tail}`);
  }
  writeFileSync(STAMP_FILE, expected);
  return { built: true, elapsedMs: Math.round(performance.now() - started) };
}

function waitForReady(child: ChildProcess, log: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    const timer = setTimeout(() => fail(new Error(`Neo4j did not start within ${START_TIMEOUT_MS / 1000} s.`)), START_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(new Error(`${error.message}\n${log.slice(-40).join("\n")}`));
    };
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl).trimEnd();
        buffered = buffered.slice(nl + 1);
        const ready = /^READY (bolt:\/\/\S+)/.exec(line);
        if (ready) {
          clearTimeout(timer);
          resolve(ready[1]!.replace(/\/$/, ""));
        }
      }
    };
    child.stdout!.on("data", onData);
    child.once("error", (e) => fail(new Error(`Could not start java: ${e.message}`)));
    child.once("exit", (code, signal) => fail(new Error(`Neo4j exited before it was ready (code ${code}, signal ${signal}).`)));
  });
}

/** Starts a fresh, empty Neo4j; stop() ends the JVM and deletes its data. */
export async function startNeo4j(): Promise<Neo4jServer> {
  prepareNeo4j();
  const port = await freePort();
  const base = mkdtempSync(path.join(tmpdir(), "mosaic-neo4j-"));
  const classPath = [path.join(TARGET_DIR, "classes"), path.join(TARGET_DIR, "lib", "*"), path.join(TARGET_DIR, "plugins", "*")].join(path.delimiter);
  const child = spawn(
    "java",
    [
      "-Xms128m",
      "-Xmx512m",
      "-XX:+UseSerialGC",
      // Tests start Neo4j often and run it briefly: quick JIT over peak speed.
      "-XX:TieredStopAtLevel=1",
      "-XX:+ExitOnOutOfMemoryError",
      "-cp",
      classPath,
      MAIN_CLASS,
      String(port),
      path.join(base, "db"),
      path.join(TARGET_DIR, "plugins"),
    ],
    { cwd: base, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NEO4J_TEST_PASSWORD } },
  );
  // Keep the output drained (a full pipe would block the JVM) and its tail for error messages.
  const log: string[] = [];
  const keep = (chunk: Buffer) => {
    log.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    if (log.length > 200) log.splice(0, log.length - 200);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);

  let stopped: Promise<void> | null = null;
  const stop = () =>
    (stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        // Closing stdin is the polite stop (the JVM shuts Neo4j down cleanly); then SIGTERM, then SIGKILL.
        child.stdin!.end();
        const timeout = (ms: number) => new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), ms).unref());
        if ((await Promise.race([exited, timeout(STOP_TIMEOUT_MS)])) === "timeout") {
          child.kill("SIGTERM");
          if ((await Promise.race([exited, timeout(10_000)])) === "timeout") child.kill("SIGKILL");
        }
      }
      rmSync(base, { recursive: true, force: true });
    })());

  try {
    const uri = await waitForReady(child, log);
    return { uri, user: NEO4J_TEST_USER, password: NEO4J_TEST_PASSWORD, stop };
  } catch (error) {
    child.kill("SIGKILL");
    rmSync(base, { recursive: true, force: true });
    throw error;
  }
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
