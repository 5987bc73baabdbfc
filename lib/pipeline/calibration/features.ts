import type { Answer, Candidate, ExecutedQuery, Intent, Iteration, ScoredEvidence } from "../contracts";

/**
 * What a run knows about how far to trust its answer, as numbers a calibrator reads (issue 32): how
 * strongly the question's names were linked, whether the result's shape fits what the question asks,
 * the critic's verdicts and whether rounds agreed, the evidence's scores and margin, the source kind.
 * Every feature is in [0, 1]. Each calibrator artefact lists the features its model reads, by name
 * (training/calibration reads them from evaluation reports); a feature added later is one an older
 * artefact does not read.
 */

export const FEATURE_NAMES = [
  /** The answer stage's own confidence, before calibration. */
  "raw",
  "refrained",
  "uncertain",
  "emptyResult",
  /** Some round's answer was accepted by the critic. */
  "criticAccepted",
  /** Rounds beyond the first (0, 0.5, 1 for three rounds). */
  "extraRounds",
  /** Share of rounds that gave the final answer's text. */
  "roundAgreement",
  /** The question names something (an entity mention). */
  "hasEntities",
  /** Share of the question's mentions linked into a source. */
  "linkedShare",
  /** The weakest best link among linked mentions (1 = exact). */
  "linkStrength",
  /** The answer is a committed query's result (a table, list or figure). */
  "queryResult",
  /** That query's share of the question's words it accounts for. */
  "coverage",
  /** Named values the query could not use (0, 0.5, 1 for two or more). */
  "valuesMissed",
  /** A single value was asked (an aggregate or a superlative without "per"), but several rows came back. */
  "shapeMismatch",
  /** log10(1 + rows) / 3, capped at 1. */
  "rows",
  /** The best candidate value's score and its margin over the next. */
  "topScore",
  "margin",
  "kindSql",
  "kindDocuments",
  "kindGraph",
  /** An analyst's guide answered. */
  "guide",
  /** The relevance (0–1) of the answer's first cited piece: the cross-encoder's, else the embedder's similarity; 0 when neither scored it. */
  "citedRelevance",
  /**
   * How far the cited piece's document stands above every other document by that relevance: the cited
   * piece's minus the best piece's from another document (0 when none, or when it stands below). Many
   * alike documents (a year's reports of many companies) make the right one hard to tell apart.
   */
  "documentMargin",
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];
export type Features = Record<FeatureName, number>;

export interface FeatureInput {
  intent: Intent | null;
  answer: Answer;
  iterations: Iteration[];
  candidates: Candidate[];
  queries: ExecutedQuery[];
  winner: { kbId: string } | null;
  /** The evidence the answer cites from: its first cited piece tells what kind of source the answer came from. */
  evidence: ScoredEvidence[];
}

function firstCited(input: FeatureInput): ScoredEvidence | undefined {
  return input.answer.citations.map((id) => input.evidence.find((e) => e.piece.id === id)).find((e) => e !== undefined);
}

/** The kind of source the answer was drawn from: its first cited piece's, else the winning source's. */
function answeringKind(input: FeatureInput, first: ScoredEvidence | undefined): "sql" | "documents" | "graph" | null {
  const language = first?.piece.provenance.language;
  if (language === "search") return "documents";
  if (language === "sql") return "sql";
  if (language === "sparql" || language === "cypher") return "graph";
  const kind = input.candidates.find((c) => c.kbId === input.winner?.kbId)?.kind ?? null;
  return kind === "SQL" ? "sql" : kind === "DOCUMENTS" ? "documents" : kind === "SPARQL" || kind === "CYPHER" ? "graph" : null;
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/**
 * A piece's relevance on a scale comparable across questions (the pool's own score is fused with ranks):
 * the cross-encoder's probability where one is installed, else the last round's semantic similarity
 * (the embedder's cosine between question and piece).
 */
const relevanceOf = (e: ScoredEvidence): number | null => e.scores["cross-encoder"] ?? e.scores["combined-dense:dense"] ?? null;

/** The document a piece is from (a passage's or a table row's), else its source object: what "which report" tells apart. */
function documentOf(e: ScoredEvidence): string {
  const { provenance, data } = e.piece;
  const doc = provenance.location.document ?? (data as { documentId?: string }).documentId ?? provenance.sourceObject ?? "";
  return `${provenance.kb}/${String(doc)}`;
}

/** The cited piece's relevance, and its margin over the best piece of any other document. */
function citedStanding(input: FeatureInput, cited: ScoredEvidence | undefined): { relevance: number; margin: number } {
  const relevance = cited ? relevanceOf(cited) : null;
  if (!cited || relevance === null) return { relevance: 0, margin: 0 };
  const own = documentOf(cited);
  const others = input.evidence
    .filter((e) => documentOf(e) !== own)
    .map(relevanceOf)
    .filter((r): r is number => r !== null);
  return { relevance: clamp01(relevance), margin: clamp01(relevance - (others.length ? Math.max(...others) : 0)) };
}

/** The committed answer query behind the answer's shape (the shape names its query text). */
function answerQuery(input: FeatureInput): ExecutedQuery | null {
  const text = input.answer.shape?.source.query;
  if (text) return input.queries.find((q) => q.query.text === text) ?? null;
  return input.queries.find((q) => q.role === "answer" && q.kbId === input.winner?.kbId) ?? null;
}

export function runFeatures(input: FeatureInput): Features {
  const { intent, answer, iterations } = input;
  const entities = intent?.entities ?? [];
  const linked = entities.filter((e) => e.links.length > 0);
  const shape = answer.shape;
  const q = answerQuery(input);
  const asksOne =
    !!intent && (intent.aggregate !== null || intent.superlative !== null) && !(intent.constructs?.grouping ?? null) && !!shape;
  const cands = answer.candidates;
  // The first cited piece tells both the answer's kind of source and its standing among the documents.
  const cited = firstCited(input);
  const kind = answeringKind(input, cited);
  const finalText = answer.text;
  const standing = citedStanding(input, cited);
  return {
    raw: clamp01(answer.confidence),
    refrained: answer.refrained ? 1 : 0,
    uncertain: answer.certainty === "uncertain" ? 1 : 0,
    emptyResult: answer.emptyResult ? 1 : 0,
    criticAccepted: iterations.some((i) => i.accepted) ? 1 : 0,
    extraRounds: clamp01((iterations.length - 1) / 2),
    roundAgreement: iterations.length ? iterations.filter((i) => i.answer === finalText).length / iterations.length : 0,
    hasEntities: entities.length > 0 ? 1 : 0,
    linkedShare: entities.length ? linked.length / entities.length : 0,
    linkStrength: linked.length ? clamp01(Math.min(...linked.map((e) => Math.max(...e.links.map((l) => l.score))))) : 0,
    queryResult: shape ? 1 : 0,
    coverage: clamp01(q?.fit?.coverage ?? 0),
    valuesMissed: clamp01((q?.fit?.valuesMissed.length ?? 0) / 2),
    shapeMismatch: asksOne && shape!.rows.length > 1 ? 1 : 0,
    rows: clamp01(Math.log10(1 + (shape?.total ?? shape?.rows.length ?? 0)) / 3),
    topScore: clamp01(cands[0]?.score ?? 0),
    margin: clamp01((cands[0]?.score ?? 0) - (cands[1]?.score ?? 0)),
    kindSql: kind === "sql" ? 1 : 0,
    kindDocuments: kind === "documents" ? 1 : 0,
    kindGraph: kind === "graph" ? 1 : 0,
    guide: shape?.source.guide ? 1 : 0,
    citedRelevance: standing.relevance,
    documentMargin: standing.margin,
  };
}
