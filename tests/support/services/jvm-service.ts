import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * What the Java-based test servers share (Neo4j's harness, the OpenSearch node): a small Maven project
 * under tests/support/<name> built once into its target/ and rebuilt only when its pom or sources
 * change, and a JVM started from it that prints `READY <address>` when it serves and stops cleanly when
 * its stdin closes.
 */

const STAMP = "mosaic-build.stamp";

/** A hash of everything the build reads: a changed pom or Java source means the build is stale. */
function sourcesHash(projectDir: string): string {
  const hash = createHash("sha256");
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else hash.update(path.relative(projectDir, full)).update(readFileSync(full));
    }
  };
  hash.update(readFileSync(path.join(projectDir, "pom.xml")));
  visit(path.join(projectDir, "src"));
  return hash.digest("hex");
}

function requireTool(cmd: string, args: string[], hint: string): void {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  if (r.error || r.status !== 0) throw new Error(`${cmd} is not available (${r.error?.message ?? r.stderr.trim()}). ${hint}`);
}

/** Builds the project with Maven unless target/ is already built from the current sources. */
export function prepareMavenProject(projectDir: string, what: string): { built: boolean; elapsedMs: number } {
  const started = performance.now();
  const targetDir = path.join(projectDir, "target");
  const stampFile = path.join(targetDir, STAMP);
  const expected = sourcesHash(projectDir);
  if (existsSync(stampFile) && readFileSync(stampFile, "utf8") === expected) return { built: false, elapsedMs: 0 };
  const hint = "Install Java 17 and Maven, e.g. apt-get update && apt-get install -y openjdk-17-jdk-headless maven.";
  requireTool("java", ["-version"], hint);
  requireTool("mvn", ["-v"], hint);
  rmSync(targetDir, { recursive: true, force: true });
  const r = spawnSync("mvn", ["-q", "-B", "-f", path.join(projectDir, "pom.xml"), "package"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) {
    const tail = `${r.stdout}\n${r.stderr}`.trim().split("\n").slice(-30).join("\n");
    throw new Error(
      `Building ${what} failed (mvn package in ${projectDir}). The first build downloads from Maven Central; later builds use ~/.m2.\n${tail}`,
    );
  }
  writeFileSync(stampFile, expected);
  return { built: true, elapsedMs: Math.round(performance.now() - started) };
}

export interface JvmProcess {
  /** What followed `READY ` on the JVM's ready line (its address). */
  address: string;
  /** The last lines the JVM wrote, for error messages. */
  logTail(lines?: number): string;
  /** Closes stdin (the polite stop), then SIGTERM, then SIGKILL; deletes `workDir` afterwards. Idempotent. */
  stop(): Promise<void>;
}

export interface JvmOptions {
  what: string;
  classPath: string[];
  mainClass: string;
  args: string[];
  /** Heap and GC flags (before -cp). */
  jvmFlags: string[];
  /** Working directory, deleted on stop (throw-away data). */
  workDir: string;
  env?: Record<string, string>;
  startTimeoutMs: number;
  stopTimeoutMs: number;
}

function waitForReady(child: ChildProcess, what: string, timeoutMs: number, tail: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    const timer = setTimeout(() => fail(new Error(`${what} did not start within ${timeoutMs / 1000} s.`)), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(new Error(`${error.message}\n${tail()}`));
    };
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl).trimEnd();
        buffered = buffered.slice(nl + 1);
        const ready = /^READY (\S+)/.exec(line);
        if (ready) {
          clearTimeout(timer);
          resolve(ready[1]!.replace(/\/$/, ""));
        }
      }
    });
    child.once("error", (e) => fail(new Error(`Could not start java: ${e.message}`)));
    child.once("exit", (code, signal) => fail(new Error(`${what} exited before it was ready (code ${code}, signal ${signal}).`)));
  });
}

/** Starts the JVM and resolves once it printed its READY line; on failure it is killed and its directory removed. */
export async function startJvm(o: JvmOptions): Promise<JvmProcess> {
  const child = spawn("java", [...o.jvmFlags, "-cp", o.classPath.join(path.delimiter), o.mainClass, ...o.args], {
    cwd: o.workDir,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...o.env },
  });
  // Keep the output drained (a full pipe would block the JVM) and its tail for error messages.
  const log: string[] = [];
  const keep = (chunk: Buffer) => {
    log.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    if (log.length > 200) log.splice(0, log.length - 200);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const logTail = (lines = 40) => log.slice(-lines).join("\n");

  let stopped: Promise<void> | null = null;
  const stop = () =>
    (stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        child.stdin!.end();
        const timeout = (ms: number) => new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), ms).unref());
        if ((await Promise.race([exited, timeout(o.stopTimeoutMs)])) === "timeout") {
          child.kill("SIGTERM");
          if ((await Promise.race([exited, timeout(10_000)])) === "timeout") child.kill("SIGKILL");
        }
      }
      rmSync(o.workDir, { recursive: true, force: true });
    })());

  try {
    const address = await waitForReady(child, o.what, o.startTimeoutMs, logTail);
    return { address, logTail, stop };
  } catch (error) {
    child.kill("SIGKILL");
    rmSync(o.workDir, { recursive: true, force: true });
    throw error;
  }
}
