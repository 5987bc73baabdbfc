import type { EvidencePiece } from "../backends/types";
import type { Answer, ScoredEvidence } from "./contracts";

/**
 * Every query of the round that returned a kept piece of evidence, listed on it. A row that the pipeline's
 * own query and an analyst's saved query both returned is kept once by the pool or the evidence selection,
 * which drop the other copy; the panel still names both queries. Copies are matched as in
 * `mergeIdenticalEvidence` (same place, or same source and content); the evidence itself is not changed.
 */
export function withEveryQuery(evidence: ScoredEvidence[], retrieved: EvidencePiece[]): ScoredEvidence[] {
  const queriesOf = new Map<string, string[]>();
  const add = (key: string, queries: string[]) => {
    const known = queriesOf.get(key) ?? [];
    queriesOf.set(key, [...known, ...queries.filter((q) => !known.includes(q))]);
  };
  for (const p of retrieved) {
    const queries = [p.provenance.query, ...(p.provenance.alsoQueries ?? [])];
    add(p.id, queries);
    add(identityOf(p), queries);
  }
  return evidence.map((e) => {
    const own = [e.piece.provenance.query, ...(e.piece.provenance.alsoQueries ?? [])];
    const others = [...(queriesOf.get(e.piece.id) ?? []), ...(queriesOf.get(identityOf(e.piece)) ?? [])].filter(
      (q, i, all) => !own.includes(q) && all.indexOf(q) === i,
    );
    if (!others.length) return e;
    return { ...e, piece: { ...e.piece, provenance: { ...e.piece.provenance, alsoQueries: [...own.slice(1), ...others] } } };
  });
}

/**
 * Identical evidence cited once. Two queries of a run can return the same row (a filtered count and a
 * grouped count both say "returned: 7"); shown as [1] and [2] it looks like two sources agreeing.
 * Evidence is identical when it comes from the same knowledge base and source object (and document),
 * is of the same kind and says the same thing; the best-ranked copy is kept, lists the other copies' queries, and takes over their
 * citations and derivation operands. Runs after the answer: the answer weighs every copy as it did.
 */
export function mergeIdenticalEvidence(evidence: ScoredEvidence[], answer: Answer): { evidence: ScoredEvidence[]; answer: Answer } {
  const keeperOf = new Map<string, ScoredEvidence>();
  const replaced = new Map<string, string>();
  const kept: ScoredEvidence[] = [];
  for (const e of evidence) {
    const key = identityOf(e.piece);
    const keeper = keeperOf.get(key);
    if (!keeper) {
      const copy = { ...e, piece: { ...e.piece, provenance: { ...e.piece.provenance } } };
      keeperOf.set(key, copy);
      kept.push(copy);
      continue;
    }
    replaced.set(e.piece.id, keeper.piece.id);
    const p = keeper.piece.provenance;
    const queries = [e.piece.provenance.query, ...(e.piece.provenance.alsoQueries ?? [])];
    for (const q of queries) if (q !== p.query && !(p.alsoQueries ?? []).includes(q)) p.alsoQueries = [...(p.alsoQueries ?? []), q];
  }
  if (replaced.size === 0) return { evidence, answer };
  const to = (id: string) => replaced.get(id) ?? id;
  return {
    evidence: kept,
    answer: {
      ...answer,
      citations: [...new Set(answer.citations.map(to))],
      ...(answer.derivation
        ? {
            derivation: { ...answer.derivation, operands: answer.derivation.operands.map((o) => ({ ...o, evidenceId: to(o.evidenceId) })) },
          }
        : {}),
    },
  };
}

function identityOf(p: EvidencePiece): string {
  // The document is part of the identity: two documents may repeat a passage word for word.
  return JSON.stringify([
    p.provenance.kb,
    p.provenance.sourceObject,
    p.provenance.location.document ?? null,
    p.kind,
    p.text.replace(/\s+/g, " ").trim(),
  ]);
}
