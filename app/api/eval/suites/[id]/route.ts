import { db } from "@/lib/db/client";
import { deleteAuthoredSuite } from "@/lib/eval/authoring";
import { withAuthRoute } from "@/lib/http/route";
import { rolesFor } from "@/lib/navigation";

export const runtime = "nodejs";

export const DELETE = withAuthRoute<undefined, { id: string }>(
  { name: "eval.suites.delete", roles: rolesFor("/evaluation") },
  async ({ user, params }) => {
    await deleteAuthoredSuite(await db(), user, params.id);
    return { deleted: true };
  },
);
