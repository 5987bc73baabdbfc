// Main-thread lateness while hostile uploads are read (issue 31, cases 10–13): a 10 ms timer runs while
// each file is parsed; its lateness p50/p99/max is printed with the machine's load. Each case runs in its
// own process, killed after --limit seconds (a parser on the main thread can block it for minutes).
//
//   npx tsx scripts/bench-hostile-uploads.ts [--parsers <path to parsers/index.ts>] [--limit 60]
//
// --parsers points at another checkout's parsers (e.g. /work/main/lib/ingest/documents/parsers/index.ts)
// to measure the code before this change, which parsed on the calling thread.
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as H from "../tests/support/hostile-files";

const CASES: Record<string, () => { name: string; bytes: Buffer }> = {
  "case 10: 200,000 nested <div> (2.2 MB)": () => ({ name: "deep.html", bytes: H.deepHtml(200_000) }),
  "case 12: 1,000 nested list levels (1 MB)": () => ({ name: "deep.md", bytes: H.deepMarkdownList(1_000) }),
  "case 12: 8,000 nested list levels (64 MB)": () => ({ name: "deeper.md", bytes: H.deepMarkdownList(8_000) }),
  "case 13: 60 PDF pages sharing 4 M characters": () => ({ name: "shared.pdf", bytes: H.pdfSharedTextStream(60, 4_000_000) }),
};

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

async function runOne(caseName: string, parsers: string): Promise<void> {
  const mod = (await import(parsers)) as { parseDocument: (f: { name: string; bytes: Buffer }) => Promise<unknown> };
  const file = CASES[caseName]!();
  const late: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    late.push(now - last - 10);
    last = now;
    // Printed as it goes, so a run killed mid-parse still shows what the thread did until then.
    if (late.length % 50 === 0) process.stdout.write(`samples ${JSON.stringify(late.splice(0))}\n`);
  }, 10);
  const started = performance.now();
  const outcome = await mod.parseDocument(file).then(
    () => "read",
    (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 120),
  );
  // One more tick after the parse: the lateness of a thread blocked by it shows only once it is free.
  await new Promise((r) => setTimeout(r, 30));
  clearInterval(timer);
  process.stdout.write(`samples ${JSON.stringify(late)}\n`);
  process.stdout.write(`done ${JSON.stringify({ ms: Math.round(performance.now() - started), outcome })}\n`);
  process.exit(0);
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;

if (process.argv.includes("--child")) {
  await runOne(arg("--case")!, arg("--parsers")!);
} else {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const parsers = path.resolve(arg("--parsers") ?? path.join(here, "..", "lib", "ingest", "documents", "parsers", "index.ts"));
  const limitS = Number(arg("--limit") ?? 60);
  console.log(
    `parsers: ${parsers}; limit ${limitS} s; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  for (const name of Object.keys(CASES)) {
    const t0 = performance.now();
    const r = spawnSync(
      process.execPath,
      ["--import", "tsx", fileURLToPath(import.meta.url), "--child", "--case", name, "--parsers", parsers],
      {
        encoding: "utf8",
        timeout: limitS * 1000,
        killSignal: "SIGKILL",
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const wall = (performance.now() - t0) / 1000;
    const late = r.stdout
      .split("\n")
      .filter((l) => l.startsWith("samples "))
      .flatMap((l) => JSON.parse(l.slice(8)) as number[])
      .sort((a, b) => a - b);
    const done = r.stdout.split("\n").find((l) => l.startsWith("done "));
    const outcome = done ? (JSON.parse(done.slice(5)) as { ms: number; outcome: string }) : null;
    const killed = !done;
    // A killed run's thread was blocked from its last tick to the kill: count that as one lateness.
    const blocked = killed ? `blocked ≥ ${(wall - (late.length * 10) / 1000).toFixed(0)} s until killed at ${limitS} s` : "";
    console.log(
      `${name}: ${killed ? "KILLED" : `${outcome!.ms} ms, ${outcome!.outcome}`}; timer lateness p50 ${pct(late, 0.5).toFixed(1)} ms, p99 ${pct(late, 0.99).toFixed(1)} ms, max ${(late.at(-1) ?? NaN).toFixed(0)} ms (${late.length} ticks)${blocked ? `; ${blocked}` : ""}; load ${loadavg()[0]!.toFixed(2)}`,
    );
  }
}
