import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const dataDirs = [mkdtempSync(path.join(tmpdir(), "mosaic-eval-cli-"))];
const outDir = mkdtempSync(path.join(tmpdir(), "mosaic-eval-out-"));
const env = { ...process.env, DATA_DIR: dataDirs[0], SEED_DEMO: "true", LOG_LEVEL: "silent", DATABASE_URL: "", NEO4J_URI: "" };

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
}

function startOnce(
  script: string,
  args: string[],
  onLine?: (line: string, child: ChildProcess) => void,
): Promise<Finished & { sent: boolean }> {
  return new Promise((resolve, reject) => {
    // One process (node with tsx's loader), so killing it kills the run: the tsx wrapper would leave its child running.
    const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", script), ...args], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
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
    // `killed` is set by child.kill(): a signal this test sent, as opposed to one the process died of by itself.
    child.once("exit", (code, signal) => resolve({ code, signal, out, sent: child.killed }));
  });
}

/**
 * Runs a script as a user does. A run that dies of a signal nobody sent (once on CI: SIGTRAP, a V8 fatal error in a
 * native part, not reproduced in 60 runs here) is not what these tests are about (resuming, cleaning up), so it is
 * printed for whoever reads the log and tried once more, after `beforeRetry` (new data where a test needs it).
 */
async function start(
  script: string,
  args: string[],
  onLine?: (line: string, child: ChildProcess) => void,
  beforeRetry?: () => void,
): Promise<Finished> {
  const first = await startOnce(script, args, onLine);
  if (first.signal === null || first.sent) return first;
  console.error(`${script} ${args.join(" ")} crashed by itself: ${said(first)}`);
  beforeRetry?.();
  return startOnce(script, args, onLine);
}

/** The end of what a process printed, for an assertion's message: a process that died on its own says why. */
function said(f: Finished): string {
  return `exit ${f.code ?? f.signal}; its output ended with:\n${f.out.slice(-4000)}`;
}

/** `npm run eval` and `npm run eval:compare` as a user runs them: separate processes on one DATA_DIR. */
describe("evaluation command line", () => {
  afterAll(() => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    rmSync(outDir, { recursive: true, force: true });
  });

  it("resumes after a crash: a killed run's finished questions are not asked again", async () => {
    const args = ["--suite", "demo", "--limit", "10", "--seed", "4", "--concurrency", "1"];
    // Killed hard (no cleanup at all) once three questions are recorded; a crash of its own starts over on new data.
    const crashed = await start(
      "eval.ts",
      args,
      (line, child) => {
        if (/^\[ ?3\/10\]/.test(line)) child.kill("SIGKILL");
      },
      () => (env.DATA_DIR = dataDirs[dataDirs.push(mkdtempSync(path.join(tmpdir(), "mosaic-eval-cli-"))) - 1]),
    );
    expect(crashed.signal, said(crashed)).toBe("SIGKILL");
    const reportId = /report (\w+)/.exec(crashed.out)?.[1];
    expect(reportId).toBeTruthy();

    const a = path.join(outDir, "a.json");
    const resumed = await start("eval.ts", [...args, "--json", a]);
    expect(resumed.code, said(resumed)).toBe(0);
    const done = Number(/Resuming: (\d+) of 10 questions are already done/.exec(resumed.out)?.[1]);
    expect(done).toBeGreaterThanOrEqual(3);
    expect(resumed.out).toContain(`report ${reportId}`);
    // Only the questions left were run in the second process.
    expect(resumed.out.match(/^\[\s*\d+\/10\]/gm)?.length).toBe(10 - done);
    const report = JSON.parse(readFileSync(a, "utf8"));
    expect(report).toMatchObject({ suite: "demo", n: 10, seed: 4, reportId, status: "DONE" });
    expect(Object.keys(report.metrics)).toEqual(
      expect.arrayContaining(["source", "execution", "answer", "refrain", "latency", "presence"]),
    );
    expect(report.perQuestion).toHaveLength(10);
    expect(resumed.out).toMatch(/Source selection\s+gold source among the candidates/);
    expect(resumed.out).toMatch(/Latency per stage/);
  }, 240_000);

  it("compares two reports: per-metric deltas and the questions that changed", async () => {
    const b = path.join(outDir, "b.json");
    const second = await start("eval.ts", [
      "--suite",
      "demo",
      "--limit",
      "10",
      "--seed",
      "4",
      "--fresh",
      "--config",
      path.join(outDir, "cfg.json"),
      "--json",
      b,
      "--quiet",
    ]);
    // The config file does not exist yet: a clear message, no stack trace.
    expect(second.code, said(second)).toBe(1);
    expect(second.out).toMatch(/Cannot read the config file/);
    expect(second.out).not.toMatch(/at .*\.ts:\d+/);

    const { writeFileSync } = await import("node:fs");
    writeFileSync(path.join(outDir, "cfg.json"), JSON.stringify({ answerThreshold: 0.9 }));
    const run = await start("eval.ts", [
      "--suite",
      "demo",
      "--limit",
      "10",
      "--seed",
      "4",
      "--config",
      path.join(outDir, "cfg.json"),
      "--json",
      b,
      "--quiet",
    ]);
    expect(run.code, said(run)).toBe(0);
    expect(JSON.parse(readFileSync(b, "utf8")).configInput).toEqual({ answerThreshold: 0.9 });

    const compared = await start("eval-compare.ts", [path.join(outDir, "a.json"), b]);
    expect(compared.code, said(compared)).toBe(0);
    expect(compared.out).toMatch(/Questions in both: 10/);
    expect(compared.out).toMatch(/refrain rate\s+\S+\s+\S+\s+[+−±]/);

    const wrong = await start("eval-compare.ts", [path.join(outDir, "a.json")]);
    expect(wrong.code, said(wrong)).toBe(1);
    expect(wrong.out).toMatch(/Give two report files/);
  }, 240_000);

  it("--questions tatqa: the file's temporary collection is removed when the run ends, fails, is interrupted, or after a crash", async () => {
    const { writeFileSync } = await import("node:fs");
    const contexts = (
      JSON.parse(readFileSync(path.join(ROOT, "..", "shared", "datasets", "tatqa", "tatqa_dataset_dev.json"), "utf8")) as unknown[]
    ).slice(0, 3);
    const file = path.join(outDir, "tatqa-own.json");
    writeFileSync(file, JSON.stringify(contexts));
    const base = ["--suite", "tatqa", "--questions", file, "--llm", "off", "--concurrency", "1"];
    const removed = /Removed the temporary collection "Evaluation questions [0-9a-f]{8}: tatqa-own\.json"/;

    // Interrupted once (Ctrl-C): the questions in flight are cancelled, then the collection goes.
    const interrupted = await start("eval.ts", base, (line, child) => {
      if (/^\[ ?1\/\d+\]/.test(line)) child.kill("SIGINT");
    });
    expect(interrupted.out).toMatch(/registered 3 context\(s\) of tatqa-own\.json as the temporary collection/);
    expect(interrupted.out).toMatch(/Cancelled after \d+ of \d+ questions/);
    expect(interrupted.out).toMatch(removed);

    // The run fails after the collection was registered (a config the pipeline does not know): removed too.
    writeFileSync(path.join(outDir, "bad-config.json"), JSON.stringify({ noSuchSetting: 1 }));
    const failed = await start("eval.ts", [...base, "--config", path.join(outDir, "bad-config.json")]);
    expect(failed.code, said(failed)).toBe(1);
    expect(failed.out).toMatch(/The pipeline config is invalid/);
    expect(failed.out).toMatch(removed);

    // Killed outright (no cleanup possible): the next run of the same file replaces what it left.
    const killed = await start("eval.ts", base, (line, child) => {
      if (/as the temporary collection/.test(line)) child.kill("SIGKILL");
    });
    expect(killed.signal, said(killed)).toBe("SIGKILL");
    const json = path.join(outDir, "tatqa-own-report.json");
    const done = await start("eval.ts", [...base, "--limit", "2", "--fresh", "--quiet", "--json", json]);
    expect(done.code, said(done)).toBe(0);
    expect(done.out).toMatch(
      /removed the temporary collection "Evaluation questions [0-9a-f]{8}: tatqa-own\.json" an earlier, interrupted run left/,
    );
    expect(done.out).toMatch(removed);
    const report = JSON.parse(readFileSync(json, "utf8"));
    expect(report).toMatchObject({
      suite: "tatqa",
      n: 2,
      status: "DONE",
      questionsFile: { name: "tatqa-own.json", sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(done.out).toMatch(/questions: tatqa-own\.json \(sha256 [0-9a-f]{64}\)/);
  }, 300_000);

  it("--questions: a broken file stops with the file, the item and what is wrong, before anything runs", async () => {
    const { writeFileSync } = await import("node:fs");
    const file = path.join(outDir, "spider-broken.json");
    writeFileSync(file, JSON.stringify([{ db_id: "concert_singer", question: "How many singers?" }]));
    const r = await start("eval.ts", ["--suite", "spider", "--questions", file]);
    expect(r.code, said(r)).toBe(1);
    expect(r.out).toMatch(/Failed: spider-broken\.json, item 1 \("How many singers\?"\): has no "query"\./);
    expect(r.out).not.toMatch(/at .*\.ts:\d+/);
    const wrongSuite = await start("eval.ts", ["--suite", "demo", "--questions", file]);
    expect(wrongSuite.code, said(wrongSuite)).toBe(1);
    expect(wrongSuite.out).toMatch(/--questions needs one of the suites spider, sparql-from-spider, tatqa, scifact, text2cypher/);
  }, 120_000);

  it("stops with a clear message when text2cypher has no Neo4j", async () => {
    const r = await start("eval.ts", ["--suite", "text2cypher", "--limit", "2"]);
    expect(r.code, said(r)).toBe(1);
    expect(r.out).toMatch(/NEO4J_URI/);
    expect(r.out).toMatch(/--neo4j-harness|test:services/);
  }, 120_000);
});
