import type { Metadata } from "next";
import { AskWorkspace } from "@/components/ask/ask-workspace";
import { requireRole } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { rolesFor } from "@/lib/navigation";
import { listAskableKbs } from "@/lib/runs/askable-kbs";
import { conversationTurns, loadRunView } from "@/lib/runs/load-run";
import type { RunView, TurnView } from "@/lib/runs/types";

export const metadata: Metadata = { title: "Ask" };

function one(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s?.trim() || undefined;
}

/** /ask (new), /ask?run=<id> (reopen a run as it was), /ask?conversation=<id> (continue a conversation). */
export default async function AskPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const runId = one(params.run);
  const conversation = one(params.conversation);
  const self = runId
    ? `/ask?run=${encodeURIComponent(runId)}`
    : conversation
      ? `/ask?conversation=${encodeURIComponent(conversation)}`
      : "/ask";
  const user = await requireRole(rolesFor("/ask"), self);
  const prisma = await db();
  const kbs = await listAskableKbs(prisma, user);

  let initialRun: RunView | null = null;
  let turns: TurnView[] = [];
  let conversationId: string | null = null;
  let openError: string | null = null;
  try {
    if (runId) {
      initialRun = await loadRunView(prisma, user, runId);
      if (initialRun.viewerIsOwner && initialRun.conversationId) {
        conversationId = initialRun.conversationId;
        turns = await conversationTurns(prisma, user, conversationId, { runId });
      }
    } else if (conversation) {
      const all = await conversationTurns(prisma, user, conversation);
      conversationId = conversation;
      turns = all.slice(0, -1);
      const last = all.at(-1);
      if (last) initialRun = await loadRunView(prisma, user, last.id);
    }
  } catch (e) {
    if (!(e instanceof AppError && e.code === "NOT_FOUND")) throw e;
    openError = e.message;
    initialRun = null;
    turns = [];
    conversationId = null;
  }

  return (
    <AskWorkspace
      key={self}
      kbs={kbs}
      initialRun={initialRun}
      initialTurns={turns}
      initialConversationId={conversationId}
      canSaveGuide={user.role === "ADMIN" || user.role === "ANALYST"}
      openError={openError}
    />
  );
}
