"use client";

import Link from "next/link";
import type { TurnView } from "@/lib/runs/types";
import { StatusPill } from "./status-pill";
import { turnAnswerText } from "./figures";
import { useLocale } from "../ui/locale";

/** The earlier questions of the conversation, compact; each reopens in full. */
export function Thread({ turns }: { turns: TurnView[] }) {
  const locale = useLocale();
  if (!turns.length) return null;
  return (
    <section aria-labelledby="thread-heading" className="space-y-2">
      <h2 id="thread-heading" className="text-xs font-semibold uppercase tracking-wide text-slate-500">
        Earlier in this conversation
      </h2>
      <ol className="space-y-2" data-testid="thread">
        {turns.map((t) => (
          <li
            key={t.id}
            className="flex items-start gap-3 rounded-lg border border-slate-200 bg-white px-4 py-2.5 text-sm"
            data-testid="thread-turn"
          >
            <div className="min-w-0 flex-1">
              <p className="truncate font-medium text-slate-900" title={t.question}>
                {t.question}
              </p>
              <p className="truncate text-slate-600">
                {(t.outcome === "answered" || t.outcome === "uncertain") && t.answer
                  ? `${t.outcome === "uncertain" ? "Closest answer, not certain: " : ""}${turnAnswerText(t, locale)}`
                  : (t.refrainReason ?? "No answer")}
              </p>
            </div>
            <StatusPill status={t.status} outcome={t.outcome} />
            <Link
              href={`/ask?run=${encodeURIComponent(t.id)}`}
              prefetch={false}
              className="shrink-0 text-sm font-medium text-brand-700 hover:underline"
              aria-label={`Reopen: ${t.question}`}
            >
              Reopen
            </Link>
          </li>
        ))}
      </ol>
    </section>
  );
}
