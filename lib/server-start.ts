import { closeAllBackends } from "./backends/registry";
import { catalogDeps } from "./catalog/deps";
import { initDatabase } from "./db/client";
import { seedDemoCatalogOnce } from "./demo/seed-catalog";
import { DatabaseLockedError } from "./db/pglite-lock";
import { EnvError, loadEnv } from "./env";
import { getSecrets } from "./local-secrets";
import { log } from "./log";

/**
 * Server start: a bad environment or a database held by another process stops the server with a
 * plain message (no stack trace); a healthy start applies pending migrations and seeds a new workspace.
 */
export async function startServer(): Promise<void> {
  try {
    const env = loadEnv();
    const secrets = getSecrets(env);
    if (secrets.generated && env.NODE_ENV === "production" && env.DATABASE_URL) {
      log.warn("NEXTAUTH_SECRET or MOSAIC_ENCRYPTION_KEY is not set: using keys generated into DATA_DIR/secrets.json. Set both when several servers share one database.");
    }
    const { handle } = await initDatabase();
    if (env.SEED_DEMO) {
      // The demo catalog is a convenience: a failure is logged and retried at the next start, never fatal.
      try {
        const demo = await seedDemoCatalogOnce(handle.prisma, catalogDeps());
        if (demo.seeded) log.info({ kbs: demo.kbs }, "demo catalog seeded");
      } catch (e) {
        log.warn({ err: e }, "could not seed the demo catalog; it will be retried at the next start");
      }
    }
    const shutdown = async (signal: string) => {
      log.info({ signal }, "shutting down");
      await closeAllBackends();
      await handle.close().catch((e) => log.error({ err: e }, "closing the database failed"));
      process.exit(0);
    };
    process.once("SIGINT", () => void shutdown("SIGINT"));
    process.once("SIGTERM", () => void shutdown("SIGTERM"));
  } catch (e) {
    if (e instanceof EnvError || e instanceof DatabaseLockedError) {
      console.error(`\nMosaic cannot start.\n${e.message}\n`);
    } else {
      console.error(`\nMosaic cannot start: ${(e as Error).message}\n`);
      log.error({ err: e }, "startup failed");
    }
    process.exit(1);
  }
}
