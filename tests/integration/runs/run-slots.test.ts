import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { AppError } from "@/lib/errors";
import { holdRunSlot, RUN_SLOT_RETRY_AFTER_SECONDS, tryTakeRunSlot } from "@/lib/runs/run-slots";
import { getFairUseView, maxConcurrentRuns, saveFairUseSettings } from "@/lib/settings/fair-use";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * Fair use on the real application database (PGlite, or PostgreSQL under test:services, where the
 * parallel burst runs on separate pooled connections and a second handle plays a second app instance):
 * a principal's runs are counted across requests and instances, a burst cannot slip past the limit,
 * other principals are untouched, and a slot left by a dead instance expires.
 */
describe(`run slots (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    db = await createTestDatabase({ seed: false });
    handle = (await openAndBootstrap(db.env)).handle;
  });
  afterAll(async () => {
    await handle.close();
    await db.cleanup();
  });
  beforeEach(async () => {
    await handle.prisma.runSlot.deleteMany();
    await handle.prisma.setting.deleteMany({ where: { key: "fairUse" } });
  });

  it("lets a principal have `limit` runs at once and refuses the next until one ends", async () => {
    const a = await holdRunSlot(handle.prisma, "user:u1", 2);
    const b = await holdRunSlot(handle.prisma, "user:u1", 2);
    const refused = await holdRunSlot(handle.prisma, "user:u1", 2).catch((e: unknown) => e);
    expect(AppError.is(refused)).toBe(true);
    expect(refused).toMatchObject({
      code: "RATE_LIMITED",
      retryAfterSeconds: RUN_SLOT_RETRY_AFTER_SECONDS,
      message: "You already have 2 questions running, the most one person may have at once. Ask again when one of them has finished.",
    });
    // Someone else, and an API key of the same person, have their own allowance.
    const other = await holdRunSlot(handle.prisma, "user:u2", 2);
    const key = await holdRunSlot(handle.prisma, "key:k1", 2);
    await a.release();
    await a.release(); // twice is harmless
    const c = await holdRunSlot(handle.prisma, "user:u1", 2);
    expect(await handle.prisma.runSlot.count({ where: { principal: "user:u1" } })).toBe(2);
    for (const s of [b, c, other, key]) await s.release();
    expect(await handle.prisma.runSlot.count()).toBe(0);
  });

  it("lets exactly `limit` of a parallel burst through", async () => {
    const attempts = await Promise.all(Array.from({ length: 12 }, () => tryTakeRunSlot(handle.prisma, "user:burst", 3)));
    expect(attempts.filter((a) => a.ok)).toHaveLength(3);
    expect(attempts.filter((a) => !a.ok).every((a) => !a.ok && a.running === 3)).toBe(true);
  });

  it("does not count a slot its instance left behind once it expired", async () => {
    const past = new Date(Date.now() - 10 * 60_000);
    expect(await tryTakeRunSlot(handle.prisma, "user:u3", 1, { now: past, leaseMs: 60_000 })).toMatchObject({ ok: true });
    // Still within its lease (as seen then): counted.
    expect(await tryTakeRunSlot(handle.prisma, "user:u3", 1, { now: new Date(past.getTime() + 30_000) })).toMatchObject({
      ok: false,
      running: 1,
    });
    // Now, long after: expired, removed, and the new run goes ahead.
    expect(await tryTakeRunSlot(handle.prisma, "user:u3", 1)).toMatchObject({ ok: true });
    expect(await handle.prisma.runSlot.count({ where: { principal: "user:u3" } })).toBe(1);
  });

  it("keeps a long run's slot alive by renewing it", async () => {
    const slot = await holdRunSlot(handle.prisma, "user:u4", 1, 3_000);
    const first = (await handle.prisma.runSlot.findFirstOrThrow({ where: { principal: "user:u4" } })).expiresAt.getTime();
    await new Promise((r) => setTimeout(r, 1_300));
    const renewed = (await handle.prisma.runSlot.findFirstOrThrow({ where: { principal: "user:u4" } })).expiresAt.getTime();
    expect(renewed).toBeGreaterThan(first);
    await slot.release();
  });

  it("reads the limit from Settings, falling back to the environment", async () => {
    const env = { RUNS_MAX_CONCURRENT: 3 };
    expect(await getFairUseView(handle.prisma, env)).toMatchObject({
      maxConcurrentRuns: 3,
      override: null,
      defaults: { maxConcurrentRuns: 3 },
    });
    await saveFairUseSettings(handle.prisma, { maxConcurrentRuns: 1 });
    expect(await maxConcurrentRuns(handle.prisma, env)).toBe(1);
    await saveFairUseSettings(handle.prisma, { maxConcurrentRuns: null });
    expect(await maxConcurrentRuns(handle.prisma, env)).toBe(3);
  });

  it.runIf(TARGET_ENGINE === "postgres")("counts the runs of another app instance on the same database", async () => {
    const second = (await openAndBootstrap(db.env)).handle;
    try {
      const here = await holdRunSlot(handle.prisma, "user:u5", 2);
      const there = await holdRunSlot(second.prisma, "user:u5", 2);
      await expect(holdRunSlot(handle.prisma, "user:u5", 2)).rejects.toMatchObject({ code: "RATE_LIMITED" });
      await expect(holdRunSlot(second.prisma, "user:u5", 2)).rejects.toMatchObject({ code: "RATE_LIMITED" });
      await there.release();
      const again = await holdRunSlot(handle.prisma, "user:u5", 2);
      await Promise.all([here.release(), again.release()]);
    } finally {
      await second.close();
    }
  });
});
