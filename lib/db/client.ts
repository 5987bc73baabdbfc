import "server-only";
import { loadEnv } from "../env";
import { log } from "../log";
import { type BootstrapReport, openAndBootstrap } from "./bootstrap";
import type { DatabaseHandle } from "./connect";
import type { PrismaClient } from "./generated/client";

/**
 * The one database handle of the server process. Kept on globalThis because Next.js may evaluate this
 * module more than once (instrumentation and route bundles, dev reloads) and PGlite must be opened once.
 */
const globalForDb = globalThis as unknown as { __mosaicDb?: Promise<{ handle: DatabaseHandle; report: BootstrapReport }> };

export function initDatabase(): Promise<{ handle: DatabaseHandle; report: BootstrapReport }> {
  globalForDb.__mosaicDb ??= openAndBootstrap(loadEnv()).then((r) => {
    log.info(
      { engine: r.report.engine, location: r.report.location, applied: r.report.appliedMigrations, seededUsers: r.report.seededUsers },
      "database ready",
    );
    return r;
  });
  return globalForDb.__mosaicDb;
}

export async function db(): Promise<PrismaClient> {
  return (await initDatabase()).handle.prisma;
}
