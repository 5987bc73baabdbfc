"use client";

/**
 * A document's sentences, numbered from 1 on screen (the selection keeps AU-RAG's positions, from 0),
 * each with a checkbox whose label is the sentence itself.
 */
export function SentenceSelector({
  title,
  sentences,
  selected,
  onChange,
}: {
  title: string;
  sentences: string[];
  selected: number[];
  onChange: (next: number[]) => void;
}) {
  return (
    <fieldset className="max-h-[28rem] overflow-auto rounded border border-slate-200 bg-white p-2 text-sm leading-relaxed">
      <legend className="sr-only">Sentences of {title}</legend>
      <ol className="space-y-0.5">
        {sentences.map((s, i) => {
          const on = selected.includes(i);
          return (
            <li key={i}>
              <label className={`flex cursor-pointer gap-2 rounded px-1.5 py-1 ${on ? "bg-brand-50 text-brand-700" : "hover:bg-slate-50"}`}>
                <input
                  type="checkbox"
                  checked={on}
                  onChange={() => onChange(on ? selected.filter((x) => x !== i) : [...selected, i].sort((a, b) => a - b))}
                  className="mt-1 h-3.5 w-3.5 shrink-0 accent-brand-600"
                />
                <span className="w-6 shrink-0 text-right text-xs tabular-nums text-slate-400" aria-hidden>
                  {i + 1}
                </span>
                <span>{s}</span>
              </label>
            </li>
          );
        })}
      </ol>
    </fieldset>
  );
}
