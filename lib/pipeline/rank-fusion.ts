import type { EvidencePiece } from "../backends/types";

/**
 * Reciprocal-rank fusion of a stage's own ranking with the first stage's (what the engines returned).
 *
 * A search engine ranks a collection with corpus-wide statistics (BM25 over the whole collection, the
 * vector index), which a later stage cannot recompute: the pool and the re-ranking rounds see only the
 * retrieved pieces, where the question's own words occur in nearly every piece and so get almost no
 * weight (BM25's idf over a retrieved set). Replacing the engine's order with such a score loses what
 * the engine knew; fusing the two orders keeps it, and a later scorer still moves a piece it is sure of.
 * Ranks, not scores: the stages' scores are on different scales.
 *
 * Pieces from a structured query (SQL rows, triples, paths) have no retrieval ranking (their order is
 * the query's, not relevance), so they count their stage rank twice, "no evidence either way": a ranking
 * of structured pieces only is exactly the stage's own.
 */

/** RRF's rank offset: Cormack, Clarke & Büttcher (2009), the value the document search fuses with too. */
export const RANK_FUSION_K = 60;

const LANGUAGES_RANKED_BY_RELEVANCE: ReadonlySet<string> = new Set(["search"]);

/**
 * How the ranked-search pieces of one run form rankings:
 * - "search" (a question): each search's results are a ranking of their own. A question's searches of
 *   one collection look for different parts of it (one per entity, one without the relation, tables
 *   only), so later stages decide how they interleave.
 * - "collection" (a statement, Intent.statement): a collection's searches are phrasings of one need
 *   (the statement, the critic's rewording of it), so they are fused into one ranking at the rank
 *   level (collectionRankings), as the engine fuses its own lexical and vector rankings.
 */
export type RankingUnit = "search" | "collection";

/** The ranking unit for an intent: a statement's searches of a collection form one ranking. */
export function rankingUnitFor(intent: { statement?: boolean }): RankingUnit {
  return intent.statement ? "collection" : "search";
}

/**
 * The ranking (a search: KB and query; or a whole collection) a ranked-search piece belongs to; null
 * for structured pieces, whose order is no relevance ranking.
 */
export function searchOf(piece: EvidencePiece, unit: RankingUnit = "search"): string | null {
  const { language, kb, query } = piece.provenance;
  if (!LANGUAGES_RANKED_BY_RELEVANCE.has(language)) return null;
  return unit === "collection" ? kb : `${kb}\u0000${query}`;
}

/**
 * Each searched collection's pieces in one ranking: the reciprocal-rank fusion of its searches' orders
 * (each piece scores 1/(k + its place) in every search that returned it), a collection searched once
 * keeping that search's order; equal fused scores keep the order the pieces arrive in. A piece several
 * phrasings rank high comes first, and near-duplicate searches give their common order.
 */
function collectionRankings(pieces: EvidencePiece[]): Map<string, EvidencePiece[]> {
  const placeInSearch = new Map<string, number>();
  const fused = new Map<string, Map<string, { piece: EvidencePiece; score: number; arrival: number }>>();
  pieces.forEach((piece, arrival) => {
    const search = searchOf(piece);
    if (search === null) return;
    const place = (placeInSearch.get(search) ?? 0) + 1;
    placeInSearch.set(search, place);
    const collection = piece.provenance.kb;
    const list = fused.get(collection) ?? new Map<string, { piece: EvidencePiece; score: number; arrival: number }>();
    fused.set(collection, list);
    const entry = list.get(piece.id);
    if (entry) entry.score += 1 / (RANK_FUSION_K + place);
    else list.set(piece.id, { piece, score: 1 / (RANK_FUSION_K + place), arrival });
  });
  return new Map(
    [...fused].map(([collection, list]) => [
      collection,
      [...list.values()].sort((a, b) => b.score - a.score || a.arrival - b.arrival).map((e) => e.piece),
    ]),
  );
}

/**
 * Each ranked-search piece's place in its ranking (1 = first): in the results of the query that found
 * it, its best place where several did; or, by collection, its place in the collection's fused
 * ranking. Structured pieces get none.
 */
export function retrievalRanks(pieces: EvidencePiece[], unit: RankingUnit = "search"): Map<string, number> {
  if (unit === "search") return bestPlaces(placesInSearches(pieces));
  const ranks = new Map<string, number>();
  for (const ranking of collectionRankings(pieces).values()) ranking.forEach((piece, i) => ranks.set(piece.id, i + 1));
  return ranks;
}

/**
 * The pieces with each collection's searched pieces put in its fused ranking, in the places that
 * collection's pieces held (structured pieces and other collections stay where they are), so that a
 * later stage's ties keep the collection's order rather than the first search's.
 */
export function inCollectionOrder(pieces: EvidencePiece[], ranks: Map<string, number>): EvidencePiece[] {
  const slots = new Map<string, number[]>();
  pieces.forEach((piece, i) => {
    const collection = searchOf(piece, "collection");
    if (collection === null || !ranks.has(piece.id)) return;
    const places = slots.get(collection) ?? [];
    places.push(i);
    slots.set(collection, places);
  });
  const out = [...pieces];
  for (const places of slots.values()) {
    const ranked = places.map((i) => pieces[i]).sort((a, b) => (ranks.get(a.id) ?? 0) - (ranks.get(b.id) ?? 0));
    places.forEach((at, k) => {
      out[at] = ranked[k];
    });
  }
  return out;
}

/** Each piece's best place over the searches that returned it. */
function bestPlaces(places: { piece: EvidencePiece; place: number }[]): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const { piece, place } of places) ranks.set(piece.id, Math.min(place, ranks.get(piece.id) ?? Number.POSITIVE_INFINITY));
  return ranks;
}

/** Each ranked-search piece with its search (KB and query) and its place in that search's results (1 = first). */
function placesInSearches(pieces: EvidencePiece[]): { piece: EvidencePiece; search: string; place: number }[] {
  const placeInQuery = new Map<string, number>();
  const out: { piece: EvidencePiece; search: string; place: number }[] = [];
  for (const piece of pieces) {
    const search = searchOf(piece);
    if (search === null) continue;
    const place = (placeInQuery.get(search) ?? 0) + 1;
    placeInQuery.set(search, place);
    out.push({ piece, search, place });
  }
  return out;
}

/**
 * `scores` fitted to each search's own order: within the results of one search, the least-squares
 * closest scores that never put a piece above one the engine ranked higher (isotonic regression, by
 * pooling adjacent violators: a run of pieces out of the engine's order gets its mean score). A stage
 * that scores only the retrieved pieces (BM25 over a handful of passages, where the question's words
 * are in nearly all of them) knows less about one search's results than the engine that ranked them
 * over the whole collection; what it can still judge is how different searches' results, and
 * structured pieces, interleave, and the fit keeps each search's total score for that. A piece several
 * searches found belongs to the list where it ranked best (its retrieval rank). `found` is every copy
 * as the searches returned them, `pieces` the scored ones (`scores` in their order); structured pieces
 * keep their own score.
 */
export function withinSearchOrderScores(
  found: EvidencePiece[],
  pieces: EvidencePiece[],
  scores: number[],
  unit: RankingUnit = "search",
): number[] {
  const index = new Map<string, number>();
  pieces.forEach((p, i) => index.has(p.id) || index.set(p.id, i));
  const lists = new Map<string, number[]>();
  if (unit === "collection") {
    for (const [collection, ranking] of collectionRankings(found))
      lists.set(
        collection,
        ranking.map((p) => index.get(p.id)).filter((i): i is number => i !== undefined),
      );
  } else {
    const places = placesInSearches(found);
    const best = bestPlaces(places);
    const listed = new Set<number>();
    for (const { piece, search, place } of places) {
      const i = index.get(piece.id);
      // A piece equally placed in two searches belongs to the first that returned it.
      if (i === undefined || best.get(piece.id) !== place || listed.has(i)) continue;
      listed.add(i);
      const list = lists.get(search) ?? [];
      list.push(i);
      lists.set(search, list);
    }
  }
  const out = [...scores];
  for (const list of lists.values()) {
    const blocks: { sum: number; size: number }[] = [];
    for (const i of list) {
      blocks.push({ sum: Number.isFinite(scores[i]) ? scores[i] : 0, size: 1 });
      while (blocks.length > 1) {
        const [above, below] = blocks.slice(-2);
        if (above.sum / above.size >= below.sum / below.size) break;
        blocks.splice(-2, 2, { sum: above.sum + below.sum, size: above.size + below.size });
      }
    }
    let j = 0;
    for (const { sum, size } of blocks) for (let k = 0; k < size; k++) out[list[j++]] = sum / size;
  }
  return out;
}

/** 1-based ranks of `scores`, higher first; equal scores share the order they arrive in. */
function ranksOf(scores: number[]): number[] {
  const order = scores.map((s, i) => ({ s: Number.isFinite(s) ? s : Number.NEGATIVE_INFINITY, i })).sort((a, b) => b.s - a.s);
  const ranks = new Array<number>(scores.length);
  order.forEach(({ i }, r) => {
    ranks[i] = r + 1;
  });
  return ranks;
}

/**
 * Indices of the items in fused order, best first: 1/(k + stage rank) + 1/(k + retrieval rank), the
 * retrieval rank replaced by the stage rank where there is none. A tie goes to the stage's own order
 * (the later, better-informed judgement), and equal stage scores keep the order the items arrive in.
 */
export function fusedOrder(stageScores: number[], retrieval: (number | undefined)[]): number[] {
  const stage = ranksOf(stageScores);
  const fused = stage.map((r, i) => 1 / (RANK_FUSION_K + r) + 1 / (RANK_FUSION_K + (retrieval[i] ?? r)));
  return fused
    .map((f, i) => ({ f, i }))
    .sort((a, b) => b.f - a.f || stage[a.i] - stage[b.i])
    .map((x) => x.i);
}

/**
 * `values` rearranged so that within each search's results they follow the order the pieces arrive in:
 * the k-th piece of a search (in `pieces`' order) gets the k-th highest of that search's values.
 * Re-ranking uses it for a search about which its scorer has no new evidence (everything it scored
 * there repeats what the engine ranked by: BM25 over the few retrieved pieces, the same sentence
 * vectors): recomputed over the retrieved pieces only, such a score knows less than the engine did over
 * the whole collection, so it must not reorder the search's results. It keeps its spread, so how
 * searches and structured pieces interleave still follows it (unlike withinSearchOrderScores, the
 * pool's fit, which averages violators into ties). A piece belongs to the search it came from (its
 * provenance); structured pieces keep their values.
 */
export function inSearchOrder(pieces: EvidencePiece[], values: number[], unit: RankingUnit = "search"): number[] {
  const lists = new Map<string, number[]>();
  pieces.forEach((piece, i) => {
    const search = searchOf(piece, unit);
    if (search === null) return;
    const list = lists.get(search) ?? [];
    list.push(i);
    lists.set(search, list);
  });
  const out = [...values];
  for (const list of lists.values()) {
    const sorted = list.map((i) => (Number.isFinite(values[i]) ? values[i] : 0)).sort((a, b) => b - a);
    list.forEach((i, k) => {
      out[i] = sorted[k];
    });
  }
  return out;
}
