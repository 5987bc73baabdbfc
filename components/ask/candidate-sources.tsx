import type { RunOutcome } from "@/lib/pipeline/run";
import { answeredFromKbs } from "@/lib/runs/answered-from";
import { guideLikeness, matchAgainstBest } from "@/lib/format/strength";
import { KindBadge } from "../kb/status-badge";

const REASON_LABELS: Record<string, string> = {
  terms: "Matching words",
  entity: "Linked entity",
  guide: "Similar guide",
  description: "Description",
  meaning: "Similar meaning",
  requested: "You chose it",
};

/**
 * The candidate sources the run selected, how well each matched against the best one, and why. The scores
 * and the reasons' weights are the pipeline's own scale: in words here, as numbers in the trace.
 */
export function CandidateSources({ outcome }: { outcome: RunOutcome }) {
  if (!outcome.candidates.length)
    return (
      <p className="text-sm text-slate-600" data-testid="no-candidate-sources">
        No source matched the words of this question, so none was searched.
      </p>
    );
  // "Answered from here" only where there is an answer: a refused run's best-evidence source answered nothing.
  const answeredFrom = answeredFromKbs(outcome);
  const top = Math.max(...outcome.candidates.map((c) => c.score), 0.0001);
  return (
    <div className="space-y-3">
      <ul className="space-y-3" data-testid="candidate-sources">
        {outcome.candidates.map((c) => (
          <li key={c.kbId} className="rounded-lg border border-slate-200 bg-white p-4" data-testid="candidate">
            <div className="flex flex-wrap items-center gap-2">
              <span className="font-medium">{c.kbName}</span>
              <KindBadge kind={c.kind} />
              {answeredFrom.has(c.kbId) && (
                <span className="rounded bg-emerald-50 px-1.5 py-0.5 text-xs font-medium text-emerald-800" data-testid="answered-from-here">
                  Answered from here
                </span>
              )}
              <span className="ml-auto flex items-center gap-2 text-xs text-slate-600">
                <span aria-hidden className="h-1.5 w-24 overflow-hidden rounded-full bg-slate-100">
                  <span className="block h-full bg-brand-500" style={{ width: `${Math.round((c.score / top) * 100)}%` }} />
                </span>
                <span className="font-medium text-slate-800" data-testid="candidate-match">
                  {matchAgainstBest(c.score, top)}
                </span>
              </span>
            </div>
            <ul className="mt-2 space-y-1 text-sm">
              {c.reasons.map((r, i) => (
                <li key={i} className="grid grid-cols-[8rem_minmax(0,1fr)] gap-2">
                  <span className="text-slate-500">{REASON_LABELS[r.type] ?? r.type}</span>
                  <span className="break-words text-slate-700">{r.detail}</span>
                </li>
              ))}
            </ul>
            {c.sourceObjects.length > 0 && (
              <p className="mt-2 truncate text-xs text-slate-500" title={c.sourceObjects.join(", ")}>
                Source objects: {c.sourceObjects.join(", ")}
              </p>
            )}
          </li>
        ))}
      </ul>
      {outcome.guides.length > 0 && (
        <div className="text-sm">
          <p className="font-medium">Extraction guides used</p>
          <ul className="mt-1 list-disc pl-5 text-slate-700">
            {outcome.guides.map((g) => (
              <li key={g.guideId}>
                “{g.question}” <span className="text-xs text-slate-500">({guideLikeness(g.score)})</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
