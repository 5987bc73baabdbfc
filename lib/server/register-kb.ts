import "server-only";
import { auditedChange } from "../audit/change";
import type { AuditActor } from "../audit/audit";
import { kbSnapshot } from "../audit/snapshots";
import type { RegisterKbInput } from "../catalog/knowledge-bases.validation";
import type { PrismaClient } from "../db/generated/client";
import type { CatalogDeps } from "../deps";
import type { UploadedFormFile } from "../http/route";
import { registerKnowledgeBase } from "../ingest/register";

/**
 * Registration as the page and /api/v1 both do it: lib/ingest/register.ts inside one "kb.register" audit
 * record naming the uploaded files (name and size); `detail` adds what the caller knows (the API says
 * `via` and its key). One function, so the two doors cannot record a registration differently.
 */
export function registerKnowledgeBaseAudited(
  prisma: PrismaClient,
  deps: CatalogDeps,
  actor: AuditActor,
  userId: string,
  input: RegisterKbInput,
  files: UploadedFormFile[],
  detail: Record<string, unknown> = {},
) {
  return auditedChange(
    prisma,
    actor,
    {
      action: "kb.register",
      targetType: "kb",
      snapshot: kbSnapshot,
      idFrom: (r) => (r as { id?: string }).id,
      detail: { files: files.map((f) => ({ name: f.name, bytes: f.bytes.length })), ...detail },
    },
    () => registerKnowledgeBase(prisma, deps, userId, input, files),
  );
}
