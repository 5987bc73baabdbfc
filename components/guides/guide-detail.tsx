import Link from "next/link";
import { count } from "@/lib/format/count";
import { guideLikeness } from "@/lib/format/strength";
import { describeActionPlainly, languageName } from "@/lib/guides/action-names";
import { parseGuideAction } from "@/lib/pipeline/guide-actions";
import type { GuideDetail } from "@/lib/guides/types";
import { StatusPill } from "../ask/status-pill";
import { KindBadge } from "../kb/status-badge";
import { ActionKindBadge } from "./action-kind-badge";
import { DateTime } from "../ui/locale";

function nativeQueryLabel(params: unknown): string {
  const q = (params as { query: { language: string; filters?: { sourceObject?: string; contentType?: string } } }).query;
  const language = q.language === "search" ? "Search" : languageName(q.language);
  const only = q.filters?.sourceObject
    ? ` within ${q.filters.sourceObject}`
    : q.filters?.contentType
      ? ` in ${q.filters.contentType === "table" ? "table rows" : "text passages"}`
      : "";
  return `${language}${only}`;
}

/** A guide as the pipeline sees it: question, answer, sources with actions and contexts; and where it helped. */
export function GuideDetailView({ guide }: { guide: GuideDetail }) {
  const hidden = guide.helped.total - guide.helped.runs.length;
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_20rem]">
      <div className="min-w-0 space-y-6">
        <section aria-labelledby="answer-heading" className="rounded-lg border border-slate-200 bg-white p-5 text-sm">
          <h2 id="answer-heading" className="mb-2 font-semibold">
            Answer
          </h2>
          {guide.answer ? (
            <p className="whitespace-pre-wrap">{guide.answer}</p>
          ) : (
            <p className="italic text-slate-600">No fixed answer: the sources are read at question time.</p>
          )}
          {guide.notes && (
            <>
              <h3 className="mb-1 mt-4 font-semibold">Notes</h3>
              <p className="whitespace-pre-wrap text-slate-700">{guide.notes}</p>
            </>
          )}
          {guide.corrections.length > 0 && (
            <>
              <h3 className="mb-1 mt-4 font-semibold">Corrections</h3>
              <ul className="space-y-1.5">
                {guide.corrections.map((c, i) => (
                  <li key={i} className="rounded bg-slate-50 px-2 py-1.5">
                    <span className="text-slate-600">The run answered</span>{" "}
                    <span className="line-through decoration-rose-500">{c.runAnswer ?? "nothing"}</span>{" "}
                    <span className="text-slate-600">; correct:</span> <span className="font-medium">{c.correctAnswer}</span>
                    {c.comment && <span className="block text-xs text-slate-600">“{c.comment}”</span>}
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>

        <section aria-labelledby="sources-heading" className="space-y-4">
          <h2 id="sources-heading" className="text-lg font-semibold">
            Sources and retrieval actions
          </h2>
          {guide.sources.map((s, i) => (
            <article
              key={i}
              className="space-y-3 rounded-lg border border-slate-200 bg-white p-5 text-sm"
              aria-label={`Source ${i + 1}: ${s.kbName}`}
            >
              <header className="flex flex-wrap items-center gap-2">
                <KindBadge kind={s.kbKind} />
                <span className="font-semibold">{s.kbName}</span>
                {s.sourceObject && <span className="text-slate-600">· {s.sourceObject.name}</span>}
              </header>
              <ol className="space-y-3">
                {s.actions.map((a, j) => {
                  const parsed = parseGuideAction(a.kind, a.params);
                  return (
                    <li key={j} className="space-y-1.5 rounded-md border border-slate-100 bg-slate-50/60 p-3">
                      <div className="flex flex-wrap items-center gap-2">
                        <ActionKindBadge kind={a.kind} />
                        {!a.description || !parsed ? (
                          <span className="text-xs text-rose-700">
                            Malformed: the pipeline skips this action. Edit the guide to fix it.
                          </span>
                        ) : a.kind === "NATIVE_QUERY" ? (
                          <span className="text-xs text-slate-600">{nativeQueryLabel(a.params)}</span>
                        ) : (
                          <span className="break-words text-xs text-slate-700">
                            {describeActionPlainly(parsed, {
                              table:
                                parsed.kind === "SELECT_COORDINATES" && s.sourceObject?.key === parsed.params.tableKey
                                  ? s.sourceObject.name
                                  : undefined,
                            })}
                          </span>
                        )}
                      </div>
                      {a.kind === "NATIVE_QUERY" && a.description && (
                        <pre className="max-h-48 overflow-auto whitespace-pre-wrap rounded bg-slate-900 p-2 text-xs text-slate-100">
                          {(a.params as { query: { text: string } }).query.text}
                        </pre>
                      )}
                      <p className="text-xs font-semibold text-slate-600">Context</p>
                      {a.context ? (
                        <pre className="max-h-48 overflow-auto whitespace-pre-wrap break-words rounded border border-slate-200 bg-white p-2 font-sans text-xs text-slate-800">
                          {a.context}
                        </pre>
                      ) : (
                        <p className="text-xs italic text-slate-500">The action returned nothing when it was captured.</p>
                      )}
                    </li>
                  );
                })}
              </ol>
            </article>
          ))}
        </section>
      </div>

      <aside className="space-y-4">
        <section aria-labelledby="helped-heading" className="rounded-lg border border-slate-200 bg-white p-4 text-sm">
          <h2 id="helped-heading" className="font-semibold">
            Runs it helped
          </h2>
          <p className="mb-2 text-xs text-slate-500">Questions for which the pipeline retrieved this guide.</p>
          {guide.helped.runs.length === 0 ? (
            <p className="text-slate-600">
              {guide.helped.total === 0 ? "None yet. It is used when someone asks a similar question." : "None you can open."}
            </p>
          ) : (
            <ul className="space-y-2" data-testid="helped-runs">
              {guide.helped.runs.map((r) => (
                <li key={r.runId}>
                  <Link href={`/ask?run=${r.runId}`} className="font-medium text-brand-700 hover:underline">
                    {r.question}
                  </Link>
                  <span className="mt-0.5 flex flex-wrap items-center gap-1.5 text-xs text-slate-500">
                    <StatusPill status={r.status} />
                    {guideLikeness(r.score)} · {r.askedBy} · <DateTime value={r.createdAt} dateOnly />
                  </span>
                </li>
              ))}
            </ul>
          )}
          {hidden > 0 && (
            <p className="mt-2 text-xs text-slate-500">
              {count(hidden, "more run")} not shown (older, or over knowledge bases you cannot use).
            </p>
          )}
        </section>
        <section className="rounded-lg border border-slate-200 bg-white p-4 text-xs text-slate-600">
          <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
            <dt>Created</dt>
            <dd>
              <DateTime value={guide.createdAt} />
              {guide.createdBy ? ` by ${guide.createdBy}` : ""}
            </dd>
            <dt>Updated</dt>
            <dd>
              <DateTime value={guide.updatedAt} />
            </dd>
            {guide.fromRunId && (
              <>
                <dt>From run</dt>
                <dd>
                  <Link href={`/ask?run=${guide.fromRunId}`} className="text-brand-700 hover:underline">
                    Open the run
                  </Link>
                </dd>
              </>
            )}
            <dt>Reports resolved</dt>
            <dd>{guide.resolvedReports}</dd>
          </dl>
        </section>
      </aside>
    </div>
  );
}
