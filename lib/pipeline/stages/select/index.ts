import type { CatalogEntry } from "../../catalog-snapshot";
import { RunCancelledError, type StageContext, type StageStrategy } from "../../stage";
import { type Candidate, type Intent, type SelectionReason, intentText } from "../../types";
import { type CatalogIndex, catalogIndexFor } from "./catalog-index";
import { type GuideRef, entitySignal, guideSignal, kbTextSignal, objectSignal, surfaceWords } from "./signals";

export { type CatalogIndex, buildCatalogIndex, catalogIndexFor } from "./catalog-index";
export { type GuideRef, OBJECT_DECAY, INEXACT_LINK_FACTOR, entitySignal, guideSignal, kbTextSignal, objectSignal, queryMass } from "./signals";

export interface SelectInput {
  intent: Intent;
  catalog: CatalogEntry[];
  /** The nearest extraction guides (retrieved by question similarity), with the KBs each used. */
  guides: GuideRef[];
  k: number;
  /** KBs the user chose: only these can be candidates. */
  requestedKbIds?: string[];
  /** KBs the critic ruled out (wrong_source feedback). Exclusion wins over a request. */
  exclude?: string[];
}

export const DEFAULT_SELECT_K = 3;

/**
 * How the four signals (each 0..1) mix into one score. Fixed, not tuned per question:
 * - descriptor terms and source-object terms carry most of the weight (0.3 each): they are present for
 *   every KB and every question, and the two views disagree usefully (the descriptor sees the whole
 *   KB, a source object sees one table or class with its example values);
 * - linked entities (0.25): an exact value or label found in a KB's entity index is the most specific
 *   evidence a classical selector has, but only questions that name something produce it;
 * - extraction guides (0.15): a close guide's sources worked for a near-identical question (AU-RAG's
 *   Think Tank); kept below the others because guide similarity is itself lexical and a guide can be
 *   close in wording but about another entity.
 */
export const SELECTION_WEIGHTS = { terms: 0.3, objects: 0.3, entities: 0.25, guides: 0.15 } as const;

/** At most this many source objects are listed per candidate (what formulate looks at first). */
const MAX_LISTED_OBJECTS = 5;
/** Objects far below the KB's best object are noise matches (a shared "name" column), not listed. */
const LISTED_OBJECT_RATIO = 0.5;

function shorten(text: string, max = 60): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

interface Signals {
  terms: ReturnType<typeof kbTextSignal>;
  objects: ReturnType<typeof objectSignal>;
  entities: ReturnType<typeof entitySignal>;
  guides: ReturnType<typeof guideSignal>;
}

function reasonsFor(entry: number, index: CatalogIndex, query: string, signals: Signals, requested: boolean): SelectionReason[] {
  const kb = index.entries[entry];
  const reasons: SelectionReason[] = [];
  if (requested) reasons.push({ type: "requested", detail: "chosen by the user", weight: 0 });

  const termScore = signals.terms.score[entry];
  if (termScore > 0) {
    const matched = surfaceWords(query, signals.terms.matched(entry));
    reasons.push({ type: "terms", detail: `matched: ${matched.join(", ")}`, weight: round(SELECTION_WEIGHTS.terms * termScore) });
  }

  const objectScore = signals.objects.score[entry];
  const objectHits = signals.objects.hits[entry];
  if (objectScore > 0 && objectHits.length) {
    const shown = objectHits.slice(0, 3).map((h) => `'${h.name}' (${h.contentType.toLowerCase()}): ${surfaceWords(query, index.objects.matchedTerms(query, h.doc)).join(", ")}`);
    reasons.push({ type: "description", detail: `source objects ${shown.join("; ")}`, weight: round(SELECTION_WEIGHTS.objects * objectScore) });
  }

  for (const hit of signals.entities.hits[entry]) {
    const where = [hit.link.kind, hit.link.sourceObject].filter(Boolean).join(" in ");
    reasons.push({
      type: "entity",
      detail: `'${hit.mention}' → ${kb.kbName} (${hit.link.label}${where ? `, ${where}` : ""}${hit.exact ? "" : ", approximate"})`,
      weight: round((SELECTION_WEIGHTS.entities * hit.weight) / Math.max(1, signals.entities.linkedMentions)),
    });
  }

  const guide = signals.guides.best[entry];
  if (guide) {
    reasons.push({ type: "guide", detail: `guide '${shorten(guide.question)}' (${guide.score.toFixed(2)})`, weight: round(SELECTION_WEIGHTS.guides * signals.guides.score[entry]) });
  }
  return reasons;
}

function listedObjects(entry: number, signals: Signals): string[] {
  const hits = signals.objects.hits[entry];
  const best = hits[0]?.score ?? 0;
  const fromTerms = hits.filter((h) => h.score >= best * LISTED_OBJECT_RATIO).map((h) => h.key);
  // A linked entity's table/class is where the formulated query must look, whatever its terms say.
  const fromEntities = signals.entities.hits[entry].map((h) => h.link.sourceObject).filter((s): s is string => !!s);
  return [...new Set([...fromEntities, ...fromTerms])].slice(0, MAX_LISTED_OBJECTS);
}

/**
 * Ranks the catalog's KBs for the question and returns the top k with their scores and reasons.
 * KBs with no signal at all are not candidates unless the user requested them.
 */
export function selectSources(input: SelectInput): Candidate[] {
  const index = catalogIndexFor(input.catalog);
  const query = intentText(input.intent);
  const requested = input.requestedKbIds?.length ? new Set(input.requestedKbIds) : null;
  const excluded = new Set(input.exclude ?? []);
  const k = Math.max(1, input.k || DEFAULT_SELECT_K);

  const signals: Signals = {
    terms: kbTextSignal(index, query),
    objects: objectSignal(index, query),
    entities: entitySignal(index, input.intent),
    guides: guideSignal(index, input.guides),
  };

  const ranked = index.entries
    .map((entry, i) => ({
      i,
      entry,
      score:
        SELECTION_WEIGHTS.terms * signals.terms.score[i] +
        SELECTION_WEIGHTS.objects * signals.objects.score[i] +
        SELECTION_WEIGHTS.entities * signals.entities.score[i] +
        SELECTION_WEIGHTS.guides * signals.guides.score[i],
    }))
    .filter(({ entry, score }) => !excluded.has(entry.kbId) && (requested ? requested.has(entry.kbId) : score > 0))
    .sort((a, b) => b.score - a.score || a.entry.kbName.localeCompare(b.entry.kbName))
    .slice(0, k);

  return ranked.map(({ i, entry, score }) => ({
    kbId: entry.kbId,
    kbName: entry.kbName,
    kind: entry.kind,
    sourceObjects: listedObjects(i, signals),
    score: round(score),
    reasons: reasonsFor(i, index, query, signals, !!requested),
  }));
}

export const classicalSelect: StageStrategy<SelectInput, Candidate[]> = {
  name: "classical",
  async run(input: SelectInput, ctx: StageContext): Promise<Candidate[]> {
    if (ctx.signal.aborted) throw new RunCancelledError();
    const candidates = selectSources(input);
    ctx.trace({
      stage: "select",
      type: "INFO",
      strategy: "classical",
      summary: candidates.length
        ? `${candidates.length} of ${input.catalog.length} sources: ${candidates.map((c) => `${c.kbName} (${c.score.toFixed(2)})`).join(", ")}`
        : `no source of ${input.catalog.length} matches the question`,
      payload: { candidates: candidates.map((c) => ({ kbId: c.kbId, score: c.score, reasons: c.reasons.map((r) => r.type) })) },
    });
    return candidates;
  },
};
