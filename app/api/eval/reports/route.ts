import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { loadEnv } from "@/lib/env";
import { startRunSchema } from "@/lib/eval/eval.validation";
import { listReports, startReport } from "@/lib/eval/reports";
import { withAuthRoute } from "@/lib/http/route";
import { rolesFor } from "@/lib/navigation";

export const runtime = "nodejs";
const roles = rolesFor("/evaluation");

export const GET = withAuthRoute({ name: "eval.reports.list", roles }, async ({ user }) => listReports(await db(), user));

/** Starts a suite in the background (or resumes the unfinished run with the same suite, config and seed). */
export const POST = withAuthRoute({ name: "eval.reports.start", roles, input: startRunSchema }, async ({ user, input }) =>
  startReport(await db(), catalogDeps(), user, input, { sharedDatabase: !!loadEnv().DATABASE_URL }),
);
