import type { AnswerShape } from "../pipeline/contracts";
import type { RunOutcome } from "../pipeline/run/types";

/**
 * What the browser gets for a stored run and for history lists. Plain JSON (ISO dates), safe to pass
 * from server components and server actions to client components.
 */

export type RunStatusName = "QUEUED" | "RUNNING" | "ANSWERED" | "REFRAINED" | "FAILED" | "CANCELLED";
export type FeedbackVerdictName = "HELPFUL" | "WRONG";

export interface TraceEventView {
  seq: number;
  stage: string;
  type: "START" | "END" | "ERROR" | "INFO";
  strategy: string | null;
  durationMs: number | null;
  summary: string;
}

export interface FeedbackView {
  id: string;
  verdict: FeedbackVerdictName;
  correctAnswer: string | null;
  comment: string | null;
  status: "OPEN" | "RESOLVED";
  createdAt: string;
}

/** What a finished run's answer card said: an answer, the closest answer (not certain), or none. */
export type TurnOutcome = "answered" | "uncertain" | "refused" | "cancelled" | "failed" | "running";

/** One question of a conversation, compact: the thread above the current run, and history rows. */
export interface TurnView {
  id: string;
  question: string;
  status: RunStatusName;
  /** The answer card's verdict, which the status alone does not tell (an uncertain answer is ANSWERED). */
  outcome: TurnOutcome;
  answer: string | null;
  /** A query result's columns, rows and units: screens write its figures as the answer card does ("€258", not "258"). */
  shape: AnswerShape | null;
  refrainReason: string | null;
  confidence: number | null;
  createdAt: string;
  conversationId: string | null;
}

/** Why some of a run is not shown to this viewer (access rules apply to stored runs as well). */
export interface HiddenNotice {
  /** The run read knowledge bases the viewer may not use: its answer, evidence, path and trace are withheld. */
  wholeResult: boolean;
  /** Entity links into such knowledge bases that were dropped from the shown intent. */
  entityLinks: number;
}

export interface RunView {
  id: string;
  question: string;
  status: RunStatusName;
  createdAt: string;
  finishedAt: string | null;
  conversationId: string | null;
  /** The viewer asked this question (else an admin, or an analyst reviewing feedback, is looking at it). */
  viewerIsOwner: boolean;
  ownerName: string;
  /** The whole stored outcome (null while running, after a crash, or when withheld). */
  outcome: RunOutcome | null;
  trace: TraceEventView[];
  hidden: HiddenNotice | null;
  /** The viewer's own feedback on this run, if any. */
  feedback: FeedbackView | null;
  /** How many later questions the same conversation holds (for "open the latest"). */
  laterTurns: number;
}

export interface Page<T> {
  rows: T[];
  total: number;
  page: number;
  pageSize: number;
  pages: number;
}

export interface HistoryRun extends TurnView {
  feedback: FeedbackVerdictName | null;
}

export interface HistoryConversation {
  id: string;
  title: string;
  updatedAt: string;
  turns: number;
  last: TurnView | null;
}

export interface AskableKb {
  id: string;
  name: string;
  kind: "DOCUMENTS" | "SQL" | "SPARQL" | "CYPHER";
  description: string;
  status: string;
}
