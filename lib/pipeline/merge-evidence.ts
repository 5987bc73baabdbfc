import type { Answer, ScoredEvidence } from "./types";

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
    const key = identityOf(e);
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
      ...(answer.derivation ? { derivation: { ...answer.derivation, operands: answer.derivation.operands.map((o) => ({ ...o, evidenceId: to(o.evidenceId) })) } } : {}),
    },
  };
}

function identityOf(e: ScoredEvidence): string {
  const p = e.piece;
  // The document is part of the identity: two documents may repeat a passage word for word.
  return JSON.stringify([p.provenance.kb, p.provenance.sourceObject, p.provenance.location.document ?? null, p.kind, p.text.replace(/\s+/g, " ").trim()]);
}
