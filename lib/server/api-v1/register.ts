import "server-only";
import type { z } from "zod";
import type { AuditActor } from "../../audit/audit";
import type { CurrentUser } from "../../auth/session";
import { getKnowledgeBase } from "../../catalog/knowledge-bases";
import type { RegisterKbInput } from "../../catalog/knowledge-bases.validation";
import type { PrismaClient } from "../../db/generated/client";
import type { CatalogDeps } from "../../deps";
import { AppError, toClientError } from "../../errors";
import type { UploadedFormFile } from "../../http/route";
import { problemDetails } from "../../http/problem";
import { registerKnowledgeBaseAudited } from "../register-kb";
import type { registeredKnowledgeBaseSchema } from "./schemas";
import { kbApiView } from "./views";

/**
 * POST /api/v1/knowledge-bases: the registration page's own path (lib/ingest/register.ts, audited as
 * "kb.register" through lib/server/register-kb.ts like app/api/knowledge-bases/route.ts), answered with the knowledge base as GET returns
 * it and the background jobs that go on with its content.
 */
export async function registerThroughApi(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: CurrentUser,
  actor: AuditActor,
  input: RegisterKbInput,
  files: UploadedFormFile[],
  apiKeyId: string | undefined,
): Promise<z.infer<typeof registeredKnowledgeBaseSchema>> {
  const result = await registerKnowledgeBaseAudited(prisma, deps, actor, user.id, input, files, { via: "api", apiKeyId: apiKeyId ?? null });
  const kb = await getKnowledgeBase(prisma, user, result.id);
  return {
    knowledgeBase: kbApiView(kb, user),
    jobId: result.jobIds[0] ?? null,
    jobIds: result.jobIds,
    warnings: result.warnings,
    message: result.refresh.message,
  };
}

/**
 * A source that could not be reached or described at registration (UNAVAILABLE from
 * lib/catalog/register.ts, everything rolled back) is a request the API could not process as given:
 * 422 problem details whose `fields` say what failed: `connection` for a source reached over the network,
 * `files` for one built from the uploaded files. Other errors keep their status.
 */
export function connectionFailureResponse(error: unknown, instance: string, field: "connection" | "files"): Response | null {
  if (!AppError.is(error) || error.code !== "UNAVAILABLE") return null;
  const client = toClientError(error);
  const body = problemDetails({ ...client, fields: { [field]: client.message, ...client.fields } }, 422, instance);
  return new Response(JSON.stringify(body), { status: 422, headers: { "content-type": "application/problem+json" } });
}
