import { db } from "@/lib/db/client";
import { cancelReport } from "@/lib/eval/reports";
import { withAuthRoute } from "@/lib/http/route";
import { rolesFor } from "@/lib/navigation";

export const runtime = "nodejs";

/** Stops a run; finished questions are kept and the run can be resumed. */
export const POST = withAuthRoute<undefined, { id: string }>(
  { name: "eval.reports.cancel", roles: rolesFor("/evaluation") },
  async ({ user, params }) => {
    await cancelReport(await db(), user, params.id);
    return { cancelled: true };
  },
);
