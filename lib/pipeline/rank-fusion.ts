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
 * The collection (KB) a ranked-search piece came from; null for structured pieces, whose order is no
 * relevance ranking. Its searches in one run form one ranking (collectionRankings), so this is the
 * unit whose order later stages keep or change.
 */
export function collectionOf(piece: EvidencePiece): string | null {
  return LANGUAGES_RANKED_BY_RELEVANCE.has(piece.provenance.language) ? piece.provenance.kb : null;
}

/**
 * Each searched collection's pieces in one ranking: the reciprocal-rank fusion of its searches'
 * orders (each piece scores 1/(k + its place) in every search that returned it), a collection searched
 * once keeping that search's order. Searches of one collection in one run are phrasings of one need
 * (the question's words in another order, without the relation, per entity), so they are fused at the
 * rank level, as the engine fuses its own lexical and vector rankings, rather than interleaved by a
 * later stage's score: a piece several phrasings rank high comes first, and near-duplicate searches
 * give their common order. Equal fused scores keep the order the pieces arrive in.
 */
export function collectionRankings(pieces: EvidencePiece[]): Map<string, EvidencePiece[]> {
  const placeInSearch = new Map<string, number>();
  const fused = new Map<string, Map<string, { piece: EvidencePiece; score: number; arrival: number }>>();
  pieces.forEach((piece, arrival) => {
    const collection = collectionOf(piece);
    if (collection === null) return;
    const search = `${collection}\u0000${piece.provenance.query}`;
    const place = (placeInSearch.get(search) ?? 0) + 1;
    placeInSearch.set(search, place);
    const list = fused.get(collection) ?? new Map<string, { piece: EvidencePiece; score: number; arrival: number }>();
    fused.set(collection, list);
    const entry = list.get(piece.id);
    if (entry) entry.score += 1 / (RANK_FUSION_K + place);
    else list.set(piece.id, { piece, score: 1 / (RANK_FUSION_K + place), arrival });
  });
  return new Map([...fused].map(([collection, list]) => [collection, [...list.values()].sort((a, b) => b.score - a.score || a.arrival - b.arrival).map((e) => e.piece)]));
}

/** Each ranked-search piece's place in its collection's ranking (collectionRankings; 1 = first). Structured pieces get none. */
export function retrievalRanks(pieces: EvidencePiece[]): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const ranking of collectionRankings(pieces).values()) ranking.forEach((piece, i) => ranks.set(piece.id, i + 1));
  return ranks;
}

/**
 * `scores` fitted to each collection's ranking (collectionRankings): within one collection's results,
 * the least-squares closest scores that never put a piece above one the searches ranked higher
 * (isotonic regression, by pooling adjacent violators: a run of pieces out of that order gets its mean
 * score). A stage that scores only the retrieved pieces (BM25 over a handful of passages, where the
 * question's words are in nearly all of them) knows less about one collection's results than the
 * engine that ranked them over the whole collection; what it can still judge is how different
 * collections' results, and structured pieces, interleave, and the fit keeps each collection's total
 * score for that. `found` is every copy as the searches returned them, `pieces` the scored ones
 * (`scores` in their order); structured pieces keep their own score.
 */
export function withinSearchOrderScores(found: EvidencePiece[], pieces: EvidencePiece[], scores: number[]): number[] {
  const index = new Map<string, number>();
  pieces.forEach((p, i) => index.has(p.id) || index.set(p.id, i));
  const out = [...scores];
  for (const ranking of collectionRankings(found).values()) {
    const list = ranking.map((p) => index.get(p.id)).filter((i): i is number => i !== undefined);
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
 * `values` rearranged so that within each collection's search results they follow the order the pieces
 * arrive in: the k-th piece of a collection (in `pieces`' order) gets the k-th highest of that
 * collection's values. Re-ranking uses it for a collection about which its scorer has no new evidence
 * (everything it scored there repeats what the engine ranked by: BM25 over the few retrieved pieces,
 * the same sentence vectors): recomputed over the retrieved pieces only, such a score knows less than
 * the engine did over the whole collection, so it must not reorder that collection's results. It keeps
 * its spread, so how collections and structured pieces interleave still follows it (unlike
 * withinSearchOrderScores, the pool's fit, which averages violators into ties). A piece belongs to the
 * collection it came from (collectionOf); structured pieces keep their values.
 */
export function inSearchOrder(pieces: EvidencePiece[], values: number[]): number[] {
  const lists = new Map<string, number[]>();
  pieces.forEach((piece, i) => {
    const collection = collectionOf(piece);
    if (collection === null) return;
    const list = lists.get(collection) ?? [];
    list.push(i);
    lists.set(collection, list);
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
