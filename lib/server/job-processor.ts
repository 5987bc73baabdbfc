import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { Prisma } from "../db/generated/client";
import { log } from "../log";
import {
  type JobContext,
  type JobDefinition,
  JobFailedError,
  JobLostError,
  type JobServices,
  JobSkippedError,
  type ProgressUpdate,
} from "../jobs/define";
import { JOB_HANDLERS } from "./job-handlers";
import { onJobEnqueued } from "../jobs/queue";

/**
 * Runs jobs from the application database. Claiming is one UPDATE over a sub-select with
 * FOR UPDATE SKIP LOCKED, so several app instances on one PostgreSQL server never take the same job,
 * and a job whose instance died (no heartbeat for `staleMs`) is claimed again and resumes from what its
 * handler committed. Times come from the database's clock (instances' clocks may differ). On the
 * embedded PGlite only one process can open the database, so a job found RUNNING at start belongs to
 * a process that crashed: it is re-queued at once (`exclusive`).
 *
 * Why not a queue library: Node no longer decides it (pg-boss needs Node ≥ 22.12, graphile-worker
 * ≥ 22.18, and Mosaic runs on 24). What does: both keep their own schema and migrations beside Prisma's,
 * which the workspace export and import, the migration lock and the embedded database would all have
 * to learn, and both expect a `pg` connection pool (graphile-worker also LISTEN/NOTIFY), while the
 * embedded database is PGlite behind the Prisma adapter on one connection. A table claimed with SKIP
 * LOCKED is the technique those libraries use, on the database and migrations Mosaic already has.
 */

export interface ProcessorOptions {
  services: JobServices;
  /** True on the embedded database: no other process can be running a job. */
  exclusive?: boolean;
  concurrency?: number;
  pollMs?: number;
  heartbeatMs?: number;
  /** A RUNNING job without a heartbeat for this long is presumed dead and claimed again. */
  staleMs?: number;
  /** A failed attempt waits this long before the next, doubling each time (at most 10 minutes). */
  retryBaseMs?: number;
  /** Definitions this processor runs (all known ones by default). */
  definitions?: Map<string, JobDefinition>;
}

interface ClaimedRow {
  id: string;
  kind: string;
  payload: unknown;
  attempts: number;
  maxAttempts: number;
}

const DB_NOW = Prisma.sql`(now() AT TIME ZONE 'UTC')`;

export function backoffMs(attempt: number, baseMs = 10_000): number {
  return Math.min(10 * 60_000, baseMs * 2 ** Math.max(0, attempt - 1));
}

export class JobProcessor {
  readonly instanceId = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  private readonly opts: Required<Omit<ProcessorOptions, "definitions">> & { definitions: Map<string, JobDefinition> };
  private running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private stopped = true;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(opts: ProcessorOptions) {
    this.opts = {
      exclusive: false,
      concurrency: 1,
      pollMs: 2_000,
      heartbeatMs: 10_000,
      staleMs: 60_000,
      retryBaseMs: 10_000,
      definitions: JOB_HANDLERS,
      ...opts,
    };
  }

  private get prisma() {
    return this.opts.services.prisma;
  }

  /** Re-queues jobs a crashed process left RUNNING (embedded database only). */
  async recoverOrphans(): Promise<number> {
    if (!this.opts.exclusive) return 0;
    return this.prisma.$executeRaw`
      UPDATE "Job" SET status = 'QUEUED', "lockedBy" = NULL, message = 'Resumes: the process running it stopped.'
      WHERE status = 'RUNNING' AND ("lockedBy" IS NULL OR "lockedBy" <> ${this.instanceId})`;
  }

  /** Claims the oldest job that is due (or abandoned); null when there is none. */
  async claim(): Promise<ClaimedRow | null> {
    const rows = await this.prisma.$queryRaw<ClaimedRow[]>`
      UPDATE "Job" AS j
      SET status = 'RUNNING', "lockedBy" = ${this.instanceId}, "heartbeatAt" = ${DB_NOW},
          "startedAt" = COALESCE(j."startedAt", ${DB_NOW}), attempts = j.attempts + 1, rerun = false
      FROM (
        SELECT id FROM "Job"
        WHERE (status = 'QUEUED' AND "runAfter" <= ${DB_NOW})
           OR (status = 'RUNNING' AND "heartbeatAt" < ${DB_NOW} - ${this.opts.staleMs}::int * interval '1 millisecond')
        ORDER BY "createdAt"
        LIMIT 1
        FOR UPDATE SKIP LOCKED
      ) AS next
      WHERE j.id = next.id
      RETURNING j.id, j.kind, j.payload, j.attempts, j."maxAttempts"`;
    return rows[0] ?? null;
  }

  private async owned(id: string, set: Prisma.Sql): Promise<boolean> {
    const n = await this.prisma
      .$executeRaw`UPDATE "Job" SET ${set} WHERE id = ${id} AND "lockedBy" = ${this.instanceId} AND status = 'RUNNING'`;
    return n > 0;
  }

  /** Runs one claimed job to its end state. */
  async execute(row: ClaimedRow): Promise<void> {
    const definition = this.opts.definitions.get(row.kind);
    if (!definition?.handler) {
      await this.finishFailed(row, `No handler for jobs of kind "${row.kind}" in this version of Mosaic.`, true);
      return;
    }
    if (row.attempts > row.maxAttempts) {
      await this.finishFailed(
        row,
        `The job stopped ${row.attempts - 1} times without finishing (its process crashed or was stopped); it was given up.`,
        true,
      );
      return;
    }
    const parsed = definition.payload.safeParse(row.payload);
    if (!parsed.success) {
      await this.finishFailed(
        row,
        `The job's data is invalid: ${parsed.error.issues.map((i) => `${i.path.join(".") || "payload"}: ${i.message}`).join("; ")}.`,
        true,
      );
      return;
    }
    const controller = new AbortController();
    const heartbeat = setInterval(() => {
      this.owned(row.id, Prisma.sql`"heartbeatAt" = ${DB_NOW}`)
        .then((ok) => ok || controller.abort(new JobLostError()))
        .catch((err) => log.warn({ err, job: row.id }, "job heartbeat failed"));
    }, this.opts.heartbeatMs);
    heartbeat.unref();
    const ctx: JobContext<unknown> = {
      jobId: row.id,
      payload: parsed.data,
      attempt: row.attempts,
      signal: controller.signal,
      services: this.opts.services,
      progress: async (u: ProgressUpdate) => {
        const sets = [Prisma.sql`"heartbeatAt" = ${DB_NOW}`];
        if (u.done !== undefined) sets.push(Prisma.sql`"progressDone" = ${u.done}`);
        if (u.total !== undefined) sets.push(Prisma.sql`"progressTotal" = ${u.total}`);
        if (u.message !== undefined) sets.push(Prisma.sql`message = ${u.message.slice(0, 500)}`);
        if (!(await this.owned(row.id, Prisma.join(sets, ", ")))) {
          controller.abort(new JobLostError());
          throw new JobLostError();
        }
      },
    };
    const done = (async () => {
      try {
        const handler = await definition.handler!();
        const result = await handler(ctx);
        await this.finishSucceeded(row, result?.message ?? "Done.");
      } catch (e) {
        await this.finishAfterError(row, e, controller.signal);
      } finally {
        clearInterval(heartbeat);
      }
    })();
    this.running.set(row.id, { controller, done });
    try {
      await done;
    } finally {
      this.running.delete(row.id);
    }
  }

  private async finishSucceeded(row: ClaimedRow, message: string): Promise<void> {
    // More of the same work was asked for while it ran: it runs once more (as a fresh job) instead of finishing.
    await this.prisma.$executeRaw`
      UPDATE "Job" SET
        status = CASE WHEN rerun THEN 'QUEUED'::"JobStatus" ELSE 'SUCCEEDED'::"JobStatus" END,
        "activeKey" = CASE WHEN rerun THEN "activeKey" ELSE NULL END,
        message = CASE WHEN rerun THEN 'Runs again: more work arrived while it ran.' ELSE ${message.slice(0, 500)} END,
        "finishedAt" = CASE WHEN rerun THEN NULL ELSE ${DB_NOW} END,
        attempts = CASE WHEN rerun THEN 0 ELSE attempts END,
        rerun = false, error = NULL, "lockedBy" = NULL
      WHERE id = ${row.id} AND "lockedBy" = ${this.instanceId} AND status = 'RUNNING'`;
  }

  private async finishFailed(row: ClaimedRow, message: string, final: boolean): Promise<void> {
    const text = message.slice(0, 2000);
    if (final || row.attempts >= row.maxAttempts) {
      await this.prisma.$executeRaw`
        UPDATE "Job" SET status = 'FAILED', "activeKey" = NULL, rerun = false, error = ${text}, message = ${`Failed: ${text}`.slice(0, 500)},
          "finishedAt" = ${DB_NOW}, "lockedBy" = NULL
        WHERE id = ${row.id} AND "lockedBy" = ${this.instanceId}`;
      return;
    }
    const wait = backoffMs(row.attempts, this.opts.retryBaseMs);
    await this.prisma.$executeRaw`
      UPDATE "Job" SET status = 'QUEUED', error = ${text}, "lockedBy" = NULL,
        message = ${`Attempt ${row.attempts} of ${row.maxAttempts} failed (${text.slice(0, 300)}); it is tried again in ${Math.round(wait / 1000)} s.`},
        "runAfter" = ${DB_NOW} + ${wait}::int * interval '1 millisecond'
      WHERE id = ${row.id} AND "lockedBy" = ${this.instanceId}`;
  }

  private async finishAfterError(row: ClaimedRow, e: unknown, signal: AbortSignal): Promise<void> {
    if (e instanceof JobLostError || signal.reason instanceof JobLostError) return;
    if (e instanceof JobSkippedError) {
      await this.prisma.$executeRaw`
        UPDATE "Job" SET status = 'CANCELLED', "activeKey" = NULL, rerun = false, message = ${e.message.slice(0, 500)}, "finishedAt" = ${DB_NOW}, "lockedBy" = NULL
        WHERE id = ${row.id} AND "lockedBy" = ${this.instanceId}`;
      return;
    }
    if (signal.aborted) {
      // Stopped by a shutdown: not a failed attempt; it resumes where its committed work ends.
      await this.prisma.$executeRaw`
        UPDATE "Job" SET status = 'QUEUED', attempts = GREATEST(attempts - 1, 0), "lockedBy" = NULL,
          message = 'Paused by a shutdown; it resumes when the app runs again.'
        WHERE id = ${row.id} AND "lockedBy" = ${this.instanceId} AND status = 'RUNNING'`;
      return;
    }
    const message = e instanceof Error ? e.message : String(e);
    if (!(e instanceof JobFailedError)) log.warn({ err: e, job: row.id, kind: row.kind }, "job failed");
    await this.finishFailed(row, message, e instanceof JobFailedError);
  }

  /** Starts polling (the server's processor). */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.recoverOrphans();
    this.unsubscribe = onJobEnqueued(() => this.wake?.());
    this.loop = this.poll();
  }

  private async poll(): Promise<void> {
    while (!this.stopped) {
      let claimed: ClaimedRow | null = null;
      if (this.running.size < this.opts.concurrency) {
        try {
          claimed = await this.claim();
        } catch (err) {
          log.warn({ err }, "claiming a job failed");
        }
      }
      if (claimed) {
        void this.execute(claimed).catch((err) => log.error({ err, job: claimed!.id }, "job runner failed"));
        continue;
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.opts.pollMs);
        t.unref();
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /**
   * Runs due jobs in this process until none is left (command-line tools, tests). Retries due within
   * `maxWaitMs` are waited for; later ones are left for the server.
   */
  async drain(opts: { maxWaitMs?: number } = {}): Promise<number> {
    await this.recoverOrphans();
    const maxWait = opts.maxWaitMs ?? 60_000;
    let ran = 0;
    for (;;) {
      const claimed = await this.claim();
      if (claimed) {
        await this.execute(claimed);
        ran++;
        continue;
      }
      const [next] = await this.prisma.$queryRaw<{ wait: number | null }[]>`
        SELECT EXTRACT(EPOCH FROM (min("runAfter") - ${DB_NOW})) * 1000 AS wait FROM "Job" WHERE status = 'QUEUED'`;
      const wait = next?.wait === null || next?.wait === undefined ? null : Number(next.wait);
      if (wait === null || wait > maxWait) return ran;
      await new Promise((resolve) => setTimeout(resolve, Math.max(50, wait)));
    }
  }

  /**
   * Graceful shutdown: no new claims; running handlers are asked to stop (their signal aborts) and
   * get `graceMs` to return, after which their jobs are left for the next start (or another instance).
   */
  async stop(graceMs = 15_000): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.wake?.();
    for (const r of this.running.values()) r.controller.abort(new Error("shutdown"));
    const all = Promise.all([...this.running.values()].map((r) => r.done)).then(() => undefined);
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
    await this.loop;
  }
}

/** The lease (JOB_LEASE_MS) as processor timings: a job is taken over after `staleMs` without a heartbeat. */
export function jobLease(leaseMs: number): Pick<ProcessorOptions, "staleMs" | "heartbeatMs" | "pollMs"> {
  return {
    staleMs: leaseMs,
    heartbeatMs: Math.max(500, Math.floor(leaseMs / 6)),
    pollMs: Math.min(2_000, Math.max(250, Math.floor(leaseMs / 6))),
  };
}

// ---------------------------------------------------------------------------------------------
// The server's processor (one per process; kept on globalThis because Next.js may load this twice).

const g = globalThis as unknown as { __mosaicJobs?: JobProcessor | null };

export async function startJobProcessor(opts: ProcessorOptions): Promise<JobProcessor> {
  if (g.__mosaicJobs) return g.__mosaicJobs;
  const processor = new JobProcessor(opts);
  g.__mosaicJobs = processor;
  await processor.start();
  return processor;
}

export async function stopJobProcessor(graceMs?: number): Promise<void> {
  const processor = g.__mosaicJobs;
  g.__mosaicJobs = null;
  await processor?.stop(graceMs);
}

/** Runs the due jobs now, in this process (scripts that load catalogs, tests). */
export async function drainJobs(services: JobServices, opts: { exclusive?: boolean; maxWaitMs?: number } = {}): Promise<number> {
  if (g.__mosaicJobs) throw new Error("A job processor is already running in this process; it runs the jobs.");
  return new JobProcessor({ services, exclusive: opts.exclusive }).drain({ maxWaitMs: opts.maxWaitMs });
}
