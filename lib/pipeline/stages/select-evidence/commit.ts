import { type EvidencePiece, type RowData, type Scalar, provenanceParams } from "../../../backends/types";
import type { Candidate, ExecutedQuery, QueryResult } from "../../contracts";
import { count } from "../../../format/count";
import { emptyResultOf } from "../answer/empty-result";

/**
 * Answer assembly's source commitment. A structured source (SQL, SPARQL, Cypher) answers through its
 * answer query: the one query that renders the whole question. The run commits to the best-ranked
 * candidate whose answer query faithfully represents the question and returned rows, and moves to a
 * lower-ranked source only when that source's answer is clearly stronger: it uses a named value of the
 * question that the committed one had to leave out. A lower-ranked table that merely produced a
 * plausible value does not take the answer over. The reason is kept for the trace.
 */

export interface Commitment {
  kbId: string;
  kbName: string;
  /** The committed answer query (its result is the answer), or null when no answer query ran. */
  query: ExecutedQuery;
  /** Why this source, in words. */
  reason: string;
}

const STRUCTURED = new Set(["SQL", "SPARQL", "CYPHER"]);

/** A source's answer query: its schema-linked one (a matching guide's is committed before, by guideCommitment). */
function answerQueryOf(executed: ExecutedQuery[], kbId: string): ExecutedQuery | null {
  return executed.find((q) => q.kbId === kbId && q.role === "answer" && q.strategy !== "guide") ?? null;
}

/** The words the answer card and the trace use for a guide's answer. */
export function answeredWithGuide(question: string): string {
  return `Answered with the analyst's guide '${question}'`;
}

/**
 * A matching guide wins: the analyst's query for this question (formulate/guide.ts marks it the answer
 * query only when the guide matches) is committed whenever it ran and returned rows, on the
 * best-ranked source that has one. A guide query that failed or found nothing falls back to the
 * generated answer queries; the trace says why.
 */
function guideCommitment(candidates: Candidate[], executed: ExecutedQuery[]): Commitment | null {
  for (const c of candidates.filter((x) => STRUCTURED.has(x.kind))) {
    const q = executed.find((x) => x.kbId === c.kbId && x.role === "answer" && x.strategy === "guide" && productive(x));
    if (q) return { kbId: c.kbId, kbName: c.kbName, query: q, reason: `${answeredWithGuide(q.guideQuestion ?? "")} on ${c.kbName}` };
  }
  return null;
}

/**
 * Below this share of the question's content words, a query is about something else: the source knows
 * too little of the question for its result to be the answer (coverage.ts).
 */
export const MIN_COVERAGE = 0.5;
/** Another source's answer query covers the question this much better: its answer is clearly stronger. */
export const CLEARLY_STRONGER = 0.25;

const faithful = (q: ExecutedQuery) => (q.fit?.unresolved.length ?? 0) === 0;
const productive = (q: ExecutedQuery) => q.status === "ok" && q.rows > 0;
const missed = (q: ExecutedQuery) => q.fit?.valuesMissed.length ?? 0;
const used = (q: ExecutedQuery) => q.fit?.valuesUsed.length ?? 0;
const coverage = (q: ExecutedQuery) => q.fit?.coverage ?? 0;
/** The answer query represents the question: nothing unresolved, every named value used, most of its words accounted for. */
const represents = (q: ExecutedQuery) => faithful(q) && missed(q) === 0 && coverage(q) >= MIN_COVERAGE;

/** An answer query that ran, found no rows, and filtered on conditions that can be said in words. */
function foundNothingUnderConditions(q: ExecutedQuery): boolean {
  if (!(q.status === "empty" || (q.status === "ok" && q.rows === 0))) return false;
  if ((q.fit?.valuesGuessed?.length ?? 0) > 0) return false;
  return emptyResultOf(q.query.language, q.query.text, q.fit) !== null;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

function uncoveredText(q: ExecutedQuery): string {
  const u = q.fit?.uncovered ?? [];
  return u.length
    ? ` (${q.kbName} has nothing for ${u
        .slice(0, 4)
        .map((w) => `'${w}'`)
        .join(", ")})`
    : "";
}

/** Why a ranked source's answer query did not answer, in words. */
function whyNot(q: ExecutedQuery): string {
  if (!faithful(q)) return "could not represent the question";
  if (missed(q) > 0) return `does not know ${q.fit!.valuesMissed.map((v) => `'${v}'`).join(", ")}`;
  if (coverage(q) < MIN_COVERAGE) return `covers ${pct(coverage(q))} of the question's words`;
  return `answer query ${q.status === "ok" ? "empty" : q.status}`;
}

/**
 * The committed source, or null when the best-ranked candidate is not a structured source with an
 * answer query (document collections keep the evidence-based selection).
 */
export function commitSource(candidates: Candidate[], executed: ExecutedQuery[]): Commitment | null {
  const byGuide = guideCommitment(candidates, executed);
  if (byGuide) return byGuide;
  const committed = generatedCommitment(candidates, executed);
  // A matching guide whose query no longer runs (a renamed column, a dropped table) or finds nothing is skipped; the trace says why.
  const skipped = executed
    .filter((q) => q.strategy === "guide" && q.role === "answer" && !productive(q))
    .map(
      (q) =>
        `the analyst's guide '${q.guideQuestion ?? ""}' was not used: its query ${q.status === "ok" || q.status === "empty" ? "found no rows" : `could not run (${q.status}; the run's query list says more)`}`,
    );
  return committed && skipped.length ? { ...committed, reason: `${committed.reason}; ${skipped.join("; ")}` } : committed;
}

function generatedCommitment(candidates: Candidate[], executed: ExecutedQuery[]): Commitment | null {
  const ranked = candidates.filter((c) => STRUCTURED.has(c.kind));
  if (ranked.length === 0 || !STRUCTURED.has(candidates[0]?.kind ?? "")) return null;
  const withQuery = ranked
    .map((c, rank) => ({ c, rank, q: answerQueryOf(executed, c.kbId) }))
    .filter((x): x is { c: Candidate; rank: number; q: ExecutedQuery } => x.q !== null);
  if (withQuery.length === 0) return null;

  const supporting = withQuery.filter((x) => represents(x.q) && productive(x.q));
  const first = supporting[0];
  // Nothing answered, but a query that represents the question found no rows under conditions it
  // states: that is the answer ("none"), not a reason to answer from other evidence (issue 32).
  // Not when it only looked a name up by its text (its index does not hold it) and another source's answer query
  // found rows for that name: the name is that source's, and the question with it.
  const foundElsewhere = (x: (typeof withQuery)[number]) => {
    const names = new Set((x.q.fit?.valuesLookedUp ?? []).map((v) => v.toLowerCase()));
    return withQuery.some((y) => y !== x && productive(y.q) && (y.q.fit?.valuesUsed ?? []).some((v) => names.has(v.toLowerCase())));
  };
  const none = first ? undefined : withQuery.find((x) => represents(x.q) && foundNothingUnderConditions(x.q) && !foundElsewhere(x));
  if (none) {
    return {
      kbId: none.c.kbId,
      kbName: none.c.kbName,
      query: none.q,
      reason: `committed to ${none.c.kbName}: its answer query represents the question and found no rows under its conditions`,
    };
  }
  if (!first) {
    // Nothing answered. A best-ranked source that understood the question's words but not its
    // constructs gets the honest refusal (what was not understood); otherwise the evidence decides.
    const top = withQuery[0];
    if (faithful(top.q) || missed(top.q) > 0 || coverage(top.q) < MIN_COVERAGE) return null;
    return {
      kbId: top.c.kbId,
      kbName: top.c.kbName,
      query: top.q,
      reason: `${top.c.kbName} is the best-ranked source with an answer query; its question could not be represented faithfully (${top.q.fit!.unresolved.join("; ")}), and no other source answered`,
    };
  }
  const stronger = supporting.find(
    (x) => x !== first && coverage(x.q) >= coverage(first.q) + CLEARLY_STRONGER && used(x.q) >= used(first.q),
  );
  const skipped = withQuery.filter((x) => x.rank < first.rank).map((x) => `${x.c.kbName} (${whyNot(x.q)})`);
  const before = skipped.length ? `; ${skipped.join(", ")} ranked higher but did not answer` : "";
  if (stronger) {
    return {
      kbId: stronger.c.kbId,
      kbName: stronger.c.kbName,
      query: stronger.q,
      reason: `moved from ${first.c.kbName} to ${stronger.c.kbName} (ranked ${stronger.rank + 1}): its answer query accounts for ${pct(coverage(stronger.q))} of the question's words against ${pct(coverage(first.q))}${uncoveredText(first.q)}`,
    };
  }
  const rank = first.rank === 0 ? "the best-ranked source" : `ranked ${first.rank + 1}`;
  return {
    kbId: first.c.kbId,
    kbName: first.c.kbName,
    query: first.q,
    reason: `committed to ${first.c.kbName} (${rank}): its answer query represents the question and returned ${count(first.q.rows, "row")}${before}`,
  };
}

/**
 * When source selection ranked an unstructured source first but the evidence went to a structured one,
 * that source's answer query is still the answer if it represents the question and returned rows: its
 * result as it stands, not a value read from its rows one by one (a grouped count read as "60" instead
 * of each year's count). Not when the query leaves out a question word that `othersSay` (the stemmed
 * terms of the other sources' leading evidence) holds.
 */
export function evidenceWinnerCommitment(
  winner: { kbId: string; kbName: string },
  candidates: Candidate[],
  executed: ExecutedQuery[],
  othersSay: ReadonlySet<string>,
): Commitment | null {
  if (!STRUCTURED.has(candidates.find((c) => c.kbId === winner.kbId)?.kind ?? "")) return null;
  const q = answerQueryOf(executed, winner.kbId);
  if (!q || !represents(q) || !productive(q)) return null;
  // A word of the question the query leaves out that another source's evidence holds ("warranty" in a
  // policy, asked of a sales database): that source knows what this one does not; the evidence decides.
  if ((q.fit?.uncovered ?? []).some((w) => othersSay.has(w))) return null;
  return {
    kbId: winner.kbId,
    kbName: winner.kbName,
    query: q,
    reason: `committed to ${winner.kbName}: its evidence matched the question best and its answer query represents the question and returned ${count(q.rows, "row")}`,
  };
}

function isRow(piece: EvidencePiece): piece is EvidencePiece & { data: RowData } {
  return piece.kind === "row" && Array.isArray((piece.data as RowData).columns);
}

/**
 * The committed query's whole result, rebuilt from its evidence pieces in result order; null when its
 * pieces are not all rows (a query returning paths or triples is evidence, not a table).
 */
export function committedResult(commitment: Commitment, pieces: EvidencePiece[], cap: number): QueryResult | null {
  const q = commitment.query;
  const language = q.query.language;
  if (language !== "sql" && language !== "sparql" && language !== "cypher") return null;
  const byId = new Map(pieces.filter((p) => p.provenance.kb === q.kbId && p.provenance.query === q.query.text).map((p) => [p.id, p]));
  const rows: Scalar[][] = [];
  const pieceIds: string[] = [];
  let columns: string[] | null = null;
  for (const id of q.evidenceIds) {
    const piece = byId.get(id);
    if (!piece || !isRow(piece)) return null;
    // A graph query that returns whole nodes answers with the nodes themselves, each by its caption
    // (a movie's title), not with every property the node carries.
    const node = language === "cypher" && piece.data.key && "elementId" in piece.data.key && piece.data.section !== undefined;
    columns ??= node ? [piece.data.table] : piece.data.columns;
    rows.push(node ? [piece.data.section ?? null] : piece.data.values);
    pieceIds.push(id);
  }
  return {
    kbId: q.kbId,
    kbName: q.kbName,
    language,
    query: q.query.text,
    ...provenanceParams(q.query),
    columns: columns ?? [],
    rows,
    pieceIds,
    truncated: q.truncated,
    cap,
    fit: q.fit ?? null,
    grouped: q.grouped ?? null,
    guide: q.strategy === "guide" && q.guideId ? { id: q.guideId, question: q.guideQuestion ?? "" } : null,
  };
}
