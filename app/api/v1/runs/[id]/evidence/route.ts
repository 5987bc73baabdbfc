import { db } from "@/lib/db/client";
import { loadRunView } from "@/lib/runs/load-run";
import { apiRoute } from "@/lib/server/api-v1/route";
import { runEvidenceApiView } from "@/lib/server/api-v1/views";

export const runtime = "nodejs";

/** A stored run's evidence and citations, withheld (with `hidden` saying so) when it read a knowledge base the user may not use. */
export const GET = apiRoute<undefined, { id: string }>({ name: "v1.runs.evidence", scope: "runs:read" }, async ({ user, params }) =>
  runEvidenceApiView(await loadRunView(await db(), user, params.id)),
);
