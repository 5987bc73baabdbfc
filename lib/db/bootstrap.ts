import type { Env } from "../env";
import { type DatabaseHandle, openDatabase } from "./connect";
import { applyPendingMigrations } from "./migrations";
import { seedDemoWorkspace } from "./seed";
import { withStartupLock } from "./startup-lock";

export interface BootstrapReport {
  engine: DatabaseHandle["engine"];
  location: string;
  appliedMigrations: string[];
  seededUsers: number;
}

/** Opens the database, applies pending migrations and seeds a fresh workspace: what every start does. */
export async function openAndBootstrap(
  env: Pick<Env, "DATABASE_URL" | "DATA_DIR" | "SEED_DEMO">,
): Promise<{ handle: DatabaseHandle; report: BootstrapReport }> {
  const handle = await openDatabase(env);
  try {
    const { appliedMigrations, seed } = await withStartupLock(env.DATABASE_URL, async () => ({
      appliedMigrations: await applyPendingMigrations(handle.adapterFactory),
      seed: env.SEED_DEMO ? await seedDemoWorkspace(handle.prisma) : { users: 0 },
    }));
    return {
      handle,
      report: { engine: handle.engine, location: handle.location, appliedMigrations, seededUsers: seed.users },
    };
  } catch (e) {
    await handle.close();
    throw e;
  }
}
