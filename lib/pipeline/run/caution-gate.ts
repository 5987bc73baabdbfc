import type { Doubt } from "../calibration/doubts";
import type { Answer } from "../contracts";

/**
 * An answer below the workspace's caution target (issue 32, part 3) is not shown as an answer: it keeps
 * its text, evidence and citations (what the run found) and becomes "not certain", with how likely it is
 * to be right, the target, and why the run is not sure (the doubts that cost it most). A reason the run
 * already gave (the critic's, or the answer stage's own doubt) is kept after it.
 */
export function heldBelowTarget(answer: Answer, target: number, doubts: Doubt[]): Answer {
  // Rounded down: an answer held at 0.549 under a 55 % target must not read "about 55 % likely right".
  const likely = Math.floor(answer.confidence * 100);
  const asked = Math.round(target * 100);
  const why = doubts.length ? ` Why it is not sure: ${doubts.map((d) => d.words).join("; ")}.` : "";
  const earlier = answer.certainty === "uncertain" && answer.reason ? ` ${answer.reason.replace(/^Not certain — /, "Also: ")}` : "";
  return {
    ...answer,
    certainty: "uncertain",
    reason: `Not certain — the closest answer found is ${clip(answer.text)}, about ${likely} % likely right; this workspace shows an answer only at ${asked} % or more.${why}${earlier}`,
  };
}

const clip = (text: string) => {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > 80 ? `'${one.slice(0, 77)}…'` : `'${one}'`;
};
