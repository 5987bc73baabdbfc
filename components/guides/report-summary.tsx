import Link from "next/link";
import type { ReviewItem } from "@/lib/feedback/queue";
import { DateTime } from "../ui/locale";

/** The wrong-answer report being resolved: what was asked, what the run said, what the reporter says is right. */
export function ReportSummary({ item, headingLevel = 2 }: { item: ReviewItem; headingLevel?: 2 | 3 }) {
  const H = headingLevel === 2 ? "h2" : "h3";
  return (
    <section aria-label="Wrong-answer report" className="rounded-lg border border-amber-200 bg-amber-50/60 p-4 text-sm">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <H className="font-semibold text-amber-900">Reported wrong by {item.reporter.name}</H>
        <span className="text-xs text-slate-600">
          <DateTime value={item.createdAt} />
        </span>
      </div>
      <dl className="mt-2 grid gap-x-4 gap-y-1.5 sm:grid-cols-[9rem_minmax(0,1fr)]">
        <dt className="text-slate-600">Question</dt>
        <dd className="font-medium">{item.run.question}</dd>
        <dt className="text-slate-600">Run&apos;s answer</dt>
        <dd>
          {item.run.refrained || !item.run.answer ? (
            <span className="italic text-slate-600">No answer (the run refrained)</span>
          ) : (
            item.run.answer
          )}
        </dd>
        <dt className="text-slate-600">Correct answer</dt>
        <dd>{item.correctAnswer ?? <span className="italic text-slate-600">Not given</span>}</dd>
        <dt className="text-slate-600">Comment</dt>
        <dd className="whitespace-pre-wrap">{item.comment ?? <span className="italic text-slate-600">None</span>}</dd>
      </dl>
      <Link href={`/ask?run=${item.run.id}`} className="mt-2 inline-block font-medium text-brand-700 hover:underline">
        Open the run
      </Link>
    </section>
  );
}
