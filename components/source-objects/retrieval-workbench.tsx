"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { captureContextAction } from "@/lib/actions/guides";
import { documentSentencesAction, listCollectionDocumentsAction, previewSourceObjectAction } from "@/lib/actions/source-objects";
import { unwrap } from "@/lib/actions/unwrap";
import type { SourceObjectRow } from "@/lib/catalog/source-objects";
import { count } from "@/lib/format/count";
import type { GuideActionKind } from "@/lib/pipeline/guide-actions";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, SelectInput } from "../ui/field";
import { ContextResult } from "./context-result";
import { SentenceSelector } from "./sentence-selector";
import { TableSelector } from "./table-selector";

/** The guide editor opened with one action already filled in (the analyst's selection). */
export function newGuideHref(kbId: string, sourceObjectId: string | null, action: { kind: GuideActionKind; params: unknown }): string {
  const q = new URLSearchParams({ kb: kbId, action: JSON.stringify(action) });
  if (sourceObjectId) q.set("so", sourceObjectId);
  return `/guides/new?${q}`;
}

function useCapture(kbId: string) {
  return useMutation({
    mutationFn: (action: { kind: GuideActionKind; params: unknown }) => unwrap(captureContextAction({ kbId, ...action })),
  });
}

function CaptureOutcome({
  capture,
  kbId,
  sourceObjectId,
  names,
}: {
  capture: ReturnType<typeof useCapture>;
  kbId: string;
  sourceObjectId: string | null;
  names?: { table?: string; document?: string };
}) {
  if (capture.error) return <Alert tone="error">{capture.error.message}</Alert>;
  if (!capture.data) return null;
  return (
    <div className="space-y-2">
      <ContextResult result={capture.data} written={capture.variables} names={names} />
      <Link
        href={newGuideHref(kbId, sourceObjectId, capture.data.action)}
        className="inline-block text-sm font-medium text-brand-700 hover:underline"
      >
        Start an extraction guide with this action →
      </Link>
    </div>
  );
}

/** "Pick table cells" (AU-RAG's SelectCoordinates) on a table: tick rows and columns, run, read the context. */
export function CoordinatesWorkbench({ object }: { object: SourceObjectRow }) {
  const preview = useQuery({
    queryKey: ["source-object-preview", object.id, "grid"],
    queryFn: () => unwrap(previewSourceObjectAction({ id: object.id, limit: 200 })),
  });
  const [selection, setSelection] = useState<{ rows: number[]; columns: number[] }>({ rows: [], columns: [] });
  const capture = useCapture(object.kbId);
  if (preview.isPending) return <p className="text-sm text-slate-500">Loading the table…</p>;
  if (preview.error) return <Alert tone="error">{preview.error.message}</Alert>;
  const data = preview.data;
  if (data.kind !== "table") return <Alert tone="error">This source object is not a table.</Alert>;
  const unique = new Set(data.columns).size === data.columns.length;
  const run = () =>
    capture.mutate({
      kind: "SELECT_COORDINATES",
      // Header names read better in a guide and survive re-ingestion that reorders columns; indexes when names repeat.
      params: {
        tableKey: object.key,
        rows: selection.rows,
        columns: unique ? selection.columns.map((j) => data.columns[j]) : selection.columns,
      },
    });
  const ready = selection.rows.length > 0 && selection.columns.length > 0;
  return (
    <div className="space-y-3">
      <p className="text-sm text-slate-600">
        Tick rows and columns, then pick those cells to see the context they give a guide.
        {object.kbKind === "SQL" && " On a database table the selection runs as the SQL that reads those cells by key."}
      </p>
      <TableSelector
        title={data.title}
        columns={data.columns}
        rows={data.rows}
        totalRows={data.totalRows}
        truncated={data.truncated}
        selectedRows={selection.rows}
        selectedColumns={selection.columns}
        onChange={(next) => {
          setSelection(next);
          capture.reset();
        }}
      />
      <div className="flex flex-wrap items-center gap-2">
        <Button onClick={run} disabled={!ready || capture.isPending}>
          {capture.isPending ? "Running…" : "Pick these cells"}
        </Button>
        <Button
          variant="ghost"
          onClick={() => {
            setSelection({ rows: [], columns: [] });
            capture.reset();
          }}
          disabled={!selection.rows.length && !selection.columns.length}
        >
          Clear selection
        </Button>
        {!ready && <span className="text-xs text-slate-500">Select at least one row and one column.</span>}
      </div>
      <CaptureOutcome capture={capture} kbId={object.kbId} sourceObjectId={object.id} names={{ table: object.name }} />
    </div>
  );
}

/** "Pick sentences" (AU-RAG's SelectSentenceIdxs) on a collection's text: choose a document, tick sentences, run, read the context. */
export function SentencesWorkbench({ object }: { object: SourceObjectRow }) {
  const docs = useQuery({
    queryKey: ["collection-documents", object.id],
    queryFn: () => unwrap(listCollectionDocumentsAction({ id: object.id })),
  });
  const [chosen, setChosen] = useState("");
  const documentId = chosen || docs.data?.find((d) => d.sentences > 0)?.id || "";
  const sentences = useQuery({
    queryKey: ["document-sentences", object.id, documentId],
    queryFn: () => unwrap(documentSentencesAction({ id: object.id, documentId })),
    enabled: !!documentId,
  });
  const [selected, setSelected] = useState<number[]>([]);
  const capture = useCapture(object.kbId);
  if (docs.isPending) return <p className="text-sm text-slate-500">Loading the documents…</p>;
  if (docs.error) return <Alert tone="error">{docs.error.message}</Alert>;
  if (!docs.data.length)
    return <p className="text-sm text-slate-600">This collection has no documents yet. Upload documents to the knowledge base first.</p>;
  const title = docs.data.find((d) => d.id === documentId)?.title ?? "";
  return (
    <div className="space-y-3">
      <Field id="so-document" label="Document">
        <SelectInput
          id="so-document"
          value={documentId}
          onChange={(e) => {
            setChosen(e.target.value);
            setSelected([]);
            capture.reset();
          }}
        >
          {docs.data.map((d) => (
            <option key={d.id} value={d.id}>
              {d.title} ({count(d.sentences, "sentence")}
              {d.tables ? `, ${count(d.tables, "table")}` : ""})
            </option>
          ))}
        </SelectInput>
      </Field>
      {sentences.isPending ? (
        <p className="text-sm text-slate-500">Loading the sentences…</p>
      ) : sentences.error ? (
        <Alert tone="error">{sentences.error.message}</Alert>
      ) : sentences.data.sentences.length === 0 ? (
        <p className="text-sm text-slate-600">This document has no text sentences (it holds only tables). Choose another document.</p>
      ) : (
        <>
          <SentenceSelector
            title={title}
            sentences={sentences.data.sentences}
            selected={selected}
            onChange={(next) => {
              setSelected(next);
              capture.reset();
            }}
          />
          {sentences.data.truncated && (
            <p className="text-xs text-slate-500">
              The first {sentences.data.sentences.length.toLocaleString("en")} of {sentences.data.total.toLocaleString("en")} sentences are
              shown.
            </p>
          )}
        </>
      )}
      <div className="flex flex-wrap items-center gap-2">
        <Button
          onClick={() => capture.mutate({ kind: "SELECT_SENTENCE_IDXS", params: { documentId, sentenceIdxs: selected } })}
          disabled={!selected.length || capture.isPending}
        >
          {capture.isPending ? "Running…" : "Pick these sentences"}
        </Button>
        <span className="text-xs text-slate-500" aria-live="polite">
          {selected.length ? `${count(selected.length, "sentence")} selected.` : "Select at least one sentence."}
        </span>
      </div>
      <CaptureOutcome capture={capture} kbId={object.kbId} sourceObjectId={object.id} names={{ document: title }} />
    </div>
  );
}

function queryTemplate(object: SourceObjectRow): string {
  if (object.mode === "DYNAMIC" && object.refreshQuery) return object.refreshQuery;
  switch (object.kbKind) {
    case "SQL":
      return `SELECT *\nFROM "${object.key.replace(/"/g, '""')}"\nLIMIT 20`;
    case "SPARQL":
      return `SELECT ?s ?p ?o\nWHERE { ?s a <${object.key}> ; ?p ?o }\nLIMIT 50`;
    case "CYPHER":
      return `MATCH (n:\`${object.key.replace(/`/g, "``")}\`)\nRETURN n\nLIMIT 25`;
    default:
      return "";
  }
}

const LANGUAGE = { DOCUMENTS: "search", SQL: "sql", SPARQL: "sparql", CYPHER: "cypher" } as const;

/** A query in the KB's own language (AU-RAG's NativeQuery; the backend's safety rules apply), for any kind of source object. */
export function NativeQueryWorkbench({ object }: { object: SourceObjectRow }) {
  const [text, setText] = useState(() => queryTemplate(object));
  const capture = useCapture(object.kbId);
  const language = LANGUAGE[object.kbKind];
  const inDocumentTable = object.kbKind === "DOCUMENTS" && object.contentType === "TABLE";
  return (
    <details className="rounded-md border border-slate-200 p-3">
      <summary className="cursor-pointer text-sm font-semibold">
        {language === "search" ? "Search" : "Query"} {object.kbName} directly
      </summary>
      <form
        className="mt-3 space-y-2"
        aria-label="Query the knowledge base"
        onSubmit={(e) => {
          e.preventDefault();
          capture.mutate({
            kind: "NATIVE_QUERY",
            params: { query: { language, text, ...(inDocumentTable ? { filters: { sourceObject: object.key } } : {}) } },
          });
        }}
      >
        <Field
          id={`nq-${object.id}`}
          label={language === "search" ? "Search text" : `${language.toUpperCase()} query`}
          hint={
            language === "search"
              ? inDocumentTable
                ? "Searches the rows of this table."
                : "Searches the collection's passages and table rows."
              : "Read-only: writes, multiple statements and unsafe functions are refused."
          }
        >
          <textarea
            id={`nq-${object.id}`}
            rows={language === "search" ? 2 : 4}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              capture.reset();
            }}
            spellCheck={false}
            className="block w-full rounded-md border border-slate-300 px-3 py-2 font-mono text-xs"
          />
        </Field>
        <Button type="submit" variant="secondary" disabled={!text.trim() || capture.isPending}>
          {capture.isPending ? "Running…" : language === "search" ? "Search" : "Run the query"}
        </Button>
      </form>
      <div className="mt-3">
        <CaptureOutcome capture={capture} kbId={object.kbId} sourceObjectId={object.id} />
      </div>
    </details>
  );
}
