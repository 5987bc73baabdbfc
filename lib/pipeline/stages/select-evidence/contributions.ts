import type { EvidencePiece } from "../../../backends/types";
import type { Candidate, ExecutedQuery, ScoredEvidence } from "../../contracts";

/** What each candidate KB contributed to the ranked evidence (OmniRetrieval's cross-source view). */
export interface KbContribution {
  kbId: string;
  kbName: string;
  /** Its pieces among the ranked evidence, best first. */
  pieces: ScoredEvidence[];
  best: number;
  /** Its pieces among the top TOP_WINDOW. */
  inTop: number;
  holdsBest: boolean;
  /** Executed queries that returned rows, of those run on the KB. */
  queriesOk: number;
  queriesRun: number;
  selectionScore: number;
  score: number;
}

/** The window in which "how many of the top pieces" is counted: what the answer stage reads most. */
export const TOP_WINDOW = 5;

/**
 * The best piece's score (relative to the best overall) weighs most: one decisive piece (a COUNT row,
 * the sentence that states the fact) answers a question. How many of the top pieces a KB holds comes
 * next: agreement of several pieces is what separates a source that answers from one that mentions.
 * Query success and the selection score are tie-breakers: a KB whose queries all failed or came back
 * empty, or that selection ranked low, should not win on a stray piece.
 */
export const CONTRIBUTION_WEIGHTS = { best: 0.45, top: 0.35, queries: 0.1, selection: 0.1 } as const;

export function kbContributions(ranked: ScoredEvidence[], candidates: Candidate[], executed: ExecutedQuery[]): KbContribution[] {
  const window = Math.min(TOP_WINDOW, ranked.length);
  const globalBest = ranked.reduce((m, e) => Math.max(m, e.score), 0);
  const bestId = ranked.reduce<ScoredEvidence | null>((b, e) => (!b || e.score > b.score ? e : b), null)?.piece.id;
  const kbs = new Map<string, KbContribution>();
  const entry = (kbId: string, kbName: string) => {
    let c = kbs.get(kbId);
    if (!c) {
      c = { kbId, kbName, pieces: [], best: 0, inTop: 0, holdsBest: false, queriesOk: 0, queriesRun: 0, selectionScore: 0, score: 0 };
      kbs.set(kbId, c);
    }
    return c;
  };
  for (const c of candidates) entry(c.kbId, c.kbName).selectionScore = c.score;
  ranked.forEach((e, rank) => {
    const c = entry(e.piece.provenance.kb, e.piece.provenance.kbName);
    c.pieces.push(e);
    c.best = Math.max(c.best, e.score);
    if (rank < window) c.inTop++;
    if (e.piece.id === bestId) c.holdsBest = true;
  });
  for (const q of executed) {
    const c = entry(q.kbId, q.kbName);
    c.queriesRun++;
    if (q.status === "ok" && q.rows > 0) c.queriesOk++;
  }
  for (const c of kbs.values()) {
    c.score =
      CONTRIBUTION_WEIGHTS.best * (globalBest > 0 ? c.best / globalBest : 0) +
      CONTRIBUTION_WEIGHTS.top * (window ? c.inTop / window : 0) +
      CONTRIBUTION_WEIGHTS.queries * (c.queriesRun ? c.queriesOk / c.queriesRun : 0) +
      CONTRIBUTION_WEIGHTS.selection * Math.min(1, Math.max(0, c.selectionScore));
  }
  return [...kbs.values()].sort((a, b) => b.score - a.score || b.best - a.best);
}

const AGGREGATE = /\b(count|sum|avg|min|max|total)\s*\(/i;

/** What kind of evidence a piece is, in words: "SQL aggregate", "document passages", "graph paths". */
export function evidenceKindLabel(piece: EvidencePiece): string {
  const lang = piece.provenance.language;
  if (piece.kind === "passage") return "document passages";
  if (piece.kind === "triple") return "RDF facts";
  if (piece.kind === "path") return "graph paths";
  if (lang === "search") return "document table rows";
  const engine = { sql: "SQL", sparql: "SPARQL", cypher: "Cypher" }[lang];
  return AGGREGATE.test(piece.provenance.query) ? `${engine} aggregate` : `${engine} rows`;
}

/**
 * What kind of evidence a piece is, for the person who asked: "records in its database", "a count or
 * total over its records", "passages of its documents". No query languages or engine names.
 */
export function plainEvidenceKind(piece: EvidencePiece): string {
  const lang = piece.provenance.language;
  if (piece.kind === "passage") return "passages of its documents";
  if (piece.kind === "triple") return "facts in its graph";
  if (piece.kind === "path") return "connections in its graph";
  if (lang === "search") return "tables in its documents";
  const where = lang === "sql" ? "database" : "graph";
  return AGGREGATE.test(piece.provenance.query) ? `a count or total over its ${where}` : `records in its ${where}`;
}
