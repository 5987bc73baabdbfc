import { isBackendError } from "../../backends/errors";
import { openBackend, type KbRecord } from "../../backends/registry";
import type { EvidencePiece } from "../../backends/types";
import type { CatalogDeps } from "../../deps";
import type { Embedder } from "../../models/types";
import { remainingMs, type StageContext, type StageStrategy } from "../stage";
import type { ExecutedQuery, FormulatedQuery } from "../types";

export interface ExecuteInput {
  queries: FormulatedQuery[];
  kbs: Map<string, KbRecord>;
  deps: CatalogDeps;
  queryTimeoutMs: number;
  maxRows: number;
  /** Row cap of answer queries (their result is the answer); default `maxRows`. */
  answerRowCap?: number;
  /** Document collections search hybrid (BM25 + vectors) with it; absent or null = BM25 only. */
  embedder?: Embedder | null;
}

export interface ExecuteOutput {
  executed: ExecutedQuery[];
  pieces: EvidencePiece[];
}

const STATUS_OF: Record<string, ExecutedQuery["status"]> = {
  UNSAFE_QUERY: "refused",
  QUERY_SYNTAX: "refused",
  QUERY_TIMEOUT: "timeout",
  KB_UNAVAILABLE: "unavailable",
  KB_CONFIG: "unavailable",
  QUERY_FAILED: "error",
};

/**
 * Runs every formulated query through its backend (read-only, capped, time-bounded), in parallel
 * across KBs, and verbalizes the results. A KB that is down or slow is recorded on its query and the
 * run goes on with what the others returned.
 */
export async function executeQueries(input: ExecuteInput, ctx: StageContext): Promise<ExecuteOutput> {
  const results = await Promise.all(
    input.queries.map(async (q): Promise<{ executed: ExecutedQuery; pieces: EvidencePiece[] }> => {
      const started = performance.now();
      const kb = input.kbs.get(q.kbId);
      if (!kb) {
        return {
          executed: {
            ...q,
            status: "unavailable",
            error: "The knowledge base is no longer available.",
            rows: 0,
            truncated: false,
            ms: 0,
            evidenceIds: [],
          },
          pieces: [],
        };
      }
      try {
        const backend = openBackend(kb, input.deps);
        const timeoutMs = Math.min(input.queryTimeoutMs, remainingMs(ctx));
        const maxRows = q.role === "answer" ? (input.answerRowCap ?? input.maxRows) : input.maxRows;
        const result = await backend.execute(q.query, { timeoutMs, maxRows, signal: ctx.signal, embedder: input.embedder });
        const pieces = backend.verbalize(result, { sourceObject: q.sourceObject ?? undefined });
        const ms = Math.round(performance.now() - started);
        return {
          executed: {
            ...q,
            status: result.records.length ? "ok" : "empty",
            rows: result.records.length,
            truncated: result.truncated,
            ms,
            evidenceIds: pieces.map((p) => p.id),
          },
          pieces,
        };
      } catch (e) {
        const ms = Math.round(performance.now() - started);
        const status = isBackendError(e) ? (STATUS_OF[e.code] ?? "error") : "error";
        return { executed: { ...q, status, error: (e as Error).message, rows: 0, truncated: false, ms, evidenceIds: [] }, pieces: [] };
      }
    }),
  );
  return { executed: results.map((r) => r.executed), pieces: results.flatMap((r) => r.pieces) };
}

export const classicalExecute: StageStrategy<ExecuteInput, ExecuteOutput> = { name: "classical", run: executeQueries };
