import type { TermData, TripleData } from "@/lib/backends/types";

function localName(iri: string): string {
  const m = /[#/:]([^#/:]+)$/.exec(iri);
  return m ? m[1] : iri;
}

function Term({ term, role }: { term: TermData; role: "Subject" | "Predicate" | "Object" }) {
  const detail =
    term.termType === "Literal"
      ? [term.language ? `@${term.language}` : null, term.datatype ? localName(term.datatype) : null].filter(Boolean).join(" · ") ||
        "literal"
      : term.termType === "BlankNode"
        ? "blank node"
        : term.value;
  return (
    <div
      className={`min-w-0 rounded-md border px-3 py-2 ${role === "Predicate" ? "border-emerald-200 bg-emerald-50" : "border-slate-200 bg-white"}`}
    >
      <p className="text-[11px] font-medium uppercase tracking-wide text-slate-500">{role}</p>
      <p className="break-words text-sm font-semibold text-slate-900" data-testid={`triple-${role.toLowerCase()}`}>
        {term.label || term.value}
      </p>
      <p className="break-all font-mono text-[11px] leading-snug text-slate-500">{detail}</p>
    </div>
  );
}

/** An RDF triple with readable labels; the IRIs stay visible underneath for those who need them. */
export function TripleView({ data }: { data: TripleData }) {
  return (
    <div className="grid items-stretch gap-2 sm:grid-cols-[minmax(0,1fr)_auto_minmax(0,1fr)_auto_minmax(0,1fr)]" data-testid="triple-view">
      <Term term={data.subject} role="Subject" />
      <span aria-hidden className="hidden self-center text-slate-400 sm:block">
        →
      </span>
      <Term term={data.predicate} role="Predicate" />
      <span aria-hidden className="hidden self-center text-slate-400 sm:block">
        →
      </span>
      <Term term={data.object} role="Object" />
    </div>
  );
}
