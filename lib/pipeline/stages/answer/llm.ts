import type { EvidencePiece } from "../../../backends/types";
import { LlmError } from "../../../llm/errors";
import { UNKNOWN_ANSWER, answerPrompt } from "./prompt";
import { clip, looksLikeInstructions } from "../../../llm/quote";
import type { LlmSession } from "../../../llm/session";
import { DEFAULT_PIPELINE_CONFIG } from "../../config";
import { type StageContext, type StageStrategy, RunCancelledError } from "../../stage";
import type { Answer, Derivation } from "../../contracts";
import type { AnswerInput } from "./types";
import { checkSupport } from "./llm-support";
import { computeProposal } from "./proposed-operation";
import { NO_EVIDENCE_REASON, refusal } from "./refusal";
import { describePiece } from "./uncertainty";
import { classifyValue } from "./value-types";

/**
 * The LLM answer strategy (Quasar's answer generation): from the intent and the top evidence (30
 * pieces by default, as selected), the model answers citing evidence ids, or says "unknown" and Mosaic
 * refrains. The answer is accepted only if every citation is a real evidence id of this run and the
 * cited pieces support it (llm-support.ts); otherwise the classical answerer runs instead, with the
 * reason in the trace. When the answer is computed from table cells the model proposes the operation
 * and its operands (cells named by row and column); Mosaic reads those cells and computes the result
 * itself (proposed-operation.ts), so the answer carries a derivation and never the model's arithmetic.
 * A confidence below the pipeline's threshold gives an uncertain answer, as classically.
 */

const PIECE_CHARS = 600;
const MAX_ANSWER_CHARS = 500;

export function llmAnswer(session: LlmSession): StageStrategy<AnswerInput, Answer> {
  return {
    name: "llm",
    async run(input: AnswerInput, ctx: StageContext): Promise<Answer> {
      if (ctx.signal.aborted) throw new RunCancelledError();
      const threshold = input.threshold ?? DEFAULT_PIPELINE_CONFIG.answerThreshold;
      if (input.evidence.length === 0) {
        // Nothing to read: the classical refusal wording, without a call.
        return refusal(NO_EVIDENCE_REASON, 0, []);
      }
      const alias = input.evidence.map((_, i) => `E${i + 1}`);
      const byAlias = new Map(input.evidence.map((e, i) => [alias[i].toLowerCase(), e.piece]));
      const byId = new Map(input.evidence.map((e) => [e.piece.id, e.piece]));
      const out = await session.call(
        "answer",
        ctx,
        answerPrompt({
          intent: input.intent,
          evidence: input.evidence.map((e, i) => ({
            id: alias[i],
            kind: e.piece.kind,
            source: e.piece.provenance.kbName,
            text: clip(e.piece.text, PIECE_CHARS),
          })),
        }),
      );
      let text = clip(out.answer, MAX_ANSWER_CHARS);
      const confidence = Number.isFinite(out.confidence) ? Math.min(1, Math.max(0, out.confidence)) : 0.5;
      if (!text || text.toLowerCase().replace(/[.!]$/, "") === UNKNOWN_ANSWER) {
        const why = clip(out.refrainReason ?? "", 300);
        return refusal(`The evidence does not hold the answer${why ? `: ${why}` : "."}`, 0, []);
      }

      const unknownIds: string[] = [];
      const cited: EvidencePiece[] = [];
      for (const c of out.citations) {
        const piece = byAlias.get(c.trim().toLowerCase()) ?? byId.get(c.trim());
        if (!piece) unknownIds.push(c);
        else if (!cited.includes(piece)) cited.push(piece);
      }
      if (unknownIds.length) {
        ctx.trace({
          stage: "answer",
          type: "INFO",
          strategy: "llm",
          summary: `Ignored citations that are not evidence of this run: ${unknownIds.map((x) => JSON.stringify(clip(x, 40))).join(", ")}`,
        });
      }
      // A proposed operation is recomputed from the cells it names; the model's own figure is not used.
      let derivation: Derivation | undefined;
      if (out.computation) {
        const indexOf = new Map(input.evidence.map((e, i) => [e.piece.id, i]));
        const computed = computeProposal(out.computation, input.evidence, (ref) =>
          indexOf.get(byAlias.get(ref.toLowerCase())?.id ?? byId.get(ref)?.id ?? ""),
        );
        if (!computed.ok)
          throw new LlmError("invalid_output", `the model's proposed ${out.computation.operation} was rejected: ${computed.problem}`);
        if (computed.citations.some((id) => looksLikeInstructions(byId.get(id)?.text ?? ""))) {
          throw new LlmError(
            "invalid_output",
            "the model's proposed operation reads a row that addresses the model with instructions, which is not evidence",
          );
        }
        derivation = computed.derivation;
        if (clip(computed.text, MAX_ANSWER_CHARS) !== text) {
          ctx.trace({
            stage: "answer",
            type: "INFO",
            strategy: "llm",
            summary: `The model answered '${clip(text, 60)}'; recomputed from the cells it named: ${derivation.expression}`,
          });
        }
        text = computed.text;
        for (const id of computed.citations) {
          const piece = byId.get(id);
          if (piece && !cited.includes(piece)) cited.push(piece);
        }
      }
      const countAnswer = input.intent.aggregate === "count" || input.intent.answerTypes.includes("count") || out.answerType === "count";
      const support = derivation
        ? {
            supported: true,
            why: `computed from the cited cells: ${derivation.expression}`,
            suspicious: cited.filter((p) => looksLikeInstructions(p.text)).map((p) => p.id),
          }
        : checkSupport(text, cited, { countAnswer });
      if (support.suspicious.length) {
        ctx.trace({
          stage: "answer",
          type: "INFO",
          strategy: "llm",
          summary: `Cited evidence that addresses the model with instructions was not counted as support: ${support.suspicious.join(", ")}`,
          payload: { suspicious: support.suspicious },
        });
      }
      if (!support.supported) throw new LlmError("invalid_output", `the model's answer '${clip(text, 80)}' was rejected: ${support.why}`);

      const type = out.answerType && out.answerType !== "list" ? out.answerType : classifyValue(text, null);
      const citations = cited.map((p) => p.id);
      const candidates = [{ value: text, score: Number(confidence.toFixed(3)), support: citations, type }];
      ctx.trace({
        stage: "answer",
        type: "INFO",
        strategy: "llm",
        summary: `answer '${clip(text, 120)}' (model confidence ${confidence.toFixed(2)}; ${support.why})`,
        payload: { citations, confidence, support: support.why },
      });
      if (confidence < threshold) {
        // Supported by the cited evidence (checked above) but not firmly: shown as the closest answer, marked uncertain.
        return {
          text,
          refrained: false,
          reason: `Not certain — the closest answer in the sources is ${clip(text, 80)} (${derivation ? `computed as ${derivation.expression}` : describePiece(cited[0])}).`,
          confidence: Number(confidence.toFixed(3)),
          citations,
          candidates,
          certainty: "uncertain",
          ...(derivation ? { derivation } : {}),
        };
      }
      return {
        text,
        refrained: false,
        reason: null,
        confidence: Number(confidence.toFixed(3)),
        citations,
        candidates,
        ...(derivation ? { derivation } : {}),
      };
    },
  };
}
