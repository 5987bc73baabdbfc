import { db } from "@/lib/db/client";
import { deleteReport, getReport } from "@/lib/eval/reports";
import { withAuthRoute } from "@/lib/http/route";
import { rolesFor } from "@/lib/navigation";

export const runtime = "nodejs";
const roles = rolesFor("/evaluation");

/** Status, progress and metrics of a report (what the dashboard polls while it runs). */
export const GET = withAuthRoute<undefined, { id: string }>({ name: "eval.reports.get", roles }, async ({ user, params }) =>
  getReport(await db(), user, params.id),
);

export const DELETE = withAuthRoute<undefined, { id: string }>({ name: "eval.reports.delete", roles }, async ({ user, params }) => {
  await deleteReport(await db(), user, params.id);
  return { deleted: true };
});
