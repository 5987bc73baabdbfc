import { LlmError } from "../../../llm/errors";
import { type SourceResults, selectEvidencePrompt } from "./prompt";
import { clip } from "../../../llm/quote";
import type { LlmSession } from "../../../llm/session";
import { type StageContext, type StageStrategy, RunCancelledError } from "../../stage";
import { normalizeLabel } from "../../text";
import type { EvidenceSelection, ScoredEvidence } from "../../contracts";
import { kbContributions } from "./contributions";
import { DEFAULT_SELECTED_EVIDENCE, MAX_SUPPORTING_SHARE, NEAR_BEST_RATIO, type SelectEvidenceInput, selectEvidence } from "./classical";

/**
 * The LLM select-evidence strategy (OmniRetrieval's cross-source selection by a model): the model reads
 * each KB's queries and best evidence and picks the KB whose results answer the question. The kept
 * evidence is then built as classically: the winner's pieces first, with a bounded share of other
 * KBs' pieces that score nearly as well. With evidence from one KB only there is nothing to choose,
 * and the classical selection runs without a call (the trace says so).
 */

const PIECES_PER_SOURCE = 5;
const PIECE_CHARS = 400;
const QUERY_CHARS = 300;

/** The kept evidence for a winner the model chose (when it differs from the classical winner). */
export function evidenceFor(input: SelectEvidenceInput, winnerKbId: string): ScoredEvidence[] {
  const limit = Math.max(1, input.limit ?? DEFAULT_SELECTED_EVIDENCE);
  const maxSupporting = Math.floor(limit * MAX_SUPPORTING_SHARE);
  const best = input.ranked.reduce((m, e) => Math.max(m, e.score), 0);
  const own = input.ranked.filter((e) => e.piece.provenance.kb === winnerKbId);
  const supporting = input.ranked
    .filter((e) => e.piece.provenance.kb !== winnerKbId && best > 0 && e.score >= NEAR_BEST_RATIO * best)
    .slice(0, maxSupporting);
  const kept = new Set([...own.slice(0, limit - supporting.length), ...supporting]);
  return input.ranked.filter((e) => kept.has(e));
}

export interface LlmSelectEvidenceStrategy extends StageStrategy<SelectEvidenceInput, EvidenceSelection> {
  describe(): string;
}

export function llmSelectEvidence(session: LlmSession): LlmSelectEvidenceStrategy {
  let ran = "llm";
  return {
    name: "llm",
    describe: () => ran,
    async run(input: SelectEvidenceInput, ctx: StageContext): Promise<EvidenceSelection> {
      if (ctx.signal.aborted) throw new RunCancelledError();
      ran = "llm";
      const classical = selectEvidence(input);
      if (classical.result) {
        // A structured source's answer query committed (commit.ts): its result is the answer, nothing to choose.
        ran = "classical (an answer query committed)";
        return { winner: classical.winner, evidence: classical.evidence, result: classical.result };
      }
      const contributions = kbContributions(input.ranked, input.candidates, input.executed).filter((c) => c.pieces.length > 0);
      if (contributions.length < 2) {
        ran = "classical (one source returned evidence: nothing to choose)";
        return { winner: classical.winner, evidence: classical.evidence };
      }
      const aliasOf = new Map(contributions.map((c, i) => [c.kbId, `K${i + 1}`]));
      const kindOf = new Map(input.candidates.map((c) => [c.kbId, c.kind]));
      const sources: SourceResults[] = contributions.map((c) => ({
        id: aliasOf.get(c.kbId)!,
        name: c.kbName,
        kind: kindOf.get(c.kbId) ?? input.executed.find((q) => q.kbId === c.kbId)?.kind ?? "",
        queries: input.executed
          .filter((q) => q.kbId === c.kbId)
          .map((q) => ({ language: q.query.language, query: clip(q.query.text, QUERY_CHARS), status: q.status, rows: q.rows })),
        evidence: c.pieces.slice(0, PIECES_PER_SOURCE).map((e) => clip(e.piece.text, PIECE_CHARS)),
      }));
      const out = await session.call("select-evidence", ctx, selectEvidencePrompt({ intent: input.intent, sources }));
      if (out.kb === null || !out.kb.trim()) {
        ctx.trace({
          stage: "select-evidence",
          type: "INFO",
          strategy: "llm",
          summary: `The model found no source whose results answer the question: ${clip(out.reason, 300)}`,
        });
        return { winner: null, evidence: classical.evidence };
      }
      const t = out.kb.trim();
      const chosen = contributions.find(
        (c) => aliasOf.get(c.kbId)?.toLowerCase() === t.toLowerCase() || c.kbId === t || normalizeLabel(c.kbName) === normalizeLabel(t),
      );
      if (!chosen)
        throw new LlmError(
          "invalid_output",
          `the model chose ${JSON.stringify(clip(t, 60))}, which is not one of the sources with evidence`,
        );
      const reason = `model: ${clip(out.reason, 300) || "no reason given"}`;
      const evidence = classical.winner?.kbId === chosen.kbId ? classical.evidence : evidenceFor(input, chosen.kbId);
      ctx.trace({
        stage: "select-evidence",
        type: "INFO",
        strategy: "llm",
        summary: `${chosen.kbName} chosen by the model${classical.winner && classical.winner.kbId !== chosen.kbId ? ` (the classical selection preferred ${classical.winner.kbName})` : ""}. Kept ${evidence.length} pieces.`,
        payload: { winner: chosen.kbId, classicalWinner: classical.winner?.kbId ?? null, reason: out.reason },
      });
      return { winner: { kbId: chosen.kbId, kbName: chosen.kbName, reason }, evidence };
    },
  };
}
