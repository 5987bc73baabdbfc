import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { prepareMavenProject, startJvm } from "./jvm-service";
import { freePort } from "./postgres";

/**
 * A throw-away OpenSearch 2.19 node for the integration tests: OpenSearch's Node run in-process by the
 * machine's Java 17 from the small Maven project in tests/support/opensearch (Maven Central artifacts
 * only: the server, the netty4 HTTP transport, analysis-common, reindex, painless, and the k-NN plugin's jars),
 * single-node discovery, HTTP on a free loopback port, its own data directory, no security plugin (so
 * no credentials). Needs `java` (17+) and `mvn` on PATH; the first build downloads ~60 MB into ~/.m2,
 * later builds work offline. k-NN has no native engines here: vector fields use "engine": "lucene".
 */

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
const PROJECT_DIR = path.resolve(REPO_ROOT, "tests/support/opensearch");
const TARGET_DIR = path.join(PROJECT_DIR, "target");
const MAIN_CLASS = "mosaic.TestOpenSearch";
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 30_000;

export interface OpenSearchServer {
  /** http://127.0.0.1:<port> */
  url: string;
  stop(): Promise<void>;
}

/** Builds the launcher with Maven unless target/ is already built from the current sources. */
export function prepareOpenSearch(): { built: boolean; elapsedMs: number } {
  return prepareMavenProject(PROJECT_DIR, "the test OpenSearch");
}

/** The node answers once its cluster state has a manager and is at least yellow. */
async function waitForCluster(url: string, deadline: number): Promise<void> {
  let last = "";
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/_cluster/health?wait_for_status=yellow&timeout=10s`, { signal: AbortSignal.timeout(15_000) });
      const body = (await res.json()) as { status?: string; timed_out?: boolean };
      if (res.ok && !body.timed_out) return;
      last = `status ${body.status ?? res.status}`;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`OpenSearch at ${url} started but its cluster did not become usable (${last}).`);
}

/** Starts a fresh, empty node; stop() ends the JVM and deletes its data. */
export async function startOpenSearch(): Promise<OpenSearchServer> {
  prepareOpenSearch();
  const started = Date.now();
  const httpPort = await freePort();
  let transportPort = await freePort();
  while (transportPort === httpPort) transportPort = await freePort();
  const base = mkdtempSync(path.join(tmpdir(), "mosaic-opensearch-"));
  const jvm = await startJvm({
    what: "OpenSearch",
    classPath: [path.join(TARGET_DIR, "classes"), path.join(TARGET_DIR, "lib", "*"), path.join(TARGET_DIR, "knn", "*")],
    mainClass: MAIN_CLASS,
    args: [String(httpPort), String(transportPort), path.join(base, "node")],
    jvmFlags: [
      "-Xms256m",
      "-Xmx512m",
      "-XX:+UseSerialGC",
      // Tests start the node often and run it briefly: quick JIT over peak speed.
      "-XX:TieredStopAtLevel=1",
      "-XX:+ExitOnOutOfMemoryError",
      "-Dlog4j2.disable.jmx=true",
      `-Djava.io.tmpdir=${base}`,
    ],
    workDir: base,
    startTimeoutMs: START_TIMEOUT_MS,
    stopTimeoutMs: STOP_TIMEOUT_MS,
  });
  try {
    await waitForCluster(jvm.address, started + START_TIMEOUT_MS);
  } catch (e) {
    await jvm.stop();
    throw new Error(`${(e as Error).message}\n${jvm.logTail()}`);
  }
  return { url: jvm.address, stop: jvm.stop };
}

/** The variable the integration tests read. */
export function openSearchTestEnv(server: Pick<OpenSearchServer, "url">): Record<string, string> {
  return { TEST_OPENSEARCH_URL: server.url };
}

// `npx tsx tests/support/services/opensearch.ts`: start one for manual runs and print the env to export.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const t0 = performance.now();
  const build = prepareOpenSearch();
  const t1 = performance.now();
  const server = await startOpenSearch();
  const t2 = performance.now();
  console.log(`# build ${build.built ? `${Math.round(t1 - t0)} ms` : "up to date"}, start ${Math.round(t2 - t1)} ms`);
  for (const [k, v] of Object.entries(openSearchTestEnv(server))) console.log(`export ${k}=${v}`);
  const shutdown = () => void server.stop().then(() => process.exit(0));
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  process.stdin.resume();
  process.stdin.once("end", shutdown);
}
