const STYLES: Record<string, { label: string; dot: string; text: string }> = {
  HEALTHY: { label: "Healthy", dot: "bg-emerald-500", text: "text-emerald-800" },
  PENDING: { label: "Pending", dot: "bg-slate-400", text: "text-slate-700" },
  DEGRADED: { label: "Degraded", dot: "bg-amber-500", text: "text-amber-800" },
  UNREACHABLE: { label: "Unreachable", dot: "bg-rose-500", text: "text-rose-800" },
  ERROR: { label: "Error", dot: "bg-rose-600", text: "text-rose-800" },
};

export function StatusBadge({ status, title }: { status: string; title?: string | null }) {
  const s = STYLES[status] ?? STYLES.PENDING;
  return (
    <span className={`inline-flex items-center gap-1.5 text-sm ${s.text}`} title={title ?? undefined} data-testid="kb-status">
      <span className={`h-2 w-2 rounded-full ${s.dot}`} aria-hidden />
      {s.label}
    </span>
  );
}

const KIND_LABELS: Record<string, string> = { DOCUMENTS: "Documents", SQL: "SQL", SPARQL: "RDF / SPARQL", CYPHER: "Neo4j / Cypher" };
const KIND_STYLES: Record<string, string> = {
  DOCUMENTS: "bg-amber-50 text-amber-800 ring-amber-200",
  SQL: "bg-brand-50 text-brand-700 ring-brand-100",
  SPARQL: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  CYPHER: "bg-rose-50 text-rose-800 ring-rose-200",
};

export function KindBadge({ kind }: { kind: string }) {
  return (
    <span className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ring-1 ${KIND_STYLES[kind] ?? ""}`}>
      {KIND_LABELS[kind] ?? kind}
    </span>
  );
}

export function kindLabel(kind: string): string {
  return KIND_LABELS[kind] ?? kind;
}
