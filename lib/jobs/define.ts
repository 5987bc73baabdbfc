import type { z } from "zod";
import type { CatalogDeps } from "../deps";
import type { PrismaClient } from "../db/generated/client";

/**
 * A job definition: an id and a zod schema for its payload (lib/jobs/definitions.ts, a leaf that pages,
 * actions and ingestion import to enqueue). The handler is attached only by the server's handler map
 * (lib/server/job-handlers.ts), which imports it lazily, so the queue never loads what a job needs
 * (models, engines) until a job of that kind runs (documenso's packages/lib/jobs, langfuse's queues).
 */

export interface JobServices {
  prisma: PrismaClient;
  deps: CatalogDeps;
}

export interface ProgressUpdate {
  done?: number;
  total?: number | null;
  /** One line for people ("1,200 of 5,183 passages embedded"). */
  message?: string;
}

export interface JobContext<P> {
  jobId: string;
  payload: P;
  /** 1 on the first run; higher when the job is resumed after a failure or a crash. */
  attempt: number;
  /** Aborted when the processor shuts down or the job is cancelled: stop between units of work. */
  signal: AbortSignal;
  services: JobServices;
  /**
   * Records progress and says the job is alive. Throws JobLostError when the job was cancelled or
   * taken over (its instance was presumed dead): the handler must stop, its committed work stays.
   */
  progress(update: ProgressUpdate): Promise<void>;
}

export interface JobResult {
  message?: string;
}

export type JobHandler<P> = (ctx: JobContext<P>) => Promise<JobResult | void>;

export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  id: string;
  payload: S;
  /** Runs (first included) before the job is marked failed. */
  maxAttempts: number;
  /** Attached by the handler map; a processor given a definition without one fails its jobs as unknown. */
  handler?: () => Promise<JobHandler<z.infer<S>>>;
}

export function defineJob<S extends z.ZodType>(definition: JobDefinition<S>): JobDefinition<S> {
  return definition;
}

/** A failure that another attempt cannot fix (the KB was deleted, the input is invalid): no retry. */
export class JobFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JobFailedError";
  }
}

/** Ends a job without error when it has nothing to do (models switched off): marked cancelled with this message. */
export class JobSkippedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JobSkippedError";
  }
}

/** The job is no longer this runner's (cancelled, or claimed by another instance). */
export class JobLostError extends Error {
  constructor(message = "The job was cancelled or taken over by another instance.") {
    super(message);
    this.name = "JobLostError";
  }
}
