// npm run guides:import -- --file F [--kb NAME] [--user <email>] [--keep-going] [--dry-run]
// Reads guides from a JSON array in Spider's format ({db_id or kb, question, query}; the query in the
// knowledge base's own language: SQL, SPARQL or Cypher), checks each (the source's safety rules, it
// runs, it returns rows) and reports per item. A broken item names itself and why, and nothing is
// imported unless --keep-going (then the good items are). --dry-run only checks.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { catalogDeps } from "../lib/deps";
import { openAndBootstrap } from "../lib/db/bootstrap";
import { loadEnv } from "../lib/env";
import { closeAllBackends } from "../lib/backends/registry";
import { importGuides, parseGuideFile } from "../lib/guides/files";
import { runCli } from "./cli";
import { cliUser } from "./guides-user";

await runCli(async () => {
  const { values } = parseArgs({
    options: {
      file: { type: "string" },
      kb: { type: "string" },
      user: { type: "string" },
      "keep-going": { type: "boolean" },
      "dry-run": { type: "boolean" },
    },
  });
  if (!values.file) throw new Error("Say which file to import: npm run guides:import -- --file guides.json [--kb NAME]");
  const file = path.resolve(values.file);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`Cannot read ${file}: ${(e as Error).message}`);
  }
  const items = parseGuideFile(text, values.file);
  const env = loadEnv();
  const { handle } = await openAndBootstrap(env);
  try {
    const user = await cliUser(handle.prisma, values.user);
    const report = await importGuides(handle.prisma, catalogDeps(), user.subject, items, {
      defaultKb: values.kb,
      keepGoing: values["keep-going"],
      dryRun: values["dry-run"],
      onItem: (r) =>
        console.log(
          `item ${r.item}: ${r.status === "failed" ? "FAILED" : r.status.padEnd(9)} ${r.question.slice(0, 70)} (${r.kb ?? "no source"}): ${r.detail}`,
        ),
    });
    const ok = report.items.filter((r) => r.status === "ready" || r.status === "imported").length;
    if (values["dry-run"])
      console.log(
        `\nChecked ${items.length} items: ${ok} ready, ${report.duplicates} already guides, ${report.failed} failed. Nothing imported (--dry-run).`,
      );
    else if (!report.committed)
      console.log(
        `\n${report.failed} of ${items.length} items failed (above): nothing was imported. Fix them, or pass --keep-going to import the ${ok} good ones.`,
      );
    else
      console.log(
        `\nImported ${report.imported} guides as ${user.email}${report.duplicates ? `; ${report.duplicates} were already guides` : ""}${report.failed ? `; ${report.failed} failed and were left out` : ""}.`,
      );
    if (report.failed > 0) process.exitCode = 1;
  } finally {
    await closeAllBackends();
    await handle.close();
  }
});
