// npm run guides:export -- [--kb NAME] --file F [--user <email>]
// Writes the guides the user may see (on one knowledge base, or all) as a JSON array in Spider's format:
// {db_id (Spider databases), kb, question, query, language}, readable by npm run guides:import.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { openAndBootstrap } from "../lib/db/bootstrap";
import { loadEnv } from "../lib/env";
import { exportGuides } from "../lib/guides/files";
import { runCli } from "./cli";
import { cliUser } from "./guides-user";

await runCli(async () => {
  const { values } = parseArgs({ options: { file: { type: "string" }, kb: { type: "string" }, user: { type: "string" } } });
  if (!values.file) throw new Error("Say where to write the guides: npm run guides:export -- [--kb NAME] --file guides.json");
  const { handle } = await openAndBootstrap(loadEnv());
  try {
    const user = await cliUser(handle.prisma, values.user);
    const items = await exportGuides(handle.prisma, user.subject, values.kb);
    const out = path.resolve(values.file);
    writeFileSync(out, `${JSON.stringify(items, null, 2)}\n`);
    console.log(`Wrote ${items.length} guide queries${values.kb ? ` on ${values.kb}` : ""} to ${out}.`);
  } finally {
    await handle.close();
  }
});
