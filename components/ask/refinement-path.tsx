import { queryStatusLabel, strategyInWords } from "@/lib/pipeline/strategy-words";
import type { Iteration } from "@/lib/pipeline/contracts";
import { QueryCode } from "../evidence/query-code";

export const FEEDBACK_LABELS: Record<string, string> = {
  wrong_entity: "Wrong entity",
  missing_entity: "Missing entity",
  wrong_relation: "Wrong relation",
  missing_relation: "Missing relation",
  empty_result: "Empty result",
  no_intersection: "No common answer",
  wrong_source: "Wrong source",
  wrong_module: "Wrong kind of query",
  next_batch: "Look further down",
};

const STATUS_STYLE: Record<string, string> = {
  ok: "bg-emerald-50 text-emerald-800",
  empty: "bg-slate-100 text-slate-700",
  refused: "bg-rose-50 text-rose-800",
  timeout: "bg-amber-50 text-amber-800",
  error: "bg-rose-50 text-rose-800",
  unavailable: "bg-amber-50 text-amber-800",
};

const LANGUAGE_OF_STRATEGY: Record<string, string> = {
  search: "search",
  "schema-linking": "sql",
  "sparql-pattern": "sparql",
  neighborhood: "sparql",
};

function languageOf(text: string, strategy: string): string {
  if (/^\s*(prefix|select\s+\?|select\s+distinct\s+\?|construct|ask)\b/i.test(text)) return "sparql";
  if (/^\s*(match|optional\s+match|call|with)\b/i.test(text)) return "cypher";
  if (/^\s*(select|with)\b/i.test(text)) return "sql";
  return LANGUAGE_OF_STRATEGY[strategy] ?? "search";
}

/** Which round's answer the run kept: the accepted one, else the first round that gave the final answer. */
function keptRound(iterations: Iteration[], finalText: string, finalReason: string | null, refrained: boolean): number | null {
  const accepted = iterations.find((i) => i.accepted);
  if (accepted) return accepted.round;
  // Rounds record their answer as the text, or as "refrained: <reason>" (lib/pipeline/run.ts).
  const target = refrained ? `refrained: ${finalReason}` : finalText;
  // The run keeps its first round unless a later one does better, so the earliest round with that answer.
  const same = iterations.find((i) => i.answer === target);
  return same?.round ?? null;
}

/**
 * The critic's rounds (HybGRAG's refinement path): per round the sources and queries tried, the answer it
 * gave, the critic's verdict and feedback, and what that feedback changed for the next round.
 */
export function RefinementPath({
  iterations,
  finalText,
  finalReason,
  refrained,
}: {
  iterations: Iteration[];
  finalText: string;
  finalReason: string | null;
  refrained: boolean;
}) {
  if (!iterations.length)
    return <p className="text-sm text-slate-600">The run stopped before any round completed, so there is no refinement path.</p>;
  const kept = keptRound(iterations, finalText, finalReason, refrained);
  return (
    <ol className="relative space-y-4 border-l-2 border-slate-200 pl-5" data-testid="refinement-path">
      {iterations.map((it) => (
        <li key={it.round} className="relative" data-testid="refinement-round">
          <span
            aria-hidden
            className={`absolute -left-[27px] top-1 h-3.5 w-3.5 rounded-full ring-4 ring-slate-50 ${it.accepted ? "bg-emerald-500" : it.feedback ? "bg-amber-500" : "bg-slate-400"}`}
          />
          <div className="rounded-lg border border-slate-200 bg-white p-4">
            <div className="flex flex-wrap items-center gap-2">
              <h3 className="text-sm font-semibold">Round {it.round}</h3>
              {it.accepted ? (
                <span className="rounded bg-emerald-50 px-1.5 py-0.5 text-xs font-medium text-emerald-800">Critic accepted</span>
              ) : it.feedback ? (
                <span className="rounded bg-amber-50 px-1.5 py-0.5 text-xs font-medium text-amber-800">
                  Critic: {FEEDBACK_LABELS[it.feedback.type] ?? it.feedback.type}
                </span>
              ) : (
                <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs font-medium text-slate-700">
                  Not accepted; nothing left to try
                </span>
              )}
              {kept === it.round && (
                <span className="rounded bg-brand-50 px-1.5 py-0.5 text-xs font-medium text-brand-700">Answer kept</span>
              )}
            </div>
            <dl className="mt-2 grid grid-cols-[8rem_minmax(0,1fr)] gap-x-3 gap-y-1.5 text-sm">
              <dt className="text-slate-500">Sources tried</dt>
              <dd>{it.candidates.join(", ") || "none"}</dd>
              <dt className="text-slate-500">Queries</dt>
              <dd>
                {it.queries.length === 0 && "none"}
                <ul className="space-y-1">
                  {it.queries.map((q, i) => (
                    <li key={i}>
                      <details>
                        <summary className="cursor-pointer">
                          {q.kbName} · {strategyInWords(q.strategy)}{" "}
                          <span
                            className={`rounded px-1 text-xs ${STATUS_STYLE[q.status] ?? "bg-slate-100"}`}
                            data-testid="round-query-status"
                          >
                            {queryStatusLabel(q.status)}
                          </span>
                        </summary>
                        <div className="mt-1">
                          <QueryCode text={q.text} language={languageOf(q.text, q.strategy)} caption="Query" />
                        </div>
                      </details>
                    </li>
                  ))}
                </ul>
              </dd>
              <dt className="text-slate-500">Answer</dt>
              {/* Rounds store a refusal as "refrained: <reason>" (lib/pipeline/run/round.ts). */}
              <dd className="font-medium">
                {it.answer.startsWith("refrained: ") ? `No answer: ${it.answer.slice("refrained: ".length)}` : it.answer}
              </dd>
              {it.feedback && (
                <>
                  <dt className="text-slate-500">Feedback</dt>
                  <dd data-testid="round-feedback">
                    {it.feedback.detail}
                    {it.feedback.target && it.feedback.type !== "next_batch" && (
                      <span className="text-slate-500">
                        {" "}
                        (about “{it.feedback.type === "wrong_module" ? strategyInWords(it.feedback.target) : it.feedback.target}”)
                      </span>
                    )}
                  </dd>
                </>
              )}
              {it.change && (
                <>
                  <dt className="text-slate-500">What changed</dt>
                  <dd data-testid="round-change">{it.change}</dd>
                </>
              )}
            </dl>
          </div>
        </li>
      ))}
    </ol>
  );
}
