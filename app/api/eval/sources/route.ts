import { db } from "@/lib/db/client";
import { listAuthoringSources } from "@/lib/eval/authoring";
import { withAuthRoute } from "@/lib/http/route";
import { rolesFor } from "@/lib/navigation";

export const runtime = "nodejs";

/** Extraction guides and resolved feedback a suite can be authored from (within the caller's access). */
export const GET = withAuthRoute({ name: "eval.sources", roles: rolesFor("/evaluation") }, async ({ user }) =>
  listAuthoringSources(await db(), user),
);
