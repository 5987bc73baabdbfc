import { db } from "@/lib/db/client";
import { jobApiView } from "@/lib/server/api-v1/jobs";
import { apiRoute } from "@/lib/server/api-v1/route";

export const runtime = "nodejs";

/** A background job's progress (registration and refresh name their jobs): admins, with kbs:write, as those routes. */
export const GET = apiRoute<undefined, { id: string }>(
  { name: "v1.jobs.get", scope: "kbs:write", roles: ["ADMIN"] },
  async ({ user, params }) => jobApiView(await db(), user, params.id),
);
