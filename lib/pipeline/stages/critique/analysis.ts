import { type EvidencePiece, provenanceQueryText } from "../../../backends/types";
import { terms } from "../../text";
import type { Answer, Candidate, ExecutedQuery, Feedback, Intent, ScoredEvidence } from "../../contracts";
import { type QuestionEntity, type QuestionFocus, buildQuestionFocus, pieceMentionsEntity, queryNamesEntity } from "../answer/classical";
import { type Bridge, findBridges } from "../answer/bridge";

export interface CritiqueInput {
  intent: Intent;
  answer: Answer;
  evidence: ScoredEvidence[];
  executed: ExecutedQuery[];
  candidates: Candidate[];
  /** 1-based: the first answering round is 1; corrective feedback is only given while round < maxRounds. */
  round: number;
  maxRounds: number;
  /** Feedback given in earlier rounds of this run (never repeated with the same target). */
  previousFeedback: Feedback[];
}

export interface EntityPresence {
  entity: QuestionEntity;
  /** Evidence pieces that mention it (text, entity list, location, or a query filtered on it). */
  pieces: EvidencePiece[];
  inCited: boolean;
}

/** Facts about the round that the validator's checks and the commentor's rules share. */
export interface RoundAnalysis {
  input: CritiqueInput;
  focus: QuestionFocus;
  pieces: EvidencePiece[];
  /** The winning value (for a list, its first member) and its type, or null when the answer refrained. */
  value: string | null;
  valueType: string | null;
  cited: EvidencePiece[];
  /** Cited pieces that support the winning value (the connection check reads these). */
  supporting: EvidencePiece[];
  productive: ExecutedQuery[];
  unproductive: ExecutedQuery[];
  entities: EntityPresence[];
  /** Bridge entities joining the question to another source's rows (answer/bridge.ts). */
  bridges: Bridge[];
}

export function isProductive(q: ExecutedQuery): boolean {
  return q.status === "ok" && q.rows > 0;
}

/** Whether a piece is about an entity: it names it, or the query that produced it filtered on it. */
export function pieceIsAbout(piece: EvidencePiece, entity: QuestionEntity, language: string): boolean {
  return pieceMentionsEntity(piece, entity, language) || queryNamesEntity(provenanceQueryText(piece.provenance), entity);
}

export function analyzeRound(input: CritiqueInput): RoundAnalysis {
  const focus = buildQuestionFocus(input.intent);
  const pieces = input.evidence.map((e) => e.piece);
  const byId = new Map(pieces.map((p) => [p.id, p]));
  const cited = input.answer.citations.map((id) => byId.get(id)).filter((p): p is EvidencePiece => !!p);
  const winner = input.answer.refrained ? null : (input.answer.candidates[0] ?? null);
  const supportIds = new Set(winner?.support ?? []);
  const supporting = cited.filter((p) => supportIds.has(p.id));
  return {
    input,
    focus,
    pieces,
    value: winner?.value ?? (input.answer.refrained ? null : input.answer.text),
    valueType: winner?.type ?? null,
    cited,
    supporting: supporting.length > 0 ? supporting : cited,
    productive: input.executed.filter(isProductive),
    unproductive: input.executed.filter((q) => !isProductive(q)),
    bridges: findBridges(input.evidence, focus),
    entities: focus.entities.map((entity) => {
      const about = pieces.filter((p) => pieceIsAbout(p, entity, focus.language));
      return { entity, pieces: about, inCited: cited.some((p) => about.includes(p)) };
    }),
  };
}

/** Words of a native query or a schema name, camelCase and snake_case split, as content terms. */
export function queryTerms(text: string, language: string): Set<string> {
  return new Set(terms(text.replace(/([a-z])([A-Z])/g, "$1 $2"), language));
}

/** The schema words of a piece: columns, predicates, relationship types and property names; a passage's own words. */
export function schemaText(piece: EvidencePiece): string {
  const d = piece.data;
  if ("predicate" in d) return `${d.predicate.label} ${d.predicate.value}`;
  if ("nodes" in d)
    return [...d.edges.flatMap((e) => [e.type, ...Object.keys(e.properties)]), ...d.nodes.flatMap((n) => Object.keys(n.properties))].join(
      " ",
    );
  if ("columns" in d) return [d.table, ...d.columns].join(" ");
  return piece.text;
}

/** Whether the relation asked about shows in the evidence's schema words / in the queries run. */
export function relationPresence(analysis: RoundAnalysis): { relation: string | null; inEvidence: boolean; inQueries: boolean } {
  const relation = analysis.input.intent.relation;
  const language = analysis.focus.language;
  const relationTerms = relation ? terms(relation, language) : [];
  if (!relation || relationTerms.length === 0) return { relation: null, inEvidence: false, inQueries: false };
  const hits = (set: Set<string>) => relationTerms.some((t) => set.has(t));
  return {
    relation,
    inEvidence: analysis.pieces.some((p) => hits(queryTerms(schemaText(p), language))),
    inQueries: analysis.input.executed.some((q) => hits(queryTerms(`${q.query.text} ${JSON.stringify(q.query.params ?? {})}`, language))),
  };
}

/** Readable name of a KB: from the selected candidates, the queries or the evidence; else its id. */
export function kbName(analysis: RoundAnalysis, kbId: string): string {
  return (
    analysis.input.candidates.find((c) => c.kbId === kbId)?.kbName ??
    analysis.input.executed.find((q) => q.kbId === kbId)?.kbName ??
    analysis.pieces.find((p) => p.provenance.kb === kbId)?.provenance.kbName ??
    kbId
  );
}
