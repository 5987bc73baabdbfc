import pg from "pg";

/**
 * Several app instances may start at once against one PostgreSQL server: the one that applies the
 * migrations and seeds a fresh workspace must be alone, or two would seed the same demo users and
 * knowledge bases (unique names) or race on a migration. A session-level advisory lock on its own
 * connection serialises that start-up work; the others wait, then find it done. The embedded database
 * has its own single-process lock (pglite-lock.ts), so there this runs `work` as is.
 */
const STARTUP_LOCK_KEY = 0x4d6f7361; // "Mosa"

export async function withStartupLock<T>(databaseUrl: string | undefined, work: () => Promise<T>): Promise<T> {
  if (!databaseUrl) return work();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [STARTUP_LOCK_KEY]);
    try {
      return await work();
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [STARTUP_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
