import { markTerms } from "./highlight-terms";

/** Text with the question's matching words in <mark>. */
export function MarkedText({ text, terms }: { text: string; terms: readonly string[] }) {
  return (
    <>
      {markTerms(text, terms).map((s, i) =>
        s.hit ? (
          <mark key={i} className="rounded-sm bg-amber-200/80 px-0.5 text-slate-900" data-testid="term-hit">
            {s.text}
          </mark>
        ) : (
          <span key={i}>{s.text}</span>
        ),
      )}
    </>
  );
}
