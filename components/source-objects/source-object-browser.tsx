"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useMemo, useState } from "react";
import {
  createDynamicSourceObjectAction,
  listSourceObjectsAction,
  previewSourceObjectAction,
  refreshSourceObjectAction,
  updateSourceObjectAction,
} from "@/lib/actions/source-objects";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import type { SourceObjectRow } from "@/lib/catalog/source-objects";
import { count } from "@/lib/format/count";
import { KindBadge } from "../kb/status-badge";
import { PreviewView } from "../kb/preview-view";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, SelectInput, TextInput } from "../ui/field";
import { CoordinatesWorkbench, NativeQueryWorkbench, SentencesWorkbench } from "./retrieval-workbench";
import { DateTime } from "../ui/locale";
import { TableNotesEditor } from "./table-notes-editor";

const TYPE_LABEL = { TEXT: "Text", TABLE: "Table", GRAPH: "Graph" } as const;
/** The key of a document collection's own text unit (lib/backends/documents/records.ts). */
const COLLECTION_KEY = "collection";

export function SourceObjectBrowser({
  initial,
  kbs,
  fixedKbId,
}: {
  initial: SourceObjectRow[];
  kbs: { id: string; name: string; kind: string }[];
  /** When set (the KB detail page), the list shows only this KB and the KB filter is hidden. */
  fixedKbId?: string;
}) {
  const [kbId, setKbId] = useState(fixedKbId ?? "");
  const [contentType, setContentType] = useState("");
  const [tag, setTag] = useState("");
  const [q, setQ] = useState("");
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const filters = {
    kbId: kbId || undefined,
    contentType: (contentType || undefined) as "TEXT" | "TABLE" | "GRAPH" | undefined,
    tag: tag || undefined,
    q: q || undefined,
  };
  const isInitial = !contentType && !tag && !q && (kbId || "") === (fixedKbId ?? "");
  const {
    data: rows = [],
    isFetching,
    error,
  } = useQuery({
    queryKey: ["source-objects", filters],
    queryFn: () => unwrap(listSourceObjectsAction(filters)),
    initialData: isInitial ? initial : undefined,
  });
  // Tags from the first load and from what is shown now, so a tag just added can be filtered on at once.
  const allTags = useMemo(() => [...new Set([...initial, ...rows].flatMap((r) => r.tags))].sort(), [initial, rows]);
  const selected = rows.find((r) => r.id === selectedId) ?? null;

  return (
    <div className="grid gap-6 xl:grid-cols-[minmax(0,0.85fr)_minmax(0,1.15fr)]">
      <section aria-label="Source objects" className="min-w-0 space-y-3">
        <div className="flex flex-wrap items-end gap-3">
          {!fixedKbId && (
            <div className="w-56">
              <Field id="so-kb" label="Knowledge base">
                <SelectInput id="so-kb" value={kbId} onChange={(e) => setKbId(e.target.value)}>
                  <option value="">All</option>
                  {kbs.map((k) => (
                    <option key={k.id} value={k.id}>
                      {k.name}
                    </option>
                  ))}
                </SelectInput>
              </Field>
            </div>
          )}
          <div className="w-32">
            <Field id="so-type" label="Type">
              <SelectInput id="so-type" value={contentType} onChange={(e) => setContentType(e.target.value)}>
                <option value="">All</option>
                <option value="TEXT">Text</option>
                <option value="TABLE">Table</option>
                <option value="GRAPH">Graph</option>
              </SelectInput>
            </Field>
          </div>
          <div className="w-36">
            <Field id="so-tag" label="Tag">
              <SelectInput id="so-tag" value={tag} onChange={(e) => setTag(e.target.value)}>
                <option value="">Any</option>
                {allTags.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </SelectInput>
            </Field>
          </div>
          <div className="min-w-40 flex-1">
            <Field id="so-q" label="Search">
              <TextInput id="so-q" type="search" placeholder="Name or description" value={q} onChange={(e) => setQ(e.target.value)} />
            </Field>
          </div>
          <Button
            variant="secondary"
            onClick={() => {
              setCreating(true);
              setSelectedId(null);
            }}
          >
            New saved query
          </Button>
        </div>
        {error && <Alert tone="error">{error.message}</Alert>}
        <p className="text-xs text-slate-500" aria-live="polite">
          {isFetching ? "Loading…" : count(rows.length, "source object")}
        </p>
        {rows.length === 0 && !isFetching ? (
          <div className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-600">
            No source objects match.{" "}
            {kbs.length === 0
              ? "Register a knowledge base first: its tables, classes, labels and documents become source objects."
              : "Clear the filters, or save a query as a dynamic source object."}
          </div>
        ) : (
          <ul
            className="divide-y divide-slate-100 overflow-hidden rounded-lg border border-slate-200 bg-white"
            data-testid="source-object-list"
          >
            {rows.map((r) => (
              <li key={r.id}>
                <button
                  type="button"
                  onClick={() => {
                    setSelectedId(r.id);
                    setCreating(false);
                  }}
                  aria-current={r.id === selectedId ? "true" : undefined}
                  className={`block w-full px-4 py-3 text-left text-sm hover:bg-slate-50 ${r.id === selectedId ? "bg-brand-50" : ""}`}
                >
                  <span className="flex flex-wrap items-center gap-2">
                    <span className="font-medium">{r.name}</span>
                    <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs">{TYPE_LABEL[r.contentType]}</span>
                    {r.mode === "DYNAMIC" && <span className="rounded bg-violet-50 px-1.5 py-0.5 text-xs text-violet-800">Dynamic</span>}
                    {!fixedKbId && <span className="text-xs text-slate-500">{r.kbName}</span>}
                  </span>
                  <span className="mt-0.5 line-clamp-2 block text-slate-600">{r.description}</span>
                  {r.tags.length > 0 && <span className="mt-1 block text-xs text-slate-500">{r.tags.map((t) => `#${t}`).join(" ")}</span>}
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label="Source object details" className="min-w-0 xl:sticky xl:top-4 xl:self-start">
        {creating ? (
          <CreateDynamicForm
            kbs={kbs}
            defaultKbId={fixedKbId ?? kbId}
            onDone={(id) => {
              setCreating(false);
              setSelectedId(id);
            }}
          />
        ) : selected ? (
          <SourceObjectDetail key={selected.id} object={selected} />
        ) : (
          <div className="rounded-lg border border-dashed border-slate-300 p-6 text-sm text-slate-600">
            Choose a source object to preview it and edit its description and tags.
          </div>
        )}
      </section>
    </div>
  );
}

function SourceObjectDetail({ object }: { object: SourceObjectRow }) {
  const queryClient = useQueryClient();
  // Tables (in documents or a database) and a collection's text get the selection workbench, which previews them itself.
  const workbench =
    object.mode !== "STATIC"
      ? null
      : object.contentType === "TABLE" && (object.kbKind === "DOCUMENTS" || object.kbKind === "SQL")
        ? "coordinates"
        : object.kbKind === "DOCUMENTS" && object.key === COLLECTION_KEY
          ? "sentences"
          : null;
  const preview = useQuery({
    queryKey: ["source-object-preview", object.id, object.lastRefreshedAt],
    queryFn: () => unwrap(previewSourceObjectAction({ id: object.id, limit: 25 })),
    enabled: !workbench,
  });
  const [name, setName] = useState(object.name);
  const [description, setDescription] = useState(object.description);
  const [tags, setTags] = useState(object.tags.join(", "));
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        updateSourceObjectAction({
          id: object.id,
          name,
          description,
          tags: tags
            .split(",")
            .map((t) => t.trim())
            .filter(Boolean),
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["source-objects"] }),
  });
  const refresh = useMutation({
    mutationFn: () => unwrap(refreshSourceObjectAction({ id: object.id })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["source-objects"] }),
  });
  const fieldErrors = save.error instanceof ActionFailure ? save.error.fields : {};
  return (
    <div className="space-y-4 rounded-lg border border-slate-200 bg-white p-5">
      <header className="flex flex-wrap items-start justify-between gap-2">
        <div>
          <h2 className="text-lg font-semibold">{object.name}</h2>
          <p className="text-xs text-slate-500">
            <KindBadge kind={object.kbKind} /> {object.kbName} · key <code>{object.key}</code>
          </p>
        </div>
        {object.mode === "DYNAMIC" && (
          <Button variant="secondary" onClick={() => refresh.mutate()} disabled={refresh.isPending}>
            {refresh.isPending ? "Refreshing…" : "Refresh"}
          </Button>
        )}
      </header>
      {object.mode === "DYNAMIC" && (
        <div className="text-xs text-slate-600">
          <p className="font-medium">Saved query</p>
          {/* Wrapped, not cut: a saved query is often one long line. */}
          <pre
            className="mt-1 max-h-48 overflow-auto whitespace-pre-wrap break-words rounded bg-slate-900 p-2 text-slate-100"
            data-testid="saved-query"
          >
            {object.refreshQuery}
          </pre>
          <p className="mt-1">
            {object.lastRefreshedAt ? (
              <>
                Last refreshed <DateTime value={object.lastRefreshedAt} />.
              </>
            ) : (
              "Never refreshed."
            )}
          </p>
        </div>
      )}
      {refresh.data && !refresh.data.ok && <Alert tone="error">Refresh failed: {refresh.data.message} The previous result is kept.</Alert>}
      {refresh.data?.ok && (
        <Alert tone="success">
          Refreshed: {count(refresh.data.rows, "row")}
          {refresh.data.truncated ? " (capped)" : ""}.
        </Alert>
      )}
      {object.refreshError && !refresh.data && <Alert tone="error">Last refresh failed: {object.refreshError}</Alert>}
      <div>
        <h3 className="mb-2 text-sm font-semibold">
          {workbench === "coordinates"
            ? "Preview and pick table cells"
            : workbench === "sentences"
              ? "Preview and pick sentences"
              : "Preview"}
        </h3>
        {workbench === "coordinates" ? (
          <CoordinatesWorkbench object={object} />
        ) : workbench === "sentences" ? (
          <SentencesWorkbench object={object} />
        ) : preview.isPending ? (
          <p className="text-sm text-slate-500">Loading preview…</p>
        ) : preview.error ? (
          <Alert tone="error">{preview.error.message}</Alert>
        ) : (
          <PreviewView preview={preview.data} />
        )}
      </div>
      <NativeQueryWorkbench object={object} />
      {object.kbKind === "SQL" && object.contentType === "TABLE" && object.mode === "STATIC" && (
        <TableNotesEditor key={object.id} objectId={object.id} table={object.key} />
      )}
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          save.mutate();
        }}
        className="space-y-3 border-t border-slate-100 pt-4"
        aria-label="Edit source object"
      >
        <Field id="so-name" label="Name" error={fieldErrors.name}>
          <TextInput id="so-name" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field
          id="so-description"
          label="Description"
          hint={
            object.descriptionEdited
              ? "Edited by an analyst: re-describing the KB keeps it."
              : "Generated from the content; your edit is kept when the KB is re-described."
          }
          error={fieldErrors.description}
        >
          <textarea
            id="so-description"
            rows={4}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            className="block w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
          />
        </Field>
        <Field id="so-tags" label="Tags" hint="Comma-separated." error={fieldErrors.tags}>
          <TextInput id="so-tags" value={tags} onChange={(e) => setTags(e.target.value)} />
        </Field>
        {save.error && !Object.keys(fieldErrors).length && <Alert tone="error">{save.error.message}</Alert>}
        {save.isSuccess && <Alert tone="success">Saved.</Alert>}
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save"}
        </Button>
      </form>
    </div>
  );
}

const QUERY_HINT: Record<string, string> = {
  SQL: "A single SELECT, e.g. SELECT region, SUM(quantity) FROM … GROUP BY region",
  SPARQL: "A SELECT/CONSTRUCT query, e.g. SELECT ?p ?label WHERE { ?p a ex:Product ; rdfs:label ?label }",
  CYPHER: "A read-only query, e.g. MATCH (m:Movie) RETURN m.title, m.released LIMIT 50",
  DOCUMENTS: "Search text, e.g. hotel cap per night",
};

function CreateDynamicForm({
  kbs,
  defaultKbId,
  onDone,
}: {
  kbs: { id: string; name: string; kind: string }[];
  defaultKbId: string;
  onDone: (id: string) => void;
}) {
  const queryClient = useQueryClient();
  const [kbId, setKbId] = useState(defaultKbId || kbs[0]?.id || "");
  const [name, setName] = useState("");
  const [query, setQuery] = useState("");
  const [description, setDescription] = useState("");
  const [tags, setTags] = useState("");
  const kind = kbs.find((k) => k.id === kbId)?.kind ?? "SQL";
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        createDynamicSourceObjectAction({
          kbId,
          name,
          query,
          description,
          tags: tags
            .split(",")
            .map((t) => t.trim())
            .filter(Boolean),
        }),
      ),
    onSuccess: async (row) => {
      await queryClient.invalidateQueries({ queryKey: ["source-objects"] });
      onDone(row.id);
    },
  });
  const errs = create.error instanceof ActionFailure ? create.error.fields : {};
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
      className="space-y-3 rounded-lg border border-slate-200 bg-white p-5"
      aria-label="New saved query"
    >
      <h2 className="text-lg font-semibold">New saved query</h2>
      <p className="text-sm text-slate-600">
        A dynamic source object: its content is the result of a native query, re-run on refresh. The query must be read-only; it runs once
        now to check it.
      </p>
      <Field id="dyn-kb" label="Knowledge base" error={errs.kbId}>
        <SelectInput id="dyn-kb" value={kbId} onChange={(e) => setKbId(e.target.value)}>
          {kbs.map((k) => (
            <option key={k.id} value={k.id}>
              {k.name}
            </option>
          ))}
        </SelectInput>
      </Field>
      <Field id="dyn-name" label="Name" error={errs.name}>
        <TextInput id="dyn-name" value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field id="dyn-query" label="Query" hint={QUERY_HINT[kind]} error={errs.query}>
        <textarea
          id="dyn-query"
          rows={6}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          className="block w-full rounded-md border border-slate-300 px-3 py-2 font-mono text-xs"
          spellCheck={false}
        />
      </Field>
      <Field id="dyn-description" label="Description (optional)">
        <TextInput id="dyn-description" value={description} onChange={(e) => setDescription(e.target.value)} />
      </Field>
      <Field id="dyn-tags" label="Tags (optional)" hint="Comma-separated.">
        <TextInput id="dyn-tags" value={tags} onChange={(e) => setTags(e.target.value)} />
      </Field>
      {create.error && !errs.query && !errs.name && <Alert tone="error">{create.error.message}</Alert>}
      <Button type="submit" disabled={create.isPending || !kbId}>
        {create.isPending ? "Running the query…" : "Save query"}
      </Button>
    </form>
  );
}
