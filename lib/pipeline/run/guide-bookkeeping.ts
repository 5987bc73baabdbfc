import type { KbRecord } from "../../backends/registry";
import type { EvidencePiece } from "../../backends/types";
import type { AccessSubject } from "../../catalog/access";
import type { CatalogDeps } from "../../deps";
import type { PrismaClient } from "../../db/generated/client";
import type { PipelineConfig } from "../config";
import { executeGuideAction } from "../execute-action";
import type { FormulateGuide } from "../stages/formulate/classical";
import type { SelectInput } from "../stages/select/classical";
import { storeGuideUse } from "./persistence";
import type { GuideHit, GuideSemantics, GuideSource } from "./types";
import { count } from "../../format/count";
import { type GuideMatcher, matchGuideQuestions } from "../../models/guide-matcher";

/**
 * The extraction guides a run uses (AU-RAG): the nearest ones to its question, noted on the run, offered
 * to source selection and formulation, their malformed actions reported, and their retrieval actions
 * that are not native queries (SelectCoordinates, SelectSentenceIdxs, Neighborhood) run directly.
 */

/** The matcher reads at most three pairs (both orders): far below this unless the workers are stuck. */
const MATCHER_TIMEOUT_MS = 5_000;

/** Guides this close to the question contribute their retrieval actions. */
const ACTION_MIN_SCORE = 0.5;

export interface RunGuides {
  hits: GuideHit[];
  /** One line per guide whose actions were partly malformed. */
  notes: string[];
}

export async function loadRunGuides(
  prisma: PrismaClient,
  source: GuideSource,
  user: AccessSubject,
  runId: string,
  question: string,
  kbIds: string[],
  semantic: GuideSemantics | null = null,
  matcher: GuideMatcher | null = null,
): Promise<RunGuides> {
  const found = await source({ user, question, kbIds, limit: 3, minScore: 0.2, semantic });
  const notes = found
    .filter((g) => g.invalidActions > 0)
    .map(
      (g) =>
        `Guide "${g.question.slice(0, 80)}" has ${count(g.invalidActions, "malformed action")}; ${g.invalidActions === 1 ? "it was" : "they were"} skipped.`,
    );
  let hits = found;
  if (matcher && found.length > 0) {
    try {
      const read = await matchGuideQuestions(
        matcher,
        question,
        found.map((g) => g.question),
        { timeoutMs: MATCHER_TIMEOUT_MS },
      );
      hits = found.map((g, i) => ({ ...g, matcher: read[i] }));
    } catch (e) {
      // Without the matcher's reading a guide answers only a question that agrees with it in words, as before.
      notes.push(`The guide matcher could not read the guides' questions (${(e as Error).message}); guides were matched by their words.`);
    }
  }
  await storeGuideUse(prisma, runId, hits);
  return { hits, notes };
}

/** The guides as source selection reads them. */
export function selectionGuides(guides: GuideHit[]): SelectInput["guides"] {
  return guides.map((g) => ({ guideId: g.guideId, question: g.question, score: g.score, kbIds: g.kbIds }));
}

/** The guides' native queries as formulation adapts them. */
export function formulationGuides(guides: GuideHit[]): FormulateGuide[] {
  return guides.flatMap((g) =>
    g.examples.map((ex) => ({
      guideId: g.guideId,
      question: g.question,
      score: g.score,
      lexicalScore: g.lexicalScore,
      // The matcher's word counts on a graph's guides only where it was shown to hold there.
      sameQuestion: ex.query.language === "sql" ? g.matcher?.same : g.matcher?.sameOnGraph,
      matcherLogit: g.matcher?.logit,
      kbId: ex.kbId,
      sourceObject: ex.sourceObject,
      query: ex.query,
    })),
  );
}

/** Runs the close guides' direct retrieval actions; a failing one is a degradation, not an error. */
export async function guideActionPieces(
  guides: GuideHit[],
  kbs: Map<string, KbRecord>,
  deps: CatalogDeps,
  config: PipelineConfig,
  signal: AbortSignal,
): Promise<{ pieces: EvidencePiece[]; degradations: string[] }> {
  const pieces: EvidencePiece[] = [];
  const degradations: string[] = [];
  for (const g of guides.filter((x) => x.score >= ACTION_MIN_SCORE)) {
    for (const a of g.actions.filter((x) => x.action.kind !== "NATIVE_QUERY" && kbs.has(x.kbId))) {
      try {
        const r = await executeGuideAction(kbs.get(a.kbId)!, a.action, deps, {
          timeoutMs: config.queryTimeoutMs,
          maxRows: config.maxRowsPerQuery,
          signal,
        });
        pieces.push(...r.pieces);
      } catch (e) {
        degradations.push(`A retrieval action of guide "${g.question.slice(0, 60)}" failed: ${(e as Error).message}`);
      }
    }
  }
  return { pieces, degradations };
}
