import { benchmarkLoadStatus, cancelBenchmarkLoad, startBenchmarkLoad } from "@/lib/ingest/benchmarks/load-job";
import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { withAuthRoute } from "@/lib/http/route";
import { rolesFor } from "@/lib/navigation";

export const runtime = "nodejs";

/** The benchmark catalog load (a background job): its progress while it runs, how it ended after; null when none ran. */
export const GET = withAuthRoute({ name: "eval.benchmark-catalog.status", roles: rolesFor("/evaluation") }, async () => ({
  job: await benchmarkLoadStatus(await db()),
}));

/** Queues the benchmark catalog load (admins): what is already registered is skipped. */
export const POST = withAuthRoute({ name: "eval.benchmark-catalog.load", roles: ["ADMIN"] }, async () => ({
  job: await startBenchmarkLoad(await db(), catalogDeps()),
}));

/** Cancels the load going on (admins) before its next knowledge base. */
export const DELETE = withAuthRoute({ name: "eval.benchmark-catalog.cancel", roles: ["ADMIN"] }, async () => ({
  job: await cancelBenchmarkLoad(await db()),
}));
