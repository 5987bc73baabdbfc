import type { PrismaClient } from "../db/generated/client";
import { embedCollectionJob } from "../jobs/definitions";
import type { ModelsEnv } from "../models-env";
import { type ModelsOverview, modelsOverview } from "../models/runtime";
import { type ModelSettingsForm, getModelSettingsForm } from "./model-settings";

export interface ModelsView {
  form: ModelSettingsForm;
  overview: ModelsOverview;
  /** Collections' embedding jobs by state (Knowledge bases shows each one's progress). */
  embeddingJobs: { queued: number; running: number; failed: number };
}

/** The Settings page's model section: the choices, what runs now (loaded models, pool, queues) and the embedding work in progress. */
export async function getModelsView(prisma: PrismaClient, env: ModelsEnv): Promise<ModelsView> {
  const [form, overview, jobs] = await Promise.all([
    getModelSettingsForm(prisma, env),
    modelsOverview(prisma),
    prisma.job.groupBy({
      by: ["status"],
      where: { kind: embedCollectionJob.id, status: { in: ["QUEUED", "RUNNING", "FAILED"] }, activeKey: { not: null } },
      _count: { _all: true },
    }),
  ]);
  const count = (s: string) => jobs.find((j) => j.status === s)?._count._all ?? 0;
  // A failed job clears its key; failures are counted among the latest job of each collection.
  const failed = await prisma.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM (
      SELECT DISTINCT ON ("kbId") status FROM "Job" WHERE kind = ${embedCollectionJob.id} ORDER BY "kbId", "createdAt" DESC
    ) latest WHERE status = 'FAILED'`;
  return { form, overview, embeddingJobs: { queued: count("QUEUED"), running: count("RUNNING"), failed: Number(failed[0]?.n ?? 0) } };
}
