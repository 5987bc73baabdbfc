/**
 * Document retrieval metrics with BEIR's definitions (Thakur et al. 2021, computed there by
 * pytrec_eval with binary relevance): given the 1-based ranks at which each relevant document was
 * retrieved (null = not retrieved) and how many documents are relevant,
 * - Hit@k: 1 when any relevant document is in the top k;
 * - MRR@k: 1 / rank of the first relevant document within the top k, else 0;
 * - NDCG@k: Σ 1/log2(rank+1) over relevant documents in the top k, over the ideal Σ_{i=1..min(R,k)} 1/log2(i+1);
 * - Recall@k: relevant documents in the top k / R.
 */

function inTop(ranks: (number | null)[], k: number): number[] {
  return ranks.filter((r): r is number => r !== null && r >= 1 && r <= k);
}

export function hitAtK(ranks: (number | null)[], k: number): number {
  return inTop(ranks, k).length > 0 ? 1 : 0;
}

export function mrrAtK(ranks: (number | null)[], k: number): number {
  const top = inTop(ranks, k);
  return top.length ? 1 / Math.min(...top) : 0;
}

export function ndcgAtK(ranks: (number | null)[], k: number, relevant = ranks.length): number {
  if (relevant <= 0) return 0;
  const dcg = inTop(ranks, k).reduce((s, r) => s + 1 / Math.log2(r + 1), 0);
  let idcg = 0;
  for (let i = 1; i <= Math.min(relevant, k); i++) idcg += 1 / Math.log2(i + 1);
  return dcg / idcg;
}

export function recallAtK(ranks: (number | null)[], k: number, relevant = ranks.length): number {
  if (relevant <= 0) return 0;
  return inTop(ranks, k).length / relevant;
}

/**
 * A ranked list of evidence pieces as a ranked list of documents: a document takes the rank of its
 * best piece (BEIR's MaxP for passage-level retrieval), each document once.
 */
export function documentRanking(documentIds: (string | null | undefined)[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const d of documentIds) {
    if (!d || seen.has(d)) continue;
    seen.add(d);
    out.push(d);
  }
  return out;
}

/** 1-based rank of each relevant document in a document ranking. */
export function relevantRanks(ranking: string[], relevant: string[]): (number | null)[] {
  const pos = new Map(ranking.map((d, i) => [d, i + 1]));
  return relevant.map((d) => pos.get(d) ?? null);
}

/**
 * A cascade (pool → re-rank 100 → re-rank 30) as one ranking deep enough for Recall@100: what the last
 * round kept in its order, then what each earlier round had dropped, in that round's order.
 */
export function cascadeRanking<T>(rounds: T[][], key: (item: T) => string): T[] {
  const out: T[] = [];
  const seen = new Set<string>();
  for (let i = rounds.length - 1; i >= 0; i--) {
    for (const item of rounds[i]) {
      const k = key(item);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(item);
    }
  }
  return out;
}

/**
 * The first-stage ranking of several queries' results as one list: each query's results keep their
 * engine's order and the queries take turns (rank 1 of each, then rank 2 of each, …). Engine scores of
 * different queries or knowledge bases are not comparable, so no score decides between them; with one
 * query (the usual case) this is exactly that query's order.
 */
export function interleaveByQuery<T>(items: T[], queryOf: (item: T) => string): T[] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = queryOf(item);
    const list = groups.get(key);
    if (list) list.push(item);
    else groups.set(key, [item]);
  }
  const lists = [...groups.values()];
  const out: T[] = [];
  for (let i = 0; out.length < items.length; i++) for (const list of lists) if (i < list.length) out.push(list[i]);
  return out;
}
