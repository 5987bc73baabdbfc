// npm run workspace:import -- --from <folder> [--to-database URL] [--to-search URL] [--data-dir DIR]
//   [--storage-dir DIR] [--source-secrets <old DATA_DIR>/secrets.json | --source-key KEY]
// Reads a workspace export into the scale deployment: PostgreSQL (DATABASE_URL or --to-database) and
// OpenSearch (SEARCH_URL or --to-search) for the collections that were SQLite files. The target must be empty.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { decodeKey, loadEnv } from "../lib/env";
import { resolveSecrets } from "../lib/local-secrets";
import { importWorkspace } from "../lib/workspace/import";
import { runCli } from "./cli";

function sourceKey(values: { "source-key"?: string; "source-secrets"?: string }): Buffer | undefined {
  if (values["source-key"]) {
    const key = decodeKey(values["source-key"]);
    if (!key) throw new Error("--source-key must be 32 bytes, as 64 hex characters or base64.");
    return key;
  }
  if (values["source-secrets"]) {
    const stored = JSON.parse(readFileSync(values["source-secrets"], "utf8")) as { encryptionKey?: string };
    const key = stored.encryptionKey ? decodeKey(stored.encryptionKey) : null;
    if (!key)
      throw new Error(`${values["source-secrets"]} has no encryption key (it should be the old workspace's DATA_DIR/secrets.json).`);
    return key;
  }
  return undefined;
}

await runCli(async () => {
  const { values } = parseArgs({
    options: {
      from: { type: "string" },
      "to-database": { type: "string" },
      "to-search": { type: "string" },
      "data-dir": { type: "string" },
      "storage-dir": { type: "string" },
      "source-key": { type: "string" },
      "source-secrets": { type: "string" },
    },
  });
  if (!values.from) throw new Error("Say which export to read: npm run workspace:import -- --from <folder>");
  const env = loadEnv();
  const databaseUrl = values["to-database"] ?? env.DATABASE_URL;
  if (!databaseUrl)
    throw new Error(
      "Say where the workspace goes: set DATABASE_URL (the new deployment's PostgreSQL) or pass --to-database postgresql://…",
    );
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error("--to-database must be a postgres:// or postgresql:// connection URL.");
  const searchUrl = values["to-search"] ?? env.SEARCH_URL;
  const dataDir = path.resolve(values["data-dir"] ?? env.DATA_DIR);
  const report = await importWorkspace({
    from: values.from,
    target: {
      databaseUrl,
      dataDir,
      storageDir: path.resolve(values["storage-dir"] ?? env.STORAGE_DIR ?? dataDir),
      datasetsDir: path.resolve(env.DATASETS_DIR),
    },
    encryptionKey: resolveSecrets({ ...env, DATA_DIR: dataDir }).encryptionKey,
    sourceKey: sourceKey(values),
    search: searchUrl ? { url: searchUrl, store: searchUrl !== env.SEARCH_URL } : undefined,
    log: (line) => console.log(line),
  });
  const rows = Object.values(report.tables).reduce((a, b) => a + b, 0);
  console.log(
    `Imported ${rows.toLocaleString("en")} rows${report.collectionsMoved.length ? ` and moved ${report.collectionsMoved.length} document collections into OpenSearch` : ""}. ` +
      "Start the app instances with the same DATABASE_URL, SEARCH_URL and keys; they compute the collections' vectors in the background.",
  );
});
