"use client";

import { useQuery } from "@tanstack/react-query";
import { documentSentencesAction, listCollectionDocumentsAction, previewSourceObjectAction } from "@/lib/actions/source-objects";
import { unwrap } from "@/lib/actions/unwrap";
import type { SourceObjectRow } from "@/lib/catalog/source-objects";
import { count } from "@/lib/format/count";
import type { GuideActionKind } from "@/lib/pipeline/guide-actions";
import { SentenceSelector } from "../source-objects/sentence-selector";
import { TableSelector } from "../source-objects/table-selector";
import { Alert } from "../ui/alert";
import { Field, SelectInput } from "../ui/field";

export type KbKind = "DOCUMENTS" | "SQL" | "SPARQL" | "CYPHER";
export type Params = Record<string, unknown>;

export const LANGUAGE_OF: Record<KbKind, "search" | "sql" | "sparql" | "cypher"> = {
  DOCUMENTS: "search",
  SQL: "sql",
  SPARQL: "sparql",
  CYPHER: "cypher",
};

/** Which actions make sense on which kind of knowledge base. */
export const KINDS_FOR: Record<KbKind, GuideActionKind[]> = {
  DOCUMENTS: ["NATIVE_QUERY", "SELECT_COORDINATES", "SELECT_SENTENCE_IDXS"],
  SQL: ["NATIVE_QUERY", "SELECT_COORDINATES"],
  SPARQL: ["NATIVE_QUERY", "NEIGHBORHOOD"],
  CYPHER: ["NATIVE_QUERY", "NEIGHBORHOOD"],
};

export const ACTION_HELP: Record<GuideActionKind, string> = {
  NATIVE_QUERY: "A query in the knowledge base's own language; it runs read-only under the same safety checks as the pipeline's queries.",
  SELECT_COORDINATES:
    "Cells of a table: the rows and columns that hold the answer. On a database table it is saved as the SQL that reads those cells by key.",
  SELECT_SENTENCE_IDXS: "Sentences of one document, by position.",
  NEIGHBORHOOD: "The facts around graph entities, one or two hops out.",
};

export function emptyParams(kind: GuideActionKind, kbKind: KbKind): Params {
  switch (kind) {
    case "NATIVE_QUERY":
      return { query: { language: LANGUAGE_OF[kbKind], text: "" } };
    case "SELECT_COORDINATES":
      return { tableKey: "", rows: [], columns: [] };
    case "SELECT_SENTENCE_IDXS":
      return { documentId: "", sentenceIdxs: [] };
    case "NEIGHBORHOOD":
      return { entities: [], hops: 1, byName: kbKind === "CYPHER" };
  }
}

type SearchFilters = { documentIds?: string[]; contentType?: "text" | "table"; sourceObject?: string };

/** A document search's restriction, in words ("the table Table 1 of …"), or null when it searches everything. */
function describeFilters(filters: SearchFilters | undefined, objects: SourceObjectRow[]): string | null {
  if (!filters) return null;
  const parts: string[] = [];
  if (filters.sourceObject) parts.push(`“${objects.find((o) => o.key === filters.sourceObject)?.name ?? filters.sourceObject}”`);
  if (filters.contentType) parts.push(filters.contentType === "table" ? "table rows" : "text passages");
  if (filters.documentIds?.length) parts.push(count(filters.documentIds.length, "document"));
  return parts.length ? parts.join(", ") : null;
}

const QUERY_PLACEHOLDER: Record<KbKind, string> = {
  DOCUMENTS: "Search text, e.g. hotel cap per night Oslo",
  SQL: "SELECT COUNT(*) FROM orders WHERE status = 'returned'",
  SPARQL: 'SELECT ?ceo WHERE { ?ceo ex:ceoOf ?org . ?org rdfs:label "Aurora Outfitters GmbH" }',
  CYPHER: "MATCH (p:Person)-[:ACTED_IN]->(m:Movie {title: 'The Matrix'}) RETURN p.name",
};

type FieldErrors = Record<string, string>;

/** A message under a control that is not a single labelled input (a table or a list to tick in). */
function FieldProblem({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={id} className="text-xs text-rose-700" role="alert">
      {message}
    </p>
  );
}

/**
 * The parameter form for one action kind; every change goes through onChange (which clears the captured
 * context). `errors` holds what is missing, by parameter field, shown next to that field.
 */
export function ActionParamsEditor({
  id,
  kind,
  kbKind,
  params,
  objects,
  errors = {},
  onChange,
}: {
  id: string;
  kind: GuideActionKind;
  kbKind: KbKind;
  params: Params;
  objects: SourceObjectRow[];
  errors?: FieldErrors;
  onChange: (params: Params) => void;
}) {
  switch (kind) {
    case "NATIVE_QUERY": {
      const query = (params.query ?? {}) as { text?: string; language?: string; filters?: SearchFilters };
      const restriction = describeFilters(query.filters, objects);
      return (
        <div className="space-y-1">
          <Field
            id={`${id}-query`}
            label={kbKind === "DOCUMENTS" ? "Search text" : `${LANGUAGE_OF[kbKind].toUpperCase()} query`}
            error={errors["query.text"]}
          >
            <textarea
              id={`${id}-query`}
              aria-invalid={!!errors["query.text"] || undefined}
              aria-describedby={errors["query.text"] ? `${id}-query-error` : undefined}
              rows={kbKind === "DOCUMENTS" ? 2 : 5}
              value={query.text ?? ""}
              placeholder={QUERY_PLACEHOLDER[kbKind]}
              spellCheck={false}
              onChange={(e) => onChange({ ...params, query: { ...query, language: LANGUAGE_OF[kbKind], text: e.target.value } })}
              className="block w-full rounded-md border border-slate-300 px-3 py-2 font-mono text-xs aria-[invalid=true]:border-rose-500"
            />
          </Field>
          {restriction && (
            <p className="flex flex-wrap items-center gap-2 text-xs text-slate-600">
              <span>Searches only {restriction}.</span>
              <button
                type="button"
                className="text-brand-700 hover:underline"
                onClick={() => onChange({ ...params, query: { language: query.language, text: query.text ?? "" } })}
              >
                Search everything instead
              </button>
            </p>
          )}
        </div>
      );
    }
    case "SELECT_COORDINATES":
      return <CoordinatesParams id={id} params={params} objects={objects} errors={errors} onChange={onChange} />;
    case "SELECT_SENTENCE_IDXS":
      return <SentenceParams id={id} params={params} objects={objects} errors={errors} onChange={onChange} />;
    case "NEIGHBORHOOD": {
      const entities = (params.entities as string[] | undefined) ?? [];
      return (
        <div className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_10rem]">
          <Field
            id={`${id}-entities`}
            label="Entities"
            error={errors.entities}
            hint={
              kbKind === "SPARQL"
                ? "One resource IRI per line."
                : params.byName
                  ? "One name per line (matched against the name/title property)."
                  : "One node element id per line."
            }
          >
            <textarea
              id={`${id}-entities`}
              aria-invalid={!!errors.entities || undefined}
              rows={3}
              value={entities.join("\n")}
              spellCheck={false}
              onChange={(e) =>
                onChange({
                  ...params,
                  entities: e.target.value
                    .split("\n")
                    .map((l) => l.trim())
                    .filter(Boolean),
                })
              }
              className="block w-full rounded-md border border-slate-300 px-3 py-2 font-mono text-xs"
            />
          </Field>
          <div className="space-y-3">
            <Field id={`${id}-hops`} label="Hops" error={errors.hops}>
              <SelectInput
                id={`${id}-hops`}
                value={String(params.hops ?? 1)}
                onChange={(e) => onChange({ ...params, hops: Number(e.target.value) })}
              >
                <option value="1">1 hop</option>
                <option value="2">2 hops</option>
              </SelectInput>
            </Field>
            {kbKind === "CYPHER" && (
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={!!params.byName}
                  onChange={(e) => onChange({ ...params, byName: e.target.checked })}
                  className="h-4 w-4 accent-brand-600"
                />
                Match by name
              </label>
            )}
          </div>
        </div>
      );
    }
  }
}

function CoordinatesParams({
  id,
  params,
  objects,
  errors,
  onChange,
}: {
  id: string;
  params: Params;
  objects: SourceObjectRow[];
  errors: FieldErrors;
  onChange: (p: Params) => void;
}) {
  const tables = objects.filter((o) => o.contentType === "TABLE" && o.mode === "STATIC");
  const tableKey = (params.tableKey as string) || "";
  const table = tables.find((t) => t.key === tableKey);
  const preview = useQuery({
    queryKey: ["source-object-preview", table?.id, "grid"],
    queryFn: () => unwrap(previewSourceObjectAction({ id: table!.id, limit: 200 })),
    enabled: !!table,
  });
  const rows = (params.rows as number[] | undefined) ?? [];
  const rawColumns = (params.columns as (number | string)[] | undefined) ?? [];
  const grid = preview.data?.kind === "table" ? preview.data : null;
  const columnIdx = grid ? rawColumns.map((c) => (typeof c === "number" ? c : grid.columns.indexOf(c))).filter((j) => j >= 0) : [];
  return (
    <div className="space-y-2">
      <Field id={`${id}-table`} label="Table" error={errors.tableKey}>
        <SelectInput
          id={`${id}-table`}
          invalid={!!errors.tableKey}
          value={tableKey}
          onChange={(e) => onChange({ tableKey: e.target.value, rows: [], columns: [] })}
        >
          <option value="">Choose a table…</option>
          {tables.map((t) => (
            <option key={t.id} value={t.key}>
              {t.name}
            </option>
          ))}
          {tableKey && !table && <option value={tableKey}>{tableKey} (not found)</option>}
        </SelectInput>
      </Field>
      {!tables.length && <p className="text-xs text-slate-500">This knowledge base has no tables.</p>}
      {table && preview.isPending && <p className="text-sm text-slate-500">Loading the table…</p>}
      {preview.error && <Alert tone="error">{preview.error.message}</Alert>}
      {grid && (
        <TableSelector
          title={grid.title}
          columns={grid.columns}
          rows={grid.rows}
          totalRows={grid.totalRows}
          truncated={grid.truncated}
          selectedRows={rows}
          selectedColumns={columnIdx}
          onChange={(next) => {
            const unique = new Set(grid.columns).size === grid.columns.length;
            onChange({ tableKey, rows: next.rows, columns: unique ? next.columns.map((j) => grid.columns[j]) : next.columns });
          }}
        />
      )}
      <FieldProblem id={`${id}-rows-error`} message={errors.rows} />
      <FieldProblem id={`${id}-columns-error`} message={errors.columns} />
    </div>
  );
}

function SentenceParams({
  id,
  params,
  objects,
  errors,
  onChange,
}: {
  id: string;
  params: Params;
  objects: SourceObjectRow[];
  errors: FieldErrors;
  onChange: (p: Params) => void;
}) {
  const collection = objects.find((o) => o.key === "collection" && o.contentType === "TEXT");
  const docs = useQuery({
    queryKey: ["collection-documents", collection?.id],
    queryFn: () => unwrap(listCollectionDocumentsAction({ id: collection!.id })),
    enabled: !!collection,
  });
  const documentId = (params.documentId as string) || "";
  const selected = (params.sentenceIdxs as number[] | undefined) ?? [];
  const sentences = useQuery({
    queryKey: ["document-sentences", collection?.id, documentId],
    queryFn: () => unwrap(documentSentencesAction({ id: collection!.id, documentId })),
    enabled: !!collection && !!documentId,
  });
  if (!collection) return <p className="text-xs text-slate-500">Choose a document collection for this source.</p>;
  return (
    <div className="space-y-2">
      <Field id={`${id}-document`} label="Document" error={errors.documentId}>
        <SelectInput
          id={`${id}-document`}
          invalid={!!errors.documentId}
          value={documentId}
          onChange={(e) => onChange({ documentId: e.target.value, sentenceIdxs: [] })}
        >
          <option value="">Choose a document…</option>
          {(docs.data ?? []).map((d) => (
            <option key={d.id} value={d.id}>
              {d.title} ({count(d.sentences, "sentence")})
            </option>
          ))}
        </SelectInput>
      </Field>
      {docs.error && <Alert tone="error">{docs.error.message}</Alert>}
      {sentences.error && <Alert tone="error">{sentences.error.message}</Alert>}
      {sentences.data && (
        <SentenceSelector
          title={docs.data?.find((d) => d.id === documentId)?.title ?? documentId}
          sentences={sentences.data.sentences}
          selected={selected}
          onChange={(next) => onChange({ documentId, sentenceIdxs: next })}
        />
      )}
      <FieldProblem id={`${id}-sentences-error`} message={errors.sentenceIdxs} />
    </div>
  );
}
