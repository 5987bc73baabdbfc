import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { loadEnv } from "@/lib/env";
import { resumeReport } from "@/lib/eval/reports";
import { withAuthRoute } from "@/lib/http/route";
import { rolesFor } from "@/lib/navigation";

export const runtime = "nodejs";

/** Continues a cancelled, failed or interrupted run: questions already done are skipped. */
export const POST = withAuthRoute<undefined, { id: string }>(
  { name: "eval.reports.resume", roles: rolesFor("/evaluation") },
  async ({ user, params }) => resumeReport(await db(), catalogDeps(), user, params.id, { sharedDatabase: !!loadEnv().DATABASE_URL }),
);
