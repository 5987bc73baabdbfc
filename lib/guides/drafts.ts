import type { KbRecord } from "../backends/registry";
import type { AccessSubject } from "../catalog/access";
import type { CatalogDeps } from "../deps";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import type { GuideActionKind } from "../pipeline/guide-actions";
import { accessibleKb } from "./access";
import { captureAction, parseActionFor } from "./capture";
import { type GuideDraftInput, type GuideDraftParsed, MAX_CONTEXT_CHARS, guideDraftSchema } from "./guides.validation";
import type { GuideDetail } from "./types";

/** The editor's starting point for an existing guide. */
export function draftOfGuide(g: GuideDetail): GuideDraftInput {
  return {
    question: g.question,
    answer: g.answer,
    notes: g.notes,
    fromRunId: g.fromRunId,
    sources: g.sources.map((s) => ({
      kbId: s.kbId,
      sourceObjectId: s.sourceObject?.id ?? null,
      actions: s.actions.map((a) => ({ kind: a.kind, params: a.params, context: a.context })),
    })),
  };
}

/** Validates an editor's draft; problems come back as one VALIDATION error with a message per field path ("sources.0.actions"). */
export function parseGuideDraft(raw: unknown): GuideDraftParsed {
  const parsed = guideDraftSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const fields: Record<string, string> = {};
  for (const issue of parsed.error.issues) fields[issue.path.join(".") || "draft"] ??= issue.message;
  throw new AppError("VALIDATION", Object.values(fields)[0] ?? "The guide is incomplete.", fields);
}

export type AuthoredSource = {
  kbId: string;
  sourceObjectId: string | null;
  actions: { kind: GuideActionKind; params: Prisma.InputJsonValue; context: string }[];
};

/**
 * Checks a draft against the data and captures its contexts: every KB must be one the author may use,
 * every source object must belong to its KB, and every action runs once now (the backends' safety
 * rules apply), so a guide never stores an action that is refused or fails. A context the editor
 * already captured (or took from the run the guide came from) is kept; a missing one is what the
 * action returns now. All problems are reported together, each under the field it belongs to.
 */
export async function prepareGuideDraft(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  draft: GuideDraftParsed,
  signal?: AbortSignal,
): Promise<AuthoredSource[]> {
  const fields: Record<string, string> = {};
  const out: AuthoredSource[] = [];
  for (const [i, source] of draft.sources.entries()) {
    let kb: KbRecord;
    try {
      kb = await accessibleKb(prisma, user, source.kbId);
    } catch (e) {
      fields[`sources.${i}.kbId`] = (e as Error).message;
      continue;
    }
    if (source.sourceObjectId) {
      const so = await prisma.sourceObject.findFirst({ where: { id: source.sourceObjectId, kbId: kb.id }, select: { id: true } });
      if (!so) fields[`sources.${i}.sourceObjectId`] = `That source object is not part of ${kb.name}.`;
    }
    const actions: AuthoredSource["actions"] = [];
    for (const [j, raw] of source.actions.entries()) {
      const key = `sources.${i}.actions.${j}`;
      try {
        const captured = await captureAction(kb, parseActionFor(kb, raw), deps, signal);
        const given = raw.context.trim();
        // The stored action is the one that ran (SelectCoordinates on SQL is stored as its query).
        actions.push({
          kind: captured.action.kind,
          params: captured.action.params as Prisma.InputJsonValue,
          context: given ? given.slice(0, MAX_CONTEXT_CHARS) : captured.context,
        });
      } catch (e) {
        fields[key] = e instanceof AppError ? e.message : `The action could not run: ${(e as Error).message}`;
      }
    }
    out.push({ kbId: kb.id, sourceObjectId: source.sourceObjectId, actions });
  }
  const problems = Object.keys(fields).length;
  if (problems) {
    const first = Object.values(fields)[0];
    throw new AppError(
      "VALIDATION",
      problems === 1 ? `The guide cannot be saved: ${first}` : `The guide cannot be saved: ${problems} problems, the first: ${first}`,
      fields,
    );
  }
  return out;
}
