import { existsSync } from "node:fs";
import { loadEnv } from "../../env";
import { count } from "../../format/count";
import { type JobHandler, JobFailedError } from "../../jobs/define";
import { log } from "../../log";
import { loadBenchmarkCatalog } from "./load";

/**
 * The benchmark catalog load as a job (lib/jobs): one knowledge base after another, the progress
 * reported before each (which also stops the load when the job was cancelled). A resumed attempt
 * starts over and skips what the earlier one registered. Neo4j's address and password come from the
 * environment when the job runs, never from the job's stored payload.
 */
export const loadBenchmarks: JobHandler<Record<string, never>> = async (ctx) => {
  const { prisma, deps } = ctx.services;
  if (!existsSync(deps.datasetsDir)) {
    throw new JobFailedError(
      `The datasets folder was not found at ${deps.datasetsDir}. Set DATASETS_DIR to the folder that holds the benchmark datasets and restart Mosaic.`,
    );
  }
  const env = loadEnv();
  const neo4j = env.NEO4J_URI
    ? { uri: env.NEO4J_URI, user: env.NEO4J_USER, password: env.NEO4J_PASSWORD, database: env.NEO4J_DATABASE }
    : undefined;
  const report = await loadBenchmarkCatalog(prisma, deps, {
    neo4j,
    signal: ctx.signal,
    log: (line) => log.info({ job: ctx.jobId }, line),
    progress: (p) =>
      ctx.progress({
        done: p.done,
        total: p.total,
        message: p.current
          ? `Loading ${p.current} (${(p.done + 1).toLocaleString("en")} of ${count(p.total, "knowledge base")}).`
          : `${count(p.done, "knowledge base")} handled.`,
      }),
  });
  const failed = report.failed.length
    ? ` ${count(report.failed.length, "knowledge base")} could not be loaded: ${report.failed
        .slice(0, 3)
        .map((f) => `${f.name} (${f.error})`)
        .join("; ")}${report.failed.length > 3 ? `; and ${report.failed.length - 3} more` : ""}.`
    : "";
  const message = `Benchmark catalog loaded: ${count(report.registered.length, "knowledge base")} added, ${report.skipped.length.toLocaleString("en")} already there.${failed}`;
  // Every knowledge base failing is a failed load (the datasets are broken or unreadable), not a success.
  if (report.failed.length > 0 && report.registered.length === 0 && report.skipped.length === 0) throw new JobFailedError(message);
  return { message };
};
