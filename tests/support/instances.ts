import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openAndBootstrap } from "../../lib/db/bootstrap";
import { type AppServer, startAppServer } from "./app-server";
import { type OpenSearchServer, startOpenSearch } from "./services/opensearch";
import { type PostgresServer, startPostgres } from "./services/postgres";

/**
 * Several app instances on one PostgreSQL server and one OpenSearch node, as a load balancer would
 * run them: each instance gets its own DATA_DIR (so nothing one keeps on its disk can help another)
 * and the environment they must share (database, search cluster, keys). Used by the e2e test of
 * several instances and by `npm run bench -- instances`. The app must be built (buildIfNeeded).
 */
export interface SharedServices {
  postgres: PostgresServer;
  opensearch: OpenSearchServer;
  /** What every instance is started with. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts PostgreSQL and OpenSearch, migrates the database and seeds the demo users (no demo catalog). */
export async function startSharedServices(extraEnv: Record<string, string> = {}): Promise<SharedServices> {
  const postgres = await startPostgres();
  let opensearch: OpenSearchServer | undefined;
  try {
    opensearch = await startOpenSearch();
    const scratch = mkdtempSync(path.join(tmpdir(), "mosaic-instances-"));
    try {
      const { handle } = await openAndBootstrap({ DATABASE_URL: postgres.url, DATA_DIR: scratch, SEED_DEMO: true });
      await handle.close();
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    const env = {
      DATABASE_URL: postgres.url,
      SEARCH_URL: opensearch.url,
      NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
      MOSAIC_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      // The users are seeded above; the demo catalog would keep its files on one instance's disk.
      SEED_DEMO: "false",
      ...extraEnv,
    };
    const os = opensearch;
    return {
      postgres,
      opensearch: os,
      env,
      async stop() {
        await os.stop().catch(() => undefined);
        postgres.stop();
      },
    };
  } catch (e) {
    await opensearch?.stop().catch(() => undefined);
    postgres.stop();
    throw e;
  }
}

/** One app instance (`next start`) on the shared services, with its own fresh DATA_DIR. */
export function startInstance(shared: SharedServices, extraEnv: Record<string, string> = {}): Promise<AppServer> {
  return startAppServer({ ...shared.env, ...extraEnv });
}
