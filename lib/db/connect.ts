import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import type { Env } from "../env";
import { PrismaClient } from "./generated/client";
import { acquireDatabaseLock } from "./pglite-lock";

export type DatabaseEngine = "pglite" | "postgres";

export interface DatabaseHandle {
  prisma: PrismaClient;
  /** The same connection as the schema engine sees it, for migrations. */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  engine: DatabaseEngine;
  /** Where the data is, for messages (never includes a password). */
  location: string;
  close(): Promise<void>;
}

export function pgliteDir(env: Pick<Env, "DATA_DIR">): string {
  return path.resolve(env.DATA_DIR, "pglite");
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "postgresql://(unparseable URL)";
  }
}

/**
 * Opens the application database: PostgreSQL when DATABASE_URL is set, otherwise the embedded PGlite
 * under DATA_DIR (taking its single-process lock first).
 */
export async function openDatabase(env: Pick<Env, "DATABASE_URL" | "DATA_DIR">): Promise<DatabaseHandle> {
  if (env.DATABASE_URL) {
    const adapterFactory = new PrismaPg({ connectionString: env.DATABASE_URL });
    const prisma = new PrismaClient({ adapter: adapterFactory });
    return {
      prisma,
      adapterFactory,
      engine: "postgres",
      location: redactUrl(env.DATABASE_URL),
      close: () => prisma.$disconnect(),
    };
  }
  const dir = pgliteDir(env);
  const release = acquireDatabaseLock(dir);
  let pg: PGlite;
  try {
    pg = new PGlite(dir);
    await pg.waitReady;
  } catch (e) {
    release();
    throw e;
  }
  const adapterFactory = new PrismaPGlite(pg);
  const prisma = new PrismaClient({ adapter: adapterFactory });
  let closed = false;
  return {
    prisma,
    adapterFactory,
    engine: "pglite",
    location: dir,
    async close() {
      if (closed) return;
      closed = true;
      await prisma.$disconnect();
      await pg.close();
      release();
    },
  };
}
