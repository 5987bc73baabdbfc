import { db } from "@/lib/db/client";
import { listReports } from "@/lib/eval/reports";
import { rolesFor } from "@/lib/navigation";
import { apiRoute } from "@/lib/server/api-v1/route";

export const runtime = "nodejs";

/** Evaluation reports the user may see (analysts and admins, as the Evaluation page), newest first. */
export const GET = apiRoute({ name: "v1.eval.reports.list", scope: "runs:read", roles: rolesFor("/evaluation") }, async ({ user }) => ({
  reports: await listReports(await db(), user),
}));
