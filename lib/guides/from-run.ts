import type { NativeQuery } from "../backends/types";
import type { AccessSubject } from "../catalog/access";
import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { runReadWhere } from "../feedback/run-access";
import { createGuide } from "./create";
import type { GuideDraft } from "./types";

interface StoredRunResult {
  question: string;
  answer: { text: string; refrained: boolean; citations: string[] };
  queries: { kbId: string; query: NativeQuery; status: string; evidenceIds: string[]; sourceObject: string | null }[];
  evidence: { piece: { id: string; text: string } }[];
}

/**
 * A run often finds the same cited evidence twice (a collection-wide search and the same search inside
 * one table): a guide needs it once. Queries tied to a source object are preferred as more specific; a
 * query is dropped when another query of its KB already covers all the evidence it contributed.
 */
function withoutRedundantQueries<Q extends { kbId: string; sourceObject: string | null; evidenceIds: string[] }>(
  queries: Q[],
  cited: Set<string>,
): Q[] {
  const ranked = queries
    .map((q, i) => ({ q, i, ids: q.evidenceIds.filter((id) => cited.has(id)) }))
    .sort((a, b) => Number(!!b.q.sourceObject) - Number(!!a.q.sourceObject) || b.ids.length - a.ids.length || a.i - b.i);
  const kept: typeof ranked = [];
  for (const r of ranked) {
    const covered = kept.some((k) => k.q.kbId === r.q.kbId && r.ids.every((id) => k.ids.includes(id)));
    if (!covered) kept.push(r);
  }
  return kept.sort((a, b) => a.i - b.i).map((k) => k.q);
}

/**
 * "Save this run as a guide" (AU-RAG): the question, the answer (or an analyst's correction), and per KB
 * the native queries that produced cited evidence, each with the context it retrieved. The draft can be
 * edited before saving; corrections are kept as few-shot examples for the critic.
 */
export async function guideDraftFromRun(prisma: PrismaClient, user: AccessSubject, runId: string): Promise<GuideDraft> {
  const run = await prisma.run.findFirst({
    where: { AND: [{ id: runId }, await runReadWhere(prisma, user)] },
    select: { id: true, question: true, result: true },
  });
  if (!run?.result) throw new AppError("NOT_FOUND", "That run does not exist, is outside your access, or has no result to save.");
  const result = run.result as unknown as StoredRunResult;
  const cited = new Set(result.answer.citations);
  const textOf = new Map(result.evidence.map((e) => [e.piece.id, e.piece.text]));
  const useful = withoutRedundantQueries(
    result.queries.filter((q) => q.status === "ok" && q.evidenceIds.some((id) => cited.has(id))),
    cited,
  );
  const chosen = useful.length ? useful : result.queries.filter((q) => q.status === "ok").slice(0, 1);
  const byKb = new Map<string, GuideDraft["sources"][number]>();
  for (const q of chosen) {
    const source = byKb.get(q.kbId) ?? { kbId: q.kbId, sourceObjectId: null, actions: [] };
    const context = q.evidenceIds
      .filter((id) => cited.has(id) || !useful.length)
      .map((id) => textOf.get(id))
      .filter(Boolean)
      .slice(0, 10)
      .join("\n");
    source.actions.push({ kind: "NATIVE_QUERY", params: { query: q.query }, context });
    byKb.set(q.kbId, source);
  }
  for (const source of byKb.values()) {
    const q = chosen.find((c) => c.kbId === source.kbId && c.sourceObject);
    if (q?.sourceObject) {
      const so = await prisma.sourceObject.findUnique({
        where: { kbId_key: { kbId: source.kbId, key: q.sourceObject } },
        select: { id: true },
      });
      source.sourceObjectId = so?.id ?? null;
    }
  }
  return {
    question: run.question,
    answer: result.answer.refrained ? null : result.answer.text,
    fromRunId: run.id,
    sources: [...byKb.values()],
  };
}

export async function saveRunAsGuide(
  prisma: PrismaClient,
  user: AccessSubject,
  runId: string,
  edits: Partial<Pick<GuideDraft, "question" | "answer" | "notes">> & { correction?: string } = {},
) {
  const draft = await guideDraftFromRun(prisma, user, runId);
  if (!draft.sources.length)
    throw new AppError("VALIDATION", "This run ran no query that returned evidence, so there is nothing to save as a guide.");
  const existing = await prisma.extractionGuide.findUnique({ where: { fromRunId: runId }, select: { id: true } });
  if (existing) throw new AppError("CONFLICT", "This run is already saved as a guide.");
  const corrections = edits.correction ? [{ runAnswer: draft.answer, correctAnswer: edits.correction }] : [];
  return createGuide(prisma, user, { ...draft, ...edits, answer: edits.correction ?? edits.answer ?? draft.answer, corrections });
}
