import path from "node:path";
import type { BackendContext, KnowledgeBackend } from "../types";
import { SqlBackend } from "./backend";
import type { SqlConfig, SqlSecrets } from "./config";
import { PostgresEngine } from "./postgres/engine";
import { SqliteEngine } from "./sqlite/engine";

export { sqlConfigSchema, sqlSecretsSchema, type SqlConfig, type SqlSecrets, type SqliteConfig, type PostgresConfig } from "./config";
export { checkSqlSafety, type CheckedSql } from "./safety";
export type { SqlDialect } from "./dialect";

/**
 * Opens a relational KB: a SQLite file (a relative `file` lives in the KB's storage folder) or a
 * PostgreSQL schema. Opening does no I/O; the file is opened or the server reached on first use.
 */
export function createSqlBackend(config: SqlConfig, secrets: SqlSecrets, ctx: BackendContext): KnowledgeBackend {
  if (config.dialect === "sqlite") return new SqlBackend(new SqliteEngine(path.resolve(ctx.storageDir, config.file)), ctx);
  return new SqlBackend(new PostgresEngine(config, secrets.password, { privilegeRiskAccepted: ctx.privilegeRiskAccepted }), ctx);
}

/** A SQLite file's descriptor without registering it (benchmarks, "what is in this upload?"). */
export async function describeSqliteFile(file: string, kbName = path.basename(file, path.extname(file))) {
  const backend = createSqlBackend(
    { dialect: "sqlite", file: path.resolve(file) },
    {},
    { kbId: kbName, kbName, storageDir: path.dirname(path.resolve(file)) },
  );
  try {
    return await backend.describe();
  } finally {
    await backend.close();
  }
}
