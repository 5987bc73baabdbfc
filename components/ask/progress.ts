import type { TraceEventView } from "@/lib/runs/types";

/**
 * The live view of a run's stages, built from its trace events: the same events arrive streamed while it
 * runs and stored when it is reopened, so both show the same panel.
 */

export const STAGES = [
  { id: "understand", label: "Understand the question" },
  { id: "select", label: "Select sources" },
  { id: "formulate", label: "Write native queries" },
  { id: "execute", label: "Run the queries" },
  { id: "pool", label: "Pool the evidence" },
  { id: "rerank", label: "Re-rank" },
  { id: "select-evidence", label: "Select evidence" },
  { id: "answer", label: "Answer" },
  { id: "critique", label: "Critique" },
] as const;
export type StageId = (typeof STAGES)[number]["id"];

export interface StageState {
  status: "pending" | "running" | "done" | "error";
  strategy: string | null;
  /** Summed over critic rounds. */
  ms: number;
  runs: number;
  summary: string;
}

export interface Progress {
  stages: Record<string, StageState>;
  round: number;
  /** Run-level notices as they happen (a question cut, the time budget spent); the stored outcome lists them all. */
  notes: string[];
  /** Set by the run's final event. */
  totalMs: number | null;
  runId: string | null;
  current: string | null;
}

export type ProgressEvent = Pick<TraceEventView, "stage" | "type" | "strategy" | "durationMs" | "summary"> & { runId?: string };

const PENDING: StageState = { status: "pending", strategy: null, ms: 0, runs: 0, summary: "" };
const ROUND_STAGES = STAGES.slice(STAGES.findIndex((s) => s.id === "select")).map((s) => s.id as string);

export function emptyProgress(): Progress {
  return { stages: Object.fromEntries(STAGES.map((s) => [s.id, PENDING])), round: 1, notes: [], totalMs: null, runId: null, current: null };
}

export function applyEvent(p: Progress, e: ProgressEvent): Progress {
  const next: Progress = { ...p, runId: p.runId ?? e.runId ?? null };
  if (e.stage === "run") {
    if (e.type === "INFO") next.notes = [...p.notes, e.summary];
    if (e.type === "END") {
      next.totalMs = e.durationMs ?? null;
      next.current = null;
    }
    return next;
  }
  const stages = { ...p.stages };
  if (e.type === "INFO") {
    // A stage's own detail ("17 pieces → 12 in the pool") shows on its row until the stage ends.
    const st = stages[e.stage] ?? PENDING;
    if (st.status === "running") {
      stages[e.stage] = { ...st, summary: e.summary };
      next.stages = stages;
    }
    return next;
  }
  const prev = stages[e.stage] ?? PENDING;
  if (e.type === "START") {
    // A second "select" means the critic sent the run back: the later stages run again.
    if (e.stage === "select" && prev.runs > 0) {
      next.round = p.round + 1;
      for (const id of ROUND_STAGES) stages[id] = { ...(stages[id] ?? PENDING), status: "pending" };
    }
    stages[e.stage] = { ...(stages[e.stage] ?? PENDING), status: "running", strategy: e.strategy ?? prev.strategy };
    next.current = e.stage;
  } else {
    stages[e.stage] = {
      status: e.type === "ERROR" ? "error" : "done",
      strategy: e.strategy ?? prev.strategy,
      ms: prev.ms + (e.durationMs ?? 0),
      runs: prev.runs + 1,
      summary: e.summary,
    };
    if (next.current === e.stage) next.current = null;
  }
  next.stages = stages;
  return next;
}

export function progressFromTrace(events: readonly ProgressEvent[]): Progress {
  return events.reduce(applyEvent, emptyProgress());
}
