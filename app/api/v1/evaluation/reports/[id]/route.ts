import { db } from "@/lib/db/client";
import { getReport } from "@/lib/eval/reports";
import { rolesFor } from "@/lib/navigation";
import { apiRoute } from "@/lib/server/api-v1/route";

export const runtime = "nodejs";

/** One evaluation report: status, progress and metrics. */
export const GET = apiRoute<undefined, { id: string }>(
  { name: "v1.eval.reports.get", scope: "runs:read", roles: rolesFor("/evaluation") },
  async ({ user, params }) => getReport(await db(), user, params.id),
);
