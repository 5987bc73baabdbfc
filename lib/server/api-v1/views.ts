import type { CurrentUser } from "../../auth/session";
import type { KbListItem } from "../../catalog/knowledge-bases";
import { outcomeToJson } from "../../pipeline/run";
import type { RunView } from "../../runs/types";
import { askResult } from "../../runs/ask-stream";
import type { z } from "zod";
import type { knowledgeBaseSchema, runEvidenceSchema, runSchema } from "./schemas";

/**
 * What /api/v1 returns for a knowledge base: the same rows the pages list (already cut to what the user
 * may use), with the connection summary, the last check's message and the access list for admins only,
 * as on the pages (business users never see hosts or groups).
 */
export function kbApiView(kb: KbListItem, viewer: Pick<CurrentUser, "role">): z.infer<typeof knowledgeBaseSchema> {
  const admin = viewer.role === "ADMIN";
  return {
    id: kb.id,
    name: kb.name,
    kind: kb.kind,
    description: kb.description,
    health: { status: kb.status, checkedAt: kb.lastCheckAt, message: admin ? kb.lastCheckMessage : null },
    stats: kb.stats,
    access: admin ? { openToEveryone: kb.openToEveryone, groups: kb.groups } : null,
  };
}

/** A stored run as /api/v1 returns it (loadRunView already applied who may open it and what they see). */
export function runApiView(view: RunView): z.infer<typeof runSchema> {
  const result = view.outcome ? askResult(view.outcome) : null;
  return {
    id: view.id,
    question: view.question,
    status: view.status,
    createdAt: view.createdAt,
    finishedAt: view.finishedAt,
    conversationId: view.conversationId,
    askedByYou: view.viewerIsOwner,
    result: result as z.infer<typeof runSchema>["result"],
    hidden: view.hidden,
    trace: view.trace.map((t) => ({ stage: t.stage, type: t.type, summary: t.summary, durationMs: t.durationMs ?? null })),
  };
}

export function runEvidenceApiView(view: RunView): z.infer<typeof runEvidenceSchema> {
  const json = view.outcome ? outcomeToJson(view.outcome) : null;
  return {
    runId: view.id,
    citations: json?.citations ?? [],
    evidence: (json?.evidence ?? []) as z.infer<typeof runEvidenceSchema>["evidence"],
    hidden: view.hidden,
  };
}
