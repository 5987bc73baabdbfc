import { db } from "@/lib/db/client";
import { loadRunView } from "@/lib/runs/load-run";
import { apiRoute } from "@/lib/server/api-v1/route";
import { runApiView } from "@/lib/server/api-v1/views";

export const runtime = "nodejs";

/** A stored run: the same rules as the History page (own runs; admins any; analysts reported ones), cut to the user's knowledge bases. */
export const GET = apiRoute<undefined, { id: string }>({ name: "v1.runs.get", scope: "runs:read" }, async ({ user, params }) =>
  runApiView(await loadRunView(await db(), user, params.id)),
);
