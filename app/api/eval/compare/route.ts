import { db } from "@/lib/db/client";
import { compareQuerySchema } from "@/lib/eval/eval.validation";
import { compareStoredReports } from "@/lib/eval/reports";
import { withAuthRoute } from "@/lib/http/route";
import { rolesFor } from "@/lib/navigation";

export const runtime = "nodejs";

/** Per-metric deltas (B − A) of two reports and the questions whose outcome changed: ?a=<id>&b=<id> */
export const GET = withAuthRoute(
  { name: "eval.compare", roles: rolesFor("/evaluation"), input: compareQuerySchema },
  async ({ user, input }) => compareStoredReports(await db(), user, input.a, input.b),
);
