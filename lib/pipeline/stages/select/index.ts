import type { TextEmbeddings } from "../../../models/text-embeddings";
import type { Embedder } from "../../../models/types";
import type { CatalogEntry } from "../../../catalog/snapshot";
import { RunCancelledError, type StageContext, type StageStrategy } from "../../stage";
import { type Candidate, type Intent, type SelectionReason, intentText } from "../../types";
import { type CatalogIndex, catalogIndexFor } from "./catalog-index";
import { type SemanticSignal, semanticSignal } from "./semantic";
import { type GuideRef, entitySignal, guideSignal, kbTextSignal, objectSignal, surfaceWords } from "./signals";
import { guideLikeness } from "../../../format/strength";
import { questionVector } from "../../scorers/dense";

export { type CatalogIndex, buildCatalogIndex, catalogIndexFor } from "./catalog-index";
export { type SemanticSignal, UNRELATED_COSINE, calibrated, semanticSignal } from "./semantic";
export {
  type GuideRef,
  OBJECT_DECAY,
  INEXACT_LINK_FACTOR,
  entitySignal,
  guideSignal,
  kbTextSignal,
  objectSignal,
  queryMass,
} from "./signals";

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
  /** The sentence embedder and the catalog texts' embeddings: the semantic signal joins when given. */
  embedder?: Embedder | null;
  textEmbeddings?: TextEmbeddings | null;
  /** The semantic signal, already computed (catalog order); the classical strategy computes it from `embedder`. */
  semantic?: SemanticSignal | null;
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
export const SELECTION_WEIGHTS = { terms: 0.3, objects: 0.3, entities: 0.25, guides: 0.15, semantic: 0 } as const;

/**
 * With a sentence embedder, the semantic signal (question vs KB text and source objects, see
 * semantic.ts) takes a third of the two lexical signals' share: lexical matches stay the stronger
 * evidence when they exist, and a paraphrase that shares no word still reaches the candidates.
 */
export const SEMANTIC_SELECTION_WEIGHTS = { terms: 0.2, objects: 0.2, entities: 0.25, guides: 0.15, semantic: 0.2 } as const;

type Weights = { [K in keyof typeof SELECTION_WEIGHTS]: number };

/** At most this many source objects are listed per candidate (what formulate looks at first). */
const MAX_LISTED_OBJECTS = 5;
/** Source objects whose closeness in meaning a candidate carries to query formulation (schema linking reads it). */
const MAX_MEANING_OBJECTS = 20;
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
  semantic: SemanticSignal | null;
}

function reasonsFor(
  entry: number,
  index: CatalogIndex,
  query: string,
  signals: Signals,
  requested: boolean,
  weights: Weights,
): SelectionReason[] {
  const kb = index.entries[entry];
  const reasons: SelectionReason[] = [];
  if (requested) reasons.push({ type: "requested", detail: "chosen by the user", weight: 0 });

  const termScore = signals.terms.score[entry];
  if (termScore > 0) {
    const matched = surfaceWords(query, signals.terms.matched(entry));
    reasons.push({ type: "terms", detail: `matched: ${matched.join(", ")}`, weight: round(weights.terms * termScore) });
  }

  const objectScore = signals.objects.score[entry];
  const objectHits = signals.objects.hits[entry];
  if (objectScore > 0 && objectHits.length) {
    const shown = objectHits
      .slice(0, 3)
      .map(
        (h) => `'${h.name}' (${h.contentType.toLowerCase()}): ${surfaceWords(query, index.objects.matchedTerms(query, h.doc)).join(", ")}`,
      );
    reasons.push({ type: "description", detail: `source objects ${shown.join("; ")}`, weight: round(weights.objects * objectScore) });
  }

  for (const hit of signals.entities.hits[entry]) {
    const where = [hit.link.kind, hit.link.sourceObject].filter(Boolean).join(" in ");
    reasons.push({
      type: "entity",
      detail: `'${hit.mention}' → ${kb.kbName} (${hit.link.label}${where ? `, ${where}` : ""}${hit.exact ? "" : ", approximate"})`,
      weight: round((weights.entities * hit.weight) / Math.max(1, signals.entities.linkedMentions)),
    });
  }

  const semantic = signals.semantic;
  if (semantic && semantic.score[entry] > 0) {
    // People read this detail (Candidate sources); the similarities themselves are in the reason's weight and the trace.
    const objects = semantic.objects[entry].slice(0, 2).map((o) => `'${o.name}'`);
    reasons.push({
      type: "meaning",
      detail: `close in meaning to the source's description${objects.length ? ` and to ${objects.join(" and ")}` : ""}`,
      weight: round(weights.semantic * semantic.score[entry]),
    });
  }

  const guide = signals.guides.best[entry];
  if (guide) {
    reasons.push({
      type: "guide",
      detail: `the guide '${shorten(guide.question)}', ${guideLikeness(guide.score)}`,
      weight: round(weights.guides * signals.guides.score[entry]),
    });
  }
  return reasons;
}

function listedObjects(entry: number, signals: Signals): string[] {
  const hits = signals.objects.hits[entry];
  const best = hits[0]?.score ?? 0;
  const fromTerms = hits.filter((h) => h.score >= best * LISTED_OBJECT_RATIO).map((h) => h.key);
  // A linked entity's table/class is where the formulated query must look, whatever its terms say.
  const fromEntities = signals.entities.hits[entry].map((h) => h.link.sourceObject).filter((s): s is string => !!s);
  // An object close in meaning ("clients" for the customer table) when no word matched one.
  const semantic = signals.semantic?.objects[entry] ?? [];
  const fromMeaning = fromTerms.length
    ? []
    : semantic.filter((o) => o.score >= (semantic[0]?.score ?? 0) * LISTED_OBJECT_RATIO).map((o) => o.key);
  return [...new Set([...fromEntities, ...fromTerms, ...fromMeaning])].slice(0, MAX_LISTED_OBJECTS);
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

  const semantic = input.semantic && input.semantic.score.length === index.entries.length ? input.semantic : null;
  const signals: Signals = {
    terms: kbTextSignal(index, query),
    objects: objectSignal(index, query),
    entities: entitySignal(index, input.intent),
    guides: guideSignal(index, input.guides),
    semantic,
  };
  const weights: Weights = semantic ? SEMANTIC_SELECTION_WEIGHTS : SELECTION_WEIGHTS;

  const ranked = index.entries
    .map((entry, i) => ({
      i,
      entry,
      score:
        weights.terms * signals.terms.score[i] +
        weights.objects * signals.objects.score[i] +
        weights.entities * signals.entities.score[i] +
        weights.guides * signals.guides.score[i] +
        weights.semantic * (semantic?.score[i] ?? 0),
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
    reasons: reasonsFor(i, index, query, signals, !!requested, weights),
    ...(semantic
      ? { meaning: Object.fromEntries(semantic.objects[i].slice(0, MAX_MEANING_OBJECTS).map((o) => [o.key, round(o.score)])) }
      : {}),
  }));
}

export const classicalSelect: StageStrategy<SelectInput, Candidate[]> = {
  name: "classical",
  async run(input: SelectInput, ctx: StageContext): Promise<Candidate[]> {
    if (ctx.signal.aborted) throw new RunCancelledError();
    let semantic = input.semantic ?? null;
    if (!semantic && input.embedder && input.textEmbeddings && input.catalog.length) {
      try {
        // The run's question vector (scorers/dense.ts): query formulation and re-ranking reuse it.
        semantic = await semanticSignal(
          input.embedder,
          input.textEmbeddings,
          questionVector(input.embedder, input.intent, ctx.signal),
          input.catalog,
          ctx.signal,
        );
        if (semantic.pending) {
          ctx.trace({
            stage: "select",
            type: "INFO",
            strategy: "classical",
            summary: `${semantic.pending.toLocaleString("en")} catalog descriptions are still being embedded in the background; they count by their words only until then.`,
          });
        }
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        ctx.trace({
          stage: "select",
          type: "INFO",
          strategy: "classical",
          summary: `The semantic signal was left out: the embedding model failed (${(e as Error).message}).`,
        });
      }
    }
    const candidates = selectSources({ ...input, semantic });
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
