import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { type JobDefinition, JobFailedError, defineJob } from "@/lib/jobs/define";
import { JobProcessor } from "@/lib/server/job-processor";
import { cancelJob, enqueueJob, getJob } from "@/lib/jobs/queue";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * The job mechanism on the application database (PGlite in `npm test`, PostgreSQL in `npm run
 * test:services`, where the two processors below hold two connections and SKIP LOCKED is what keeps
 * them from taking the same job).
 */
describe(`background jobs on the application database (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let second: DatabaseHandle | null = null;
  const deps = { dataDir: "/nonexistent", encryptionKey: Buffer.alloc(32, 1), datasetsDir: "/nonexistent" };
  const ranBy = new Map<string, string[]>();
  let behaviour: "record" | "fail-once" | "fail-hard" | "wait-for-stop" | "report-until-lost" = "record";
  const failedOnce = new Set<string>();

  const testJob = defineJob({
    id: "test.work",
    payload: z.object({ n: z.number().int() }),
    maxAttempts: 2,
    handler: async () => async (ctx) => {
      if (behaviour === "fail-once" && !failedOnce.has(ctx.jobId)) {
        failedOnce.add(ctx.jobId);
        throw new Error("the source was busy");
      }
      if (behaviour === "fail-hard") throw new JobFailedError("the collection was deleted");
      if (behaviour === "wait-for-stop") {
        await ctx.progress({ done: 1, total: 10, message: "working" });
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
        throw new Error("stopped");
      }
      if (behaviour === "report-until-lost") {
        for (;;) {
          await ctx.progress({ message: "still working" });
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      await new Promise((r) => setTimeout(r, 5));
      ranBy.set(ctx.jobId, [...(ranBy.get(ctx.jobId) ?? []), `attempt ${ctx.attempt}`]);
      await ctx.progress({ done: ctx.payload.n, total: ctx.payload.n });
      return { message: `did ${ctx.payload.n}` };
    },
  });
  const definitions = new Map<string, JobDefinition>([[testJob.id, testJob as unknown as JobDefinition]]);
  const processor = (h: DatabaseHandle, over: Partial<ConstructorParameters<typeof JobProcessor>[0]> = {}) =>
    new JobProcessor({
      services: { prisma: h.prisma, deps },
      definitions,
      exclusive: false,
      pollMs: 20,
      heartbeatMs: 50,
      retryBaseMs: 50,
      ...over,
    });

  beforeAll(async () => {
    db = await createTestDatabase({ seed: false });
    handle = (await openAndBootstrap(db.env)).handle;
    // A second connection, as a second app instance would have (PostgreSQL only: PGlite is one process, one connection).
    if (db.env.DATABASE_URL) second = (await openAndBootstrap(db.env)).handle;
  });
  afterAll(async () => {
    await second?.close();
    await handle.close();
    await db.cleanup();
  });

  it("runs every job exactly once when two instances claim from the same table", async () => {
    behaviour = "record";
    const ids = [];
    for (let n = 0; n < 24; n++) ids.push((await enqueueJob(handle.prisma, testJob, { n })).id);
    const a = processor(handle);
    const b = processor(second ?? handle);
    await Promise.all([a.drain(), b.drain()]);
    for (const id of ids) {
      expect(ranBy.get(id)).toEqual(["attempt 1"]);
      expect(await getJob(handle.prisma, id)).toMatchObject({
        status: "SUCCEEDED",
        attempts: 1,
        message: expect.stringMatching(/^did \d+$/),
      });
    }
  });

  it("keeps one unfinished job per key; asking again while it runs makes it run once more", async () => {
    behaviour = "record";
    const first = await enqueueJob(handle.prisma, testJob, { n: 1 }, { activeKey: "k1" });
    expect(await enqueueJob(handle.prisma, testJob, { n: 1 }, { activeKey: "k1" })).toEqual({ id: first.id, created: false });
    const p = processor(handle);
    const claimed = await p.claim();
    expect(claimed?.id).toBe(first.id);
    // New work arrives while it runs: the same job, flagged to run again.
    expect(await enqueueJob(handle.prisma, testJob, { n: 1 }, { activeKey: "k1" })).toEqual({ id: first.id, created: false });
    await p.execute(claimed!);
    expect(await getJob(handle.prisma, first.id)).toMatchObject({
      status: "QUEUED",
      message: "Runs again: more work arrived while it ran.",
    });
    await p.drain();
    expect(await getJob(handle.prisma, first.id)).toMatchObject({ status: "SUCCEEDED" });
    expect(ranBy.get(first.id)).toHaveLength(2);
    // Finished: the key is free again.
    expect((await enqueueJob(handle.prisma, testJob, { n: 1 }, { activeKey: "k1" })).created).toBe(true);
    await p.drain();
  });

  it("retries a failed attempt after a back-off, and fails for good on an error no retry can fix", async () => {
    behaviour = "fail-once";
    const { id } = await enqueueJob(handle.prisma, testJob, { n: 2 });
    const p = processor(handle);
    await p.execute((await p.claim())!);
    expect(await getJob(handle.prisma, id)).toMatchObject({
      status: "QUEUED",
      error: "the source was busy",
      message: expect.stringMatching(/^Attempt 1 of 2 failed \(the source was busy\); it is tried again in 0 s\.$/),
    });
    await p.drain();
    expect(await getJob(handle.prisma, id)).toMatchObject({ status: "SUCCEEDED", attempts: 2 });

    behaviour = "fail-hard";
    const hard = await enqueueJob(handle.prisma, testJob, { n: 3 }, { activeKey: "hard" });
    await p.drain();
    expect(await getJob(handle.prisma, hard.id)).toMatchObject({
      status: "FAILED",
      attempts: 1,
      error: "the collection was deleted",
      message: "Failed: the collection was deleted",
    });
  });

  it("takes over a job whose instance stopped sending heartbeats, and resumes it", async () => {
    behaviour = "record";
    const { id } = await enqueueJob(handle.prisma, testJob, { n: 4 });
    const dead = processor(handle);
    expect((await dead.claim())?.id).toBe(id); // claimed, then its instance "dies": no heartbeat, no result
    const alive = processor(second ?? handle, { staleMs: 300 });
    expect(await alive.claim()).toBeNull();
    await new Promise((r) => setTimeout(r, 400));
    await alive.drain();
    expect(await getJob(handle.prisma, id)).toMatchObject({ status: "SUCCEEDED", attempts: 2 });
  });

  it("on a graceful shutdown puts the running job back in the queue without counting an attempt", async () => {
    behaviour = "wait-for-stop";
    const { id } = await enqueueJob(handle.prisma, testJob, { n: 5 });
    const p = processor(handle);
    await p.start();
    for (let i = 0; i < 100 && (await getJob(handle.prisma, id))?.status !== "RUNNING"; i++) await new Promise((r) => setTimeout(r, 20));
    await p.stop(2_000);
    expect(await getJob(handle.prisma, id)).toMatchObject({
      status: "QUEUED",
      attempts: 0,
      progressDone: 1,
      progressTotal: 10,
      message: "Paused by a shutdown; it resumes when the app runs again.",
    });
    behaviour = "record";
    await processor(handle).drain();
    expect(await getJob(handle.prisma, id)).toMatchObject({ status: "SUCCEEDED", attempts: 1 });
  });

  it("a cancelled job's handler stops at its next progress report", async () => {
    behaviour = "report-until-lost";
    const { id } = await enqueueJob(handle.prisma, testJob, { n: 6 }, { activeKey: "cancel-me" });
    const p = processor(handle);
    const running = p.execute((await p.claim())!);
    await new Promise((r) => setTimeout(r, 60));
    expect(await cancelJob(handle.prisma, id, "Cancelled by an admin.")).toBe(true);
    await running;
    expect(await getJob(handle.prisma, id)).toMatchObject({ status: "CANCELLED", message: "Cancelled by an admin." });
    behaviour = "record";
  });
});
