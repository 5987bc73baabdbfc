import type { RunStatusName, TurnOutcome } from "./types";

/**
 * What the answer card said of a run, in one word: History and the conversation thread say the same. A
 * run whose answer was only the closest one is ANSWERED, and one that found no answer it can stand
 * behind may be ANSWERED with its answer refrained; the status alone does not tell them apart.
 */
export function turnOutcome(r: { status: RunStatusName; refrained: boolean; certainty: string | null | undefined }): TurnOutcome {
  if (r.status === "ANSWERED" && !r.refrained) return r.certainty === "uncertain" ? "uncertain" : "answered";
  if (r.status === "ANSWERED" || r.status === "REFRAINED") return "refused";
  return r.status === "CANCELLED" ? "cancelled" : r.status === "FAILED" ? "failed" : "running";
}
