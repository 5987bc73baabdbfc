// npm run eval:compare -- <a.json> <b.json> [--all] [--json <out>]
// Compares two reports written by `npm run eval -- --json`: per-metric deltas (B − A) and the questions
// whose outcome changed (fixed, broken, answered differently), matched by question id.
import { readFileSync, writeFileSync } from "node:fs";
import { compareReports, reportFileSchema } from "../lib/eval/compare";
import { formatComparison } from "../lib/eval/format";
import type { ReportJson } from "../lib/eval/types";
import { runCli } from "./cli";

const USAGE = "Usage: npm run eval:compare -- <a.json> <b.json> [--all] [--json <out.json>]";

function readReport(file: string): ReportJson {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`Cannot read ${file} as JSON: ${(e as Error).message}`);
  }
  const parsed = reportFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `${file} is not an evaluation report (write one with npm run eval -- --suite <name> --json <file>): ${parsed.error.issues[0]?.path.join(".")} ${parsed.error.issues[0]?.message}`,
    );
  }
  return raw as ReportJson;
}

await runCli(async () => {
  const argv = process.argv.slice(2);
  const files: string[] = [];
  let all = false;
  let jsonOut: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--all") all = true;
    else if (argv[i] === "--json") jsonOut = argv[++i];
    else if (argv[i].startsWith("--")) throw new Error(`Unknown option ${argv[i]}. ${USAGE}`);
    else files.push(argv[i]);
  }
  if (files.length !== 2) throw new Error(`Give two report files. ${USAGE}`);
  const comparison = compareReports(readReport(files[0]), readReport(files[1]));
  console.log(formatComparison(comparison, { maxQuestions: all ? Infinity : 40 }));
  if (jsonOut) {
    writeFileSync(jsonOut, `${JSON.stringify(comparison, null, 2)}\n`);
    console.log(`\nComparison written to ${jsonOut}`);
  }
});
