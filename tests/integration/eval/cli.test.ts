import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const dataDir = mkdtempSync(path.join(tmpdir(), "mosaic-eval-cli-"));
const outDir = mkdtempSync(path.join(tmpdir(), "mosaic-eval-out-"));
const env = { ...process.env, DATA_DIR: dataDir, SEED_DEMO: "true", LOG_LEVEL: "silent", DATABASE_URL: "", NEO4J_URI: "" };

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
}

function start(script: string, args: string[], onLine?: (line: string, child: ChildProcess) => void): Promise<Finished> {
  return new Promise((resolve, reject) => {
    // One process (node with tsx's loader), so killing it kills the run: the tsx wrapper would leave its child running.
    const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", script), ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let partial = "";
    const read = (chunk: Buffer) => {
      out += chunk.toString("utf8");
      partial += chunk.toString("utf8");
      let nl: number;
      while ((nl = partial.indexOf("\n")) >= 0) {
        const line = partial.slice(0, nl);
        partial = partial.slice(nl + 1);
        onLine?.(line, child);
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve({ code, signal, out }));
  });
}

/** `npm run eval` and `npm run eval:compare` as a user runs them: separate processes on one DATA_DIR. */
describe("evaluation command line", () => {
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(outDir, { recursive: true, force: true });
  });

  it("resumes after a crash: a killed run's finished questions are not asked again", async () => {
    const args = ["--suite", "demo", "--limit", "10", "--seed", "4", "--concurrency", "1"];
    const crashed = await start("eval.ts", args, (line, child) => {
      // Killed hard (no cleanup at all) once three questions are recorded.
      if (/^\[ ?3\/10\]/.test(line)) child.kill("SIGKILL");
    });
    expect(crashed.signal).toBe("SIGKILL");
    const reportId = /report (\w+)/.exec(crashed.out)?.[1];
    expect(reportId).toBeTruthy();

    const a = path.join(outDir, "a.json");
    const resumed = await start("eval.ts", [...args, "--json", a]);
    expect(resumed.code).toBe(0);
    const done = Number(/Resuming: (\d+) of 10 questions are already done/.exec(resumed.out)?.[1]);
    expect(done).toBeGreaterThanOrEqual(3);
    expect(resumed.out).toContain(`report ${reportId}`);
    // Only the questions left were run in the second process.
    expect(resumed.out.match(/^\[\s*\d+\/10\]/gm)?.length).toBe(10 - done);
    const report = JSON.parse(readFileSync(a, "utf8"));
    expect(report).toMatchObject({ suite: "demo", n: 10, seed: 4, reportId, status: "DONE" });
    expect(Object.keys(report.metrics)).toEqual(expect.arrayContaining(["source", "execution", "answer", "refrain", "latency", "presence"]));
    expect(report.perQuestion).toHaveLength(10);
    expect(resumed.out).toMatch(/Source selection\s+gold source among the candidates/);
    expect(resumed.out).toMatch(/Latency per stage/);
  }, 240_000);

  it("compares two reports: per-metric deltas and the questions that changed", async () => {
    const b = path.join(outDir, "b.json");
    const second = await start("eval.ts", ["--suite", "demo", "--limit", "10", "--seed", "4", "--fresh", "--config", path.join(outDir, "cfg.json"), "--json", b, "--quiet"]);
    // The config file does not exist yet: a clear message, no stack trace.
    expect(second.code).toBe(1);
    expect(second.out).toMatch(/Cannot read the config file/);
    expect(second.out).not.toMatch(/at .*\.ts:\d+/);

    const { writeFileSync } = await import("node:fs");
    writeFileSync(path.join(outDir, "cfg.json"), JSON.stringify({ answerThreshold: 0.9 }));
    const run = await start("eval.ts", ["--suite", "demo", "--limit", "10", "--seed", "4", "--config", path.join(outDir, "cfg.json"), "--json", b, "--quiet"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(readFileSync(b, "utf8")).configInput).toEqual({ answerThreshold: 0.9 });

    const compared = await start("eval-compare.ts", [path.join(outDir, "a.json"), b]);
    expect(compared.code).toBe(0);
    expect(compared.out).toMatch(/Questions in both: 10/);
    expect(compared.out).toMatch(/refrain rate\s+\S+\s+\S+\s+[+−±]/);

    const wrong = await start("eval-compare.ts", [path.join(outDir, "a.json")]);
    expect(wrong.code).toBe(1);
    expect(wrong.out).toMatch(/Give two report files/);
  }, 240_000);

  it("stops with a clear message when text2cypher has no Neo4j", async () => {
    const r = await start("eval.ts", ["--suite", "text2cypher", "--limit", "2"]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/NEO4J_URI/);
    expect(r.out).toMatch(/--neo4j-harness|test:services/);
  }, 120_000);
});
