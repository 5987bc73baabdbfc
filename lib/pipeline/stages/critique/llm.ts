import { LlmError } from "../../../llm/errors";
import { type CritiquePromptInput, type ReasoningPath, commentorPrompt, validatorPrompt } from "./prompt";
import { clip } from "../../../llm/quote";
import type { LlmSession } from "../../../llm/session";
import { type StageContext, type StageStrategy, RunCancelledError } from "../../stage";
import { normalizeLabel } from "../../text";
import type { Critique, Feedback } from "../../contracts";
import { type CritiqueInput, analyzeRound } from "./analysis";
import { validate } from "./checks";
import { type Check } from "./types";
import { alreadyGiven, comment } from "./commentor";
import { STOP_CHECK } from "./classical";

/**
 * The LLM critique strategy (HybGRAG's critic): a validator that judges the answer yes/no with the
 * reasoning paths (the queries run and what they returned) and the cited evidence as context, then,
 * when it says no and a round remains, a commentor that returns one corrective feedback of the fixed
 * types with the entity, relation, source or module it concerns, taught by the analysts' corrections
 * recorded on the nearest extraction guides. The classical checks are reported beside the verdict.
 * A feedback the loop cannot act on (already given, or a target that names nothing of this round)
 * gives way to the classical commentor's choice.
 */

export interface GuideCorrection {
  question: string;
  runAnswer: string | null;
  correctAnswer: string;
}

export const VALIDATOR_CHECK = "model validator";

const PIECE_CHARS = 400;
const MAX_CITED = 10;
const MAX_CONTEXT = 5;
const QUERY_CHARS = 600;

function promptInput(input: CritiqueInput): CritiquePromptInput {
  const cited = new Set(input.answer.citations);
  const pieces = input.evidence.map((e) => e.piece);
  const paths: ReasoningPath[] = input.executed.map((q) => ({
    kb: q.kbName,
    strategy: q.strategy,
    language: q.query.language,
    query: clip(q.query.text, QUERY_CHARS),
    status: q.status,
    rows: q.rows,
    ...(q.error ? { error: clip(q.error, 200) } : {}),
  }));
  return {
    intent: input.intent,
    answer: { text: input.answer.text, refrained: input.answer.refrained, reason: input.answer.reason },
    paths,
    cited: pieces
      .filter((p) => cited.has(p.id))
      .slice(0, MAX_CITED)
      .map((p) => ({ id: p.id, source: p.provenance.kbName, text: clip(p.text, PIECE_CHARS) })),
    context: pieces
      .filter((p) => !cited.has(p.id))
      .slice(0, MAX_CONTEXT)
      .map((p) => ({ id: p.id, source: p.provenance.kbName, text: clip(p.text, PIECE_CHARS) })),
  };
}

/** Why a commentor feedback cannot drive the next round, or null when it can. */
export function unusableFeedback(f: Feedback, input: CritiqueInput): string | null {
  if (alreadyGiven(f, input.previousFeedback)) return `${f.type}${f.target ? ` '${f.target}'` : ""} was already given`;
  const t = f.target?.trim() ?? "";
  switch (f.type) {
    case "wrong_source":
      return input.candidates.some((c) => c.kbId === t || normalizeLabel(c.kbName) === normalizeLabel(t))
        ? null
        : `wrong_source names '${t}', which is not a source of this round`;
    case "wrong_module":
      return input.executed.some((q) => q.strategy === t) ? null : `wrong_module names '${t}', which is not a strategy of this round`;
    case "next_batch":
      return /^\d+$/.test(t) && Number(t) >= 1 ? null : "next_batch needs the page number to fetch";
    case "wrong_entity":
    case "missing_entity":
    case "missing_filter":
      return t ? null : `${f.type} needs the entity it concerns`;
    default:
      return null;
  }
}

export interface LlmCritiqueOptions {
  /** Corrections recorded on the run's nearest guides (loaded once per run, when first needed). */
  corrections(): Promise<GuideCorrection[]>;
}

export function llmCritique(session: LlmSession, options: LlmCritiqueOptions): StageStrategy<CritiqueInput, Critique> {
  return {
    name: "llm",
    async run(input: CritiqueInput, ctx: StageContext): Promise<Critique> {
      if (ctx.signal.aborted) throw new RunCancelledError();
      const analysis = analyzeRound(input);
      const checks = validate(analysis);
      const shown = promptInput(input);

      let verdict: { valid: boolean; reason: string };
      if (input.answer.refrained) {
        verdict = { valid: false, reason: `The run refrained: ${input.answer.reason ?? "no reason given"}` };
      } else {
        verdict = await session.call("critique", ctx, validatorPrompt(shown));
        verdict = {
          valid: verdict.valid,
          reason:
            clip(verdict.reason, 400) || (verdict.valid ? "The model judged the answer right." : "The model judged the answer wrong."),
        };
      }
      const validator: Check = { name: VALIDATOR_CHECK, passed: verdict.valid, detail: verdict.reason };
      const all = [validator, ...checks];
      const trace = (summary: string, payload?: unknown) =>
        ctx.trace({ stage: "critique", type: "INFO", strategy: "llm", summary, payload });
      trace(`validator: ${verdict.valid ? "yes" : "no"}: ${verdict.reason}`);
      if (verdict.valid) return { accepted: true, checks: all, feedback: null };

      if (input.round >= input.maxRounds) {
        const stop: Check = {
          name: STOP_CHECK,
          passed: false,
          detail: `Round ${input.round} of ${input.maxRounds}: no round left for corrective feedback; the run keeps its best answer.`,
        };
        return { accepted: false, checks: [...all, stop], feedback: null };
      }

      let feedback: Feedback | null = null;
      try {
        const corrections = await options.corrections();
        const out = await session.call(
          "critique",
          ctx,
          commentorPrompt({
            ...shown,
            verdict: verdict.reason,
            sources: input.candidates.map((c) => c.kbName),
            strategies: [...new Set(input.executed.map((q) => q.strategy))],
            previousFeedback: input.previousFeedback,
            corrections,
          }),
        );
        const proposed: Feedback = {
          type: out.type,
          target: out.target?.trim() ? clip(out.target.trim(), 200) : null,
          detail: clip(out.detail, 400) || `The model asks for ${out.type}.`,
        };
        const problem = unusableFeedback(proposed, input);
        if (problem) trace(`The commentor's feedback cannot be used (${problem}); the classical commentor decides.`, { proposed });
        else feedback = proposed;
      } catch (e) {
        // The verdict stands; only the correction falls back to the classical rules.
        if (!(e instanceof LlmError)) throw e;
        trace(`The commentor failed (${e.message}); the classical commentor decides.`);
      }
      if (!feedback) feedback = comment(analysis, checks).feedback;
      if (feedback) return { accepted: false, checks: all, feedback };
      // Nothing left to try: as classically, an answer stands and a refusal keeps the best earlier round.
      const refused = input.answer.refrained;
      const stop: Check = {
        name: STOP_CHECK,
        passed: !refused,
        detail: refused
          ? "No corrective feedback applies; the refusal stands and the run keeps its best answer."
          : "No corrective feedback applies; another round would repeat itself, so the answer stands.",
      };
      return { accepted: !refused, checks: [...all, stop], feedback: null };
    },
  };
}
