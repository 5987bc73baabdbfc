import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { loadEnv } from "@/lib/env";
import { createAuthoredSuite } from "@/lib/eval/authoring";
import { createSuiteSchema } from "@/lib/eval/eval.validation";
import { listSuiteOptions, suiteSettings } from "@/lib/eval/reports";
import { withAuthRoute } from "@/lib/http/route";
import { rolesFor } from "@/lib/navigation";

export const runtime = "nodejs";
const roles = rolesFor("/evaluation");

/** Suites the caller can run: built-in (with whether their KBs are there) and authored ones. */
export const GET = withAuthRoute({ name: "eval.suites.list", roles }, async ({ user }) =>
  listSuiteOptions(await db(), user, suiteSettings(loadEnv(), catalogDeps())),
);

/** Authors a suite from extraction guides, resolved feedback and written questions. */
export const POST = withAuthRoute({ name: "eval.suites.create", roles, input: createSuiteSchema }, async ({ user, input }) =>
  createAuthoredSuite(await db(), user, input),
);
