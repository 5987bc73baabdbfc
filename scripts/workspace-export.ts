// npm run workspace:export -- --out <folder>: writes this workspace (application database, document
// collections, knowledge-base files) into a new folder for npm run workspace:import. Stop the app first
// when it runs on the embedded database (PGlite allows one process).
import { parseArgs } from "node:util";
import { catalogDeps } from "../lib/deps";
import { openAndBootstrap } from "../lib/db/bootstrap";
import { loadEnv } from "../lib/env";
import { exportWorkspace } from "../lib/workspace/export";
import { runCli } from "./cli";

await runCli(async () => {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  if (!values.out) throw new Error("Say where to write the export: npm run workspace:export -- --out <new folder>");
  const env = loadEnv();
  // Brings the database to this version first, as a start of the app does.
  const { handle } = await openAndBootstrap({ ...env, SEED_DEMO: false });
  try {
    const { dir, manifest } = await exportWorkspace(handle, catalogDeps(), values.out, (line) => console.log(line));
    const rows = Object.values(manifest.tables).reduce((a, b) => a + b, 0);
    console.log(
      `Exported ${rows.toLocaleString("en")} rows, ${manifest.collections.length} document collections and the files of ${manifest.kbFiles.length} knowledge bases to ${dir}.`,
    );
    console.log("Import it with: npm run workspace:import -- --from <folder> (DATABASE_URL and SEARCH_URL of the new deployment set).");
  } finally {
    await handle.close();
  }
});
