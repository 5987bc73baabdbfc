import "server-only";
import type { z } from "zod";
import type { CurrentUser } from "../../auth/session";
import { getKnowledgeBase } from "../../catalog/knowledge-bases";
import type { PrismaClient } from "../../db/generated/client";
import { AppError } from "../../errors";
import { getJob } from "../../jobs/queue";
import type { jobSchema } from "./schemas";

/**
 * GET /api/v1/jobs/{id}: the progress of a job that registration or a refresh queued (their answers name
 * the job ids). A job that works on a knowledge base is shown only to whom that knowledge base is
 * shared with (the same rule as GET /api/v1/knowledge-bases/{id}: not found otherwise, so an id says
 * nothing about a source the caller may not use).
 */
export async function jobApiView(prisma: PrismaClient, user: CurrentUser, id: string): Promise<z.infer<typeof jobSchema>> {
  const job = await getJob(prisma, id);
  if (!job) throw new AppError("NOT_FOUND", "No background job has this id.");
  if (job.kbId) await getKnowledgeBase(prisma, user, job.kbId);
  return {
    id: job.id,
    kind: job.kind,
    status: job.status,
    knowledgeBaseId: job.kbId,
    progress: { done: job.progressDone, total: job.progressTotal },
    message: job.message,
    error: job.error,
    attempts: job.attempts,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
  };
}
