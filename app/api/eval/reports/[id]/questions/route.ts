import { db } from "@/lib/db/client";
import { questionsQuerySchema } from "@/lib/eval/eval.validation";
import { listReportQuestions } from "@/lib/eval/reports";
import { withAuthRoute } from "@/lib/http/route";
import { rolesFor } from "@/lib/navigation";

export const runtime = "nodejs";

/** One page of a report's per-question results: ?filter=all|wrong|right|refrained|errors&q=&offset=&limit= */
export const GET = withAuthRoute<typeof questionsQuerySchema, { id: string }>(
  { name: "eval.reports.questions", roles: rolesFor("/evaluation"), input: questionsQuerySchema },
  async ({ user, params, input }) => listReportQuestions(await db(), user, params.id, input),
);
