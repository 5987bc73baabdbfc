import type { EvidencePiece } from "../../backends/types";
import { knownVector, rememberVector } from "../../models/known-vectors";
import type { Embedder } from "../../models/types";
import type { EvidenceScorer, Intent } from "../contracts";
import type { CompositeScorer } from "./types";
import { ENTITY_MENTION_BOOST, bm25EntityScorer, lexicalCoverage, mentionMatches } from "./lexical";

/**
 * Semantic similarity between the question and each piece: the cosine of their sentence embeddings.
 * A passage found by a hybrid search brings its stored vector along (models/known-vectors.ts); other
 * pieces (rows, triples, paths) are embedded here, the best-placed first, at most `EMBED_BUDGET` per
 * round, and keep their vector for later rounds. A piece left without a vector scores NaN ("no
 * semantic evidence"), which composite scorers replace with the piece's lexical score.
 */

/**
 * Pieces a round embeds itself, the best-placed first: about as many as the last round keeps, so the
 * pieces that can reach the answer are compared by meaning, while a round's cost stays one or two model
 * batches of short texts (rows, triples). Pieces further down keep their lexical score.
 */
export const EMBED_BUDGET = 32;

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

// The question's vector, once per intent object (a run's rounds share it).
const questionVectors = new WeakMap<Intent, { model: string; vector: Promise<Float32Array> }>();

export function questionVector(embedder: Embedder, intent: Intent, signal?: AbortSignal): Promise<Float32Array> {
  const known = questionVectors.get(intent);
  if (known && known.model === embedder.info.id) return known.vector;
  const vector = embedder.embed([intent.completed || intent.question], "query", { signal }).then(([v]) => v);
  vector.catch(() => questionVectors.delete(intent));
  questionVectors.set(intent, { model: embedder.info.id, vector });
  return vector;
}

// Pieces a scorer embedded itself: their similarity is evidence no search ranked by (see vectorFromSearch).
const embeddedByScorer = new WeakSet<EvidencePiece>();

/**
 * Whether the piece's vector came with it from a hybrid search: the engine already ranked the piece by
 * this very similarity (the same model's vector), so a scorer's cosine repeats the engine's judgement
 * rather than adding to it. A vector the scorer computed itself (a row, a triple, a passage from a
 * lexical-only search) is new evidence.
 */
export function vectorFromSearch(piece: EvidencePiece, model: string): boolean {
  return knownVector(piece, model) !== null && !embeddedByScorer.has(piece);
}

/** Cosine of each piece with the question; NaN for pieces left without a vector. Throws when the model fails. */
export async function denseSimilarities(
  embedder: Embedder,
  intent: Intent,
  pieces: EvidencePiece[],
  signal?: AbortSignal,
): Promise<number[]> {
  const model = embedder.info.id;
  const q = questionVector(embedder, intent, signal);
  const missing = pieces.filter((p) => !knownVector(p, model)).slice(0, EMBED_BUDGET);
  if (missing.length) {
    const vectors = await embedder.embed(
      missing.map((p) => p.text),
      "passage",
      { signal },
    );
    missing.forEach((p, i) => {
      rememberVector(p, { model, vector: vectors[i] });
      embeddedByScorer.add(p);
    });
  }
  const question = await q;
  return pieces.map((p) => {
    const v = knownVector(p, model);
    return v ? cosine(question, v) : Number.NaN;
  });
}

/** Per piece, whether its similarity repeats what its search ranked by (vectorFromSearch), read before the scorer embeds anything. */
function searchedBySimilarity(embedder: Embedder, pieces: EvidencePiece[]): boolean[] {
  return pieces.map((p) => vectorFromSearch(p, embedder.info.id));
}

export function denseScorer(embedder: Embedder): CompositeScorer {
  return {
    name: "dense",
    async scoreParts(intent, pieces, signal) {
      const searched = searchedBySimilarity(embedder, pieces);
      const total = (await denseSimilarities(embedder, intent, pieces, signal)).map((s) => (Number.isFinite(s) ? Math.max(0, s) : 0));
      return { total, parts: {}, repeated: total.map((s, i) => (searched[i] ? s : 0)) };
    },
    async score(intent, pieces, signal) {
      return (await this.scoreParts(intent, pieces, signal)).total;
    },
  };
}

/**
 * Scales the finite values to 0..1 over the pieces being ranked (the lowest 0, the highest 1); NaN stays
 * NaN, and values that are all equal tell the pieces nothing apart (all 0).
 */
export function minMaxScale(values: number[]): number[] {
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return values.map(() => Number.NaN);
  const lo = Math.min(...finite);
  const span = Math.max(...finite) - lo;
  return values.map((v) => (Number.isFinite(v) ? (span > 0 ? (v - lo) / span : 0) : Number.NaN));
}

/**
 * Half lexical, half semantic, each scaled over the pieces being ranked first: BM25 coverage spreads
 * over 0..1 and beyond while sentence cosines bunch within a few tenths, so equal weights on raw scores
 * let the lexical half decide alone. A piece without a vector counts its lexical score twice (no
 * evidence either way).
 */
export function blendWithDense(lexical: number[], dense: number[], denseWeight = 0.5): number[] {
  const l = minMaxScale(lexical).map((v) => (Number.isFinite(v) ? v : 0));
  const d = minMaxScale(dense);
  return l.map((lv, i) => (1 - denseWeight) * lv + denseWeight * (Number.isFinite(d[i]) ? d[i] : lv));
}

/**
 * The first round (1000 → 100) with a sentence embedder: bm25-entity and the cosine with the question,
 * equally weighted, so a passage that says the same thing in other words survives the cut. Its
 * fallback is bm25-entity alone (a model that fails degrades the round, not the run).
 */
export function hybridEntityScorer(embedder: Embedder): CompositeScorer & { fallback: EvidenceScorer } {
  return {
    name: "hybrid-entity",
    fallback: bm25EntityScorer,
    async scoreParts(intent, pieces, signal) {
      const searched = searchedBySimilarity(embedder, pieces);
      const coverage = lexicalCoverage(intent, pieces);
      const { found, byWord } = mentionMatches(intent, pieces);
      const dense = await denseSimilarities(embedder, intent, pieces, signal);
      const total = blendWithDense(
        coverage.map((c, i) => c + ENTITY_MENTION_BOOST * found[i]),
        dense,
      );
      // What the search engine ranked by: the lexical half (words, names that are one word of the question), and the semantic half where the search had the vector.
      const lexical = minMaxScale(coverage.map((c, i) => c + ENTITY_MENTION_BOOST * byWord[i])).map((v) => (Number.isFinite(v) ? v : 0));
      const semantic = minMaxScale(dense);
      const repeated = lexical.map((l, i) => 0.5 * l + 0.5 * (Number.isFinite(semantic[i]) ? (searched[i] ? semantic[i] : 0) : l));
      return { total, parts: {}, repeated };
    },
    async score(intent, pieces, signal) {
      return (await this.scoreParts(intent, pieces, signal)).total;
    },
  };
}
