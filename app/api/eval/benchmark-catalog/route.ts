import { benchmarkLoadStatus, startBenchmarkLoad } from "@/lib/catalog/benchmark-load-job";
import { catalogDeps } from "@/lib/catalog/deps";
import { db } from "@/lib/db/client";
import { loadEnv } from "@/lib/env";
import { withAuthRoute } from "@/lib/http/route";
import { rolesFor } from "@/lib/navigation";

export const runtime = "nodejs";

/** The benchmark catalog load (of any instance): progress while it runs, the outcome after; null when none ran. */
export const GET = withAuthRoute({ name: "eval.benchmark-catalog.status", roles: rolesFor("/evaluation") }, async () => ({ job: await benchmarkLoadStatus(await db()) }));

/** Starts loading the benchmark catalog in the background (admins): what is already registered is skipped. */
export const POST = withAuthRoute({ name: "eval.benchmark-catalog.load", roles: ["ADMIN"] }, async () => {
  const env = loadEnv();
  const neo4j = env.NEO4J_URI ? { uri: env.NEO4J_URI, user: env.NEO4J_USER, password: env.NEO4J_PASSWORD, database: env.NEO4J_DATABASE } : undefined;
  return { job: await startBenchmarkLoad(await db(), catalogDeps(), { neo4j }) };
});
