import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./postgres";

/**
 * A throw-away Virtuoso Open Source server (Debian's `virtuoso-opensource`) as the remote SPARQL
 * endpoint for `npm run test:services`: free loopback ports, its own database directory, a generated
 * virtuoso.ini with small memory settings, and the shop fixture loaded into a named graph.
 */
export interface VirtuosoServer {
  /** The SPARQL endpoint, http://127.0.0.1:<port>/sparql. */
  endpoint: string;
  stop(): void;
}

/** The graph the fixture is loaded into; tests use it as the backend's defaultGraph. */
export const VIRTUOSO_FIXTURE_GRAPH = "http://example.org/shop/graph";
export const VIRTUOSO_FIXTURE_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/sparql/products.ttl");
/** Triples in VIRTUOSO_FIXTURE_FILE. */
export const VIRTUOSO_FIXTURE_TRIPLES = 78;

const VIRTUOSO_BIN = "/usr/bin/virtuoso-t";
const ISQL_BIN = "/usr/bin/isql-vt";
const START_TIMEOUT_MS = 60_000;

function iniFor(dir: string, sqlPort: number, httpPort: number): string {
  // Small buffers and one thread per query: the tests load a few hundred triples on a 2-core machine.
  // MaxQueryExecutionTime bounds what a test's runaway query costs after the client gave up on it.
  return `[Database]
DatabaseFile = ${dir}/virtuoso.db
ErrorLogFile = ${dir}/virtuoso.log
LockFile = ${dir}/virtuoso.lck
TransactionFile = ${dir}/virtuoso.trx
xa_persistent_file = ${dir}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = ${dir}/virtuoso-temp.db
TransactionFile = ${dir}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:${sqlPort}
DisableUnixSocket = 1
DisableTcpSocket = 0
MaxClientConnections = 8
CheckpointInterval = 0
DirsAllowed = ., ${dir}
NumberOfBuffers = 2000
MaxDirtyBuffers = 1500
ThreadsPerQuery = 1
AsyncQueueMaxThreads = 2
MaxQueryMem = 100M

[HTTPServer]
ServerPort = 127.0.0.1:${httpPort}
ServerRoot = ${dir}
MaxClientConnections = 8
ServerThreads = 8
EnabledDavVSP = 0

[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = 15
MaxQueryCostEstimationTime = 0
`;
}

async function waitForEndpoint(endpoint: string, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let exited: number | null = null;
  child.once("exit", (code) => (exited = code ?? -1));
  while (Date.now() < deadline) {
    if (exited !== null) break;
    try {
      const res = await fetch(`${endpoint}?query=${encodeURIComponent("ASK {}")}`, {
        headers: { Accept: "application/sparql-results+json" },
      });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const log = existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").slice(-15).join("\n") : "(no log)";
  throw new Error(`Virtuoso did not start within ${START_TIMEOUT_MS / 1000} s${exited !== null ? ` (exit code ${exited})` : ""}:\n${log}`);
}

export async function startVirtuoso(): Promise<VirtuosoServer> {
  if (!existsSync(VIRTUOSO_BIN) || !existsSync(ISQL_BIN)) {
    throw new Error(
      "Virtuoso not found. Install it with: apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y virtuoso-opensource",
    );
  }
  const [sqlPort, httpPort] = [await freePort(), await freePort()];
  const dir = mkdtempSync(path.join(tmpdir(), "mosaic-virtuoso-"));
  const ini = path.join(dir, "virtuoso.ini");
  writeFileSync(ini, iniFor(dir, sqlPort, httpPort));
  const fixture = path.join(dir, "fixture.ttl");
  copyFileSync(VIRTUOSO_FIXTURE_FILE, fixture);

  // +foreground keeps it our child, so stop() (or this process dying) ends it.
  const child = spawn(VIRTUOSO_BIN, ["+foreground", "+configfile", ini], { cwd: dir, stdio: "ignore" });
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  const endpoint = `http://127.0.0.1:${httpPort}/sparql`;
  try {
    await waitForEndpoint(endpoint, child, path.join(dir, "virtuoso.log"));
    // The loader reads the file server-side (hence DirsAllowed); the checkpoint makes the load durable.
    const load = spawnSync(
      ISQL_BIN,
      [
        `127.0.0.1:${sqlPort}`,
        "dba",
        "dba",
        `exec=DB.DBA.TTLP_MT(file_to_string_output('${fixture}'), '', '${VIRTUOSO_FIXTURE_GRAPH}'); checkpoint;`,
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    const output = `${load.stdout ?? ""}${load.stderr ?? ""}`;
    if (load.status !== 0 || /\*\*\* Error/.test(output)) throw new Error(`Loading the fixture into Virtuoso failed:\n${output}`);
  } catch (e) {
    stop();
    throw e;
  }
  return { endpoint, stop };
}
