import type { PassageData } from "@/lib/backends/types";
import { MarkedText } from "./marked-text";

/** A document passage: its sentences with the question's words marked, and where it sits in the document. */
export function PassageView({ data, text, terms }: { data: PassageData; text: string; terms: readonly string[] }) {
  const sentences = data.sentences?.length ? data.sentences : [text];
  const first = data.firstSentenceIndex;
  const where = [
    `passage ${data.chunkIndex + 1}`,
    first !== undefined ? (sentences.length > 1 ? `sentences ${first + 1}–${first + sentences.length}` : `sentence ${first + 1}`) : null,
    data.start !== undefined && data.end !== undefined
      ? `characters ${data.start.toLocaleString("en")}–${data.end.toLocaleString("en")}`
      : null,
  ].filter(Boolean);
  return (
    <div className="space-y-2" data-testid="passage-view">
      <p className="text-xs text-slate-600">
        <span className="font-medium text-slate-800" data-testid="passage-document">
          {data.documentTitle}
        </span>{" "}
        · {where.join(" · ")}
      </p>
      <blockquote className="border-l-4 border-amber-300 bg-amber-50/40 py-2 pl-3 pr-2 text-sm leading-relaxed text-slate-800">
        {sentences.map((s, i) => (
          <span key={i}>
            <MarkedText text={s} terms={terms} />{" "}
          </span>
        ))}
      </blockquote>
    </div>
  );
}
