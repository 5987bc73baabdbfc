import type { RowData } from "../../backends/types";
import type { ModelHandles } from "../../models/runtime";
import type { TextEmbeddings } from "../../models/text-embeddings";
import type { Answer, Candidate, ScoredEvidence } from "../contracts";
import { cosine } from "../scorers/dense";
import { UNRELATED_COSINE } from "../stages/select/semantic";
import { joinList } from "../stages/answer/refusal";
import { terms } from "../text";

/**
 * An answer is drawn only from evidence that is about what the question asks (issue 32). A table in a
 * document says what it is about in its caption ("Return window and warranty by product category"); a
 * question about something else ("vacation days") is not answered from its cells, however well their
 * numbers fit. Decided by meaning: the cosine of the question's embedding with the caption of each
 * table the answer cites. When no cited table's caption is closer than what unrelated texts reach
 * (UNRELATED_COSINE, measured on 809 × 838 unrelated pairs), the answer is withheld, saying which
 * sources were tried and what they hold.
 *
 * Only document tables with a caption of some content are judged: a query result ("Query result") is
 * what a query over the question's own linked columns returned, and a caption of one word says too
 * little about a table to rule it out.
 */

/** A caption needs at least this many content words to tell what its table is about. */
const MIN_CAPTION_TERMS = 2;
/** A row's own text is unrelated below this (see above). */
export const UNRELATED_ROW_COSINE = 2 * UNRELATED_COSINE;

export interface TopicVerdict {
  /** The best cosine between the question and a cited table's caption. */
  similarity: number;
  captions: string[];
}

/** The caption of a cited document table: its name and the section it sits in. */
function captionOf(e: ScoredEvidence): string | null {
  const p = e.piece;
  if (p.kind !== "row" || p.provenance.language !== "search" || !("columns" in p.data)) return null;
  const row = p.data as RowData;
  const caption = [row.table, row.section].filter((s): s is string => !!s && s !== "Query result").join(" / ");
  return terms(caption, "en").length >= MIN_CAPTION_TERMS ? caption : null;
}

/**
 * Null when the answer is on topic (or cannot be judged: no embedder, no captioned table cited, or a
 * passage among the citations, whose own text speaks for it); else the best similarity found.
 */
export async function offTopic(
  question: string,
  answer: Answer,
  evidence: ScoredEvidence[],
  models: ModelHandles,
  texts: TextEmbeddings | null,
  signal?: AbortSignal,
): Promise<TopicVerdict | null> {
  if (answer.refrained || answer.emptyResult || !models.embedder || !texts || answer.citations.length === 0) return null;
  const byId = new Map(evidence.map((e) => [e.piece.id, e]));
  const cited = answer.citations.map((id) => byId.get(id)).filter((e): e is ScoredEvidence => !!e);
  if (cited.length === 0 || cited.some((e) => e.piece.kind !== "row" || e.piece.provenance.language !== "search")) return null;
  const captions = cited.map(captionOf);
  const named = [...new Set(captions.filter((c): c is string => c !== null))];
  const [[q], captionVectors, rowVectors] = await Promise.all([
    models.embedder.embed([question], "query", { signal }),
    named.length ? texts.vectors(named, { signal }) : Promise.resolve([]),
    models.embedder.embed(
      cited.map((e) => e.piece.text),
      "passage",
      { signal },
    ),
  ]);
  const captionSimilarity = new Map(named.map((c, i) => [c, cosine(q, captionVectors[i])]));
  const rowSimilarity = rowVectors.map((v) => cosine(q, v));
  const about = cited.some(
    (_, i) =>
      (captions[i] !== null && captionSimilarity.get(captions[i]!)! >= UNRELATED_COSINE) || rowSimilarity[i] >= UNRELATED_ROW_COSINE,
  );
  if (about || named.length === 0) return null;
  return { similarity: Math.max(...captionSimilarity.values()), captions: named };
}

/** The withheld answer: what was tried and what it holds, never a guess from it. */
export function offTopicRefusal(answer: Answer, verdict: TopicVerdict, candidates: Candidate[]): Answer {
  const tried = joinList([...new Set(candidates.map((c) => c.kbName))]);
  const about = joinList(verdict.captions.map((c) => `'${c}'`));
  return {
    text: "Not found in the sources.",
    refrained: true,
    reason: `None of the sources tried${tried ? ` (${tried})` : ""} states this: the closest table found, ${about}, is about something else.`,
    confidence: Math.min(answer.confidence, 0.1),
    citations: [],
    candidates: answer.candidates,
  };
}
