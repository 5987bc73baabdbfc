import type { KbKind } from "../backends/types";
import type { GuideActionKind } from "../pipeline/guide-actions";
import type { RunStatusName } from "../runs/types";

/** Shapes of the guide domain shared by its functions and by the screens that show them (plain JSON). */

export interface GuideDraft {
  question: string;
  answer?: string | null;
  notes?: string;
  corrections?: unknown[];
  fromRunId?: string | null;
  sources: { kbId: string; sourceObjectId?: string | null; actions: { kind: GuideActionKind; params: unknown; context?: string }[] }[];
}

export interface GuideListRow {
  id: string;
  question: string;
  answer: string | null;
  kbs: { id: string; name: string }[];
  actionKinds: GuideActionKind[];
  actions: number;
  helpedRuns: number;
  fromRunId: string | null;
  createdBy: string | null;
  updatedAt: string;
  /** Why the guide's query no longer runs, or null (see lib/guides/check.ts). */
  brokenReason: string | null;
}

export interface GuideCorrection {
  runAnswer?: string | null;
  correctAnswer: string;
  feedbackId?: string;
  comment?: string | null;
}

export interface GuideDetail {
  id: string;
  question: string;
  answer: string | null;
  notes: string;
  corrections: GuideCorrection[];
  fromRunId: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
  /** Why the guide's query no longer runs (a run or "Check now" found it failing), or null. */
  brokenReason: string | null;
  /** When a run or "Check now" last ran its queries, or null. */
  checkedAt: string | null;
  sources: {
    kbId: string;
    kbName: string;
    kbKind: KbKind;
    sourceObject: { id: string; name: string; key: string } | null;
    actions: { kind: GuideActionKind; params: unknown; context: string; description: string | null }[];
  }[];
  helped: {
    /** Every run the guide was retrieved for, including runs outside the reader's access. */
    total: number;
    runs: { runId: string; question: string; status: RunStatusName; score: number; askedBy: string; createdAt: string }[];
  };
  resolvedReports: number;
}
