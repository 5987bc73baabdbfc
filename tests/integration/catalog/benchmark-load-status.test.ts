import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benchmarkLoadStatus, startBenchmarkLoad } from "@/lib/catalog/benchmark-load-job";
import type { CatalogDeps } from "@/lib/catalog/deps";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * The benchmark catalog load's status lives in the database, so every instance on it answers the page's
 * polling and refuses a second load; a load whose instance stopped (no heartbeat) is shown as stopped.
 * "Another instance" is a status row written here as that instance would write it.
 */
describe("benchmark catalog load status across instances", () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  const running = (heartbeatAt: Date) => ({
    state: "running",
    startedAt: new Date(Date.now() - 120_000).toISOString(),
    finishedAt: null,
    done: 3,
    total: 180,
    current: "Spider: concert_singer",
    registered: 0,
    skipped: 0,
    failed: [],
    error: null,
    heartbeatAt: heartbeatAt.toISOString(),
  });

  beforeAll(async () => {
    db = await createTestDatabase({ seed: false });
    handle = (await openAndBootstrap(db.env)).handle;
    deps = { dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-bench-load-")), encryptionKey: Buffer.alloc(32, 5), datasetsDir: path.join(tmpdir(), "no-datasets-here") };
  });
  afterAll(async () => {
    await handle.close();
    await db.cleanup();
  });

  it("reads another instance's load, refuses a second one while it runs, and says when its instance stopped", async () => {
    expect(await benchmarkLoadStatus(handle.prisma)).toBeNull();
    await handle.prisma.setting.create({ data: { key: "benchmark-catalog.load", value: running(new Date()) } });
    expect(await benchmarkLoadStatus(handle.prisma)).toMatchObject({ state: "running", done: 3, total: 180, current: "Spider: concert_singer" });
    await expect(startBenchmarkLoad(handle.prisma, deps)).rejects.toMatchObject({ code: "CONFLICT" });

    // Its instance died: no heartbeat for over a minute.
    await handle.prisma.setting.update({ where: { key: "benchmark-catalog.load" }, data: { value: running(new Date(Date.now() - 5 * 60_000)) } });
    const stopped = await benchmarkLoadStatus(handle.prisma);
    expect(stopped).toMatchObject({ state: "failed", done: 3, current: null });
    expect(stopped!.error).toMatch(/stopped when the server running it stopped\. Start it again/);
    expect(stopped).not.toHaveProperty("heartbeatAt");
    // Another load may start now (here it is refused for the missing datasets, not as busy).
    await expect(startBenchmarkLoad(handle.prisma, deps)).rejects.toMatchObject({ code: "UNAVAILABLE" });
  });
});
