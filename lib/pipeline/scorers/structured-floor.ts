import type { EvidencePiece } from "../../backends/types";

/**
 * Structured answers cannot be judged by word overlap. "How many suppliers are there?" answered by
 * `SELECT count(*) FROM supplier` gives one piece, "count(*): 6", that shares no word with the question;
 * a Cypher path between the two linked actors shares only their names. Such pieces come from a query
 * that was formulated for this question and returned little, which is itself evidence of relevance, so
 * they get a floor score (the middle of the lexical ranking) instead of being cut for having no terms.
 * A query that returned many rows (a neighbourhood dump, a whole table) earns no floor: its pieces
 * must compete lexically.
 */
export const STRUCTURED_LANGUAGES: ReadonlySet<string> = new Set(["sql", "sparql", "cypher"]);

/** At most this many pieces from one structured query make it a targeted answer rather than a listing. */
export const FEW_RESULTS = 20;

/** The key under which pool and rerank record the floor a piece received. */
export const FLOOR_SCORE_KEY = "structured-floor";

/** With no positive score in the list, any positive floor puts the structured pieces first. */
const FLOOR_WHEN_NOTHING_MATCHES = 0.01;

/** Ids of the pieces that came from a structured query with at most FEW_RESULTS pieces. */
export function structuredFewResultIds(pieces: EvidencePiece[]): Set<string> {
  const byQuery = new Map<string, Set<string>>();
  for (const p of pieces) {
    if (!STRUCTURED_LANGUAGES.has(p.provenance.language)) continue;
    const key = `${p.provenance.kb}\u0000${p.provenance.query}`;
    const ids = byQuery.get(key) ?? new Set<string>();
    ids.add(p.id);
    byQuery.set(key, ids);
  }
  const out = new Set<string>();
  for (const ids of byQuery.values()) if (ids.size <= FEW_RESULTS) for (const id of ids) out.add(id);
  return out;
}

/** The median of the positive scores: a floored piece ranks with the better half of the lexical matches. */
export function floorScore(scores: number[]): number {
  const positive = scores.filter((s) => s > 0).sort((a, b) => a - b);
  if (!positive.length) return FLOOR_WHEN_NOTHING_MATCHES;
  return positive[Math.floor((positive.length - 1) / 2)];
}
