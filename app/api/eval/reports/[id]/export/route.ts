import { db } from "@/lib/db/client";
import { exportReport } from "@/lib/eval/reports";
import { withAuthRoute } from "@/lib/http/route";
import { rolesFor } from "@/lib/navigation";

export const runtime = "nodejs";

/** The report as a file, in the shape `npm run eval -- --json` writes (so `npm run eval:compare` reads it). */
export const GET = withAuthRoute<undefined, { id: string }>(
  { name: "eval.reports.export", roles: rolesFor("/evaluation") },
  async ({ user, params }) => {
    const report = await exportReport(await db(), user, params.id);
    const file = `eval-${report.suite.replace(/[^a-z0-9-]+/gi, "_")}-${report.reportId}.json`;
    return new Response(`${JSON.stringify(report, null, 2)}\n`, {
      headers: {
        "content-type": "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="${file}"`,
        "cache-control": "no-store",
      },
    });
  },
);
