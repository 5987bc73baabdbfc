import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import type { CatalogDeps } from "@/lib/deps";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { seedDemoCatalogOnce } from "@/lib/demo/seed-catalog";
import type { RunOutcome } from "@/lib/pipeline/run";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { createTestDatabase, type TestDatabase } from "./test-database";

export const DATASETS = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");

export interface DemoWorkspace {
  handle: DatabaseHandle;
  deps: CatalogDeps;
  /** The demo business user (user@mosaic.local) with its groups. */
  user: { id: string; role: "USER"; groupIds: string[] };
  /** One run of the whole pipeline as that user. */
  ask: (question: string, extra?: { conversationId?: string }) => Promise<RunOutcome>;
}

/**
 * The demo workspace on a fresh test database for the enclosing describe block: seeded before its tests,
 * closed after them. Fields are filled in by beforeAll, so read them inside tests.
 */
export function useDemoWorkspace(prefix: string): DemoWorkspace {
  let db: TestDatabase;
  const ws = {
    ask: (question: string, extra: { conversationId?: string } = {}) =>
      runPipeline(ws.handle.prisma, ws.deps, { question, user: ws.user, ...extra }),
  } as DemoWorkspace;
  beforeAll(async () => {
    db = await createTestDatabase();
    ws.handle = (await openAndBootstrap(db.env)).handle;
    ws.deps = { dataDir: mkdtempSync(path.join(tmpdir(), prefix)), encryptionKey: Buffer.alloc(32, 7), datasetsDir: DATASETS };
    await seedDemoCatalogOnce(ws.handle.prisma, ws.deps);
    const u = await ws.handle.prisma.user.findUniqueOrThrow({ where: { email: "user@mosaic.local" }, include: { memberships: true } });
    ws.user = { id: u.id, role: "USER", groupIds: u.memberships.map((m) => m.groupId) };
  }, 120_000);
  afterAll(async () => {
    await closeAllBackends();
    await ws.handle?.close();
    await db?.cleanup();
  });
  return ws;
}
