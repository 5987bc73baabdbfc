import type { CatalogDeps } from "../deps";
import type { PrismaClient } from "../db/generated/client";
import { runGuideReader } from "../guides/retrieval";
import * as pipeline from "../pipeline/run";
import type { RunOutcome, RunRequest } from "../pipeline/run/types";

/**
 * A run of the pipeline over this workspace, as every caller that asks a question starts one (the Ask
 * route, evaluation, scripts, tests): its guides are the analysts' extraction guides (lib/guides).
 * The pipeline sits below the guide domain, so it takes them as a function rather than reading them.
 */
export function runPipeline(prisma: PrismaClient, deps: CatalogDeps, req: Omit<RunRequest, "guides">): Promise<RunOutcome> {
  const guides = runGuideReader(prisma);
  return pipeline.runPipeline(prisma, deps, { ...req, guides: guides.nearest, guideExamples: guides.examples });
}
