import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

/**
 * A fresh, empty application database for one test file, on whichever engine this run targets:
 * `npm test` → embedded PGlite in a temporary DATA_DIR; `npm run test:services` sets
 * TEST_POSTGRES_URL (an admin URL on a throw-away server) → a new PostgreSQL database per call.
 */
export const TARGET_ENGINE: "pglite" | "postgres" = process.env.TEST_POSTGRES_URL ? "postgres" : "pglite";

export interface TestDatabase {
  env: { DATABASE_URL?: string; DATA_DIR: string; SEED_DEMO: boolean };
  cleanup(): Promise<void>;
}

export async function createTestDatabase({ seed = true } = {}): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "mosaic-it-"));
  const adminUrl = process.env.TEST_POSTGRES_URL;
  if (!adminUrl) {
    return {
      env: { DATA_DIR: dataDir, SEED_DEMO: seed },
      cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `mosaic_it_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: dataDir, SEED_DEMO: seed },
    async cleanup() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
