"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { documentPreviewAction, removeDocumentAction } from "@/lib/actions/knowledge-bases";
import { unwrap } from "@/lib/actions/unwrap";
import type { CollectionDocument } from "@/lib/backends/documents/actions";
import { count } from "@/lib/format/count";
import { formatInteger } from "@/lib/format/number";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { useLocale } from "../ui/locale";

const FORMAT_NAMES: Record<string, string> = {
  "text/plain": "Text",
  "text/markdown": "Markdown",
  "text/html": "HTML",
  "application/pdf": "PDF",
  "text/csv": "CSV",
  "application/json": "JSON",
};

function DocumentPreview({ kbId, documentId }: { kbId: string; documentId: string }) {
  const preview = useQuery({
    queryKey: ["document-preview", kbId, documentId],
    queryFn: () => unwrap(documentPreviewAction({ id: kbId, documentId })),
    retry: false,
  });
  if (preview.error) return <Alert tone="error">{preview.error.message}</Alert>;
  const state = preview.data;
  if (!state) return <p className="text-xs text-slate-500">Loading the preview…</p>;
  return <PreviewText sentences={state.sentences} total={state.total} />;
}

function PreviewText({ sentences, total }: { sentences: string[]; total: number }) {
  const locale = useLocale();
  const state = { sentences, total };
  return (
    <div className="space-y-1 text-sm text-slate-700" data-testid="document-preview">
      {state.sentences.length === 0 ? (
        <p className="text-slate-500">This document has no text passages (only tables).</p>
      ) : (
        <p className="whitespace-pre-wrap">{state.sentences.join(" ")}</p>
      )}
      {state.total > state.sentences.length && (
        <p className="text-xs text-slate-500">
          The first {formatInteger(state.sentences.length, locale)} of {count(state.total, "sentence")}.
        </p>
      )}
    </div>
  );
}

/**
 * A collection's documents, each with its preview and its removal (confirmed first: the passages,
 * tables and vectors of the document are deleted, and the collection is described again).
 */
export function CollectionDocuments({
  kbId,
  documents,
  more,
  canRemove,
}: {
  kbId: string;
  documents: CollectionDocument[];
  more: boolean;
  canRemove: boolean;
}) {
  const router = useRouter();
  const locale = useLocale();
  const [open, setOpen] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [removed, setRemoved] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: (doc: CollectionDocument) => unwrap(removeDocumentAction({ id: kbId, documentId: doc.id })).then(() => doc),
    onSuccess: (doc) => {
      setConfirming(null);
      setRemoved(doc.title);
      router.refresh();
    },
  });
  if (documents.length === 0)
    return (
      <p className="rounded-lg border border-dashed border-slate-300 p-4 text-sm text-slate-600" data-testid="kb-documents-empty">
        No readable documents yet.
      </p>
    );
  return (
    <div className="space-y-2">
      {removed && (
        <p role="status" className="text-sm text-emerald-800" data-testid="document-removed">
          Removed “{removed}” from the collection.
        </p>
      )}
      <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white" data-testid="kb-documents">
        {documents.map((d) => (
          <li key={d.id} className="px-4 py-3" data-testid="kb-document" data-document-id={d.id}>
            <div className="flex flex-wrap items-center justify-between gap-2">
              <div className="min-w-0">
                <p className="truncate font-medium text-slate-900" title={d.title}>
                  {d.title}
                </p>
                <p className="text-xs text-slate-500">
                  {FORMAT_NAMES[d.mediaType] ?? d.mediaType} · {count(d.sentences, "sentence")}
                  {d.tables ? ` · ${count(d.tables, "table")}` : ""}
                </p>
              </div>
              <div className="flex gap-2">
                <Button
                  variant="secondary"
                  className="px-2.5 py-1 text-xs"
                  aria-expanded={open === d.id}
                  aria-label={`Preview ${d.title}`}
                  onClick={() => setOpen(open === d.id ? null : d.id)}
                >
                  {open === d.id ? "Hide preview" : "Preview"}
                </Button>
                {canRemove && (
                  <Button
                    variant="ghost"
                    className="px-2.5 py-1 text-xs text-rose-700 hover:bg-rose-50"
                    aria-label={`Remove ${d.title}`}
                    onClick={() => {
                      remove.reset();
                      setConfirming(d.id);
                    }}
                  >
                    Remove…
                  </Button>
                )}
              </div>
            </div>
            {open === d.id && (
              <div className="mt-2 rounded-md bg-slate-50 p-3">
                <DocumentPreview kbId={kbId} documentId={d.id} />
              </div>
            )}
            {confirming === d.id && (
              <div
                role="alertdialog"
                aria-label={`Remove ${d.title}?`}
                className="mt-2 space-y-2 rounded-md border border-rose-200 bg-rose-50 p-3 text-sm text-rose-900"
              >
                <p>
                  Remove <strong>{d.title}</strong> from this collection? Its passages{d.tables ? ", tables" : ""} and vectors are deleted
                  and answers no longer cite it. Past answers keep their text. To have it back, add the file again.
                </p>
                {remove.error && <Alert tone="error">{remove.error.message}</Alert>}
                <div className="flex gap-2">
                  <Button variant="secondary" onClick={() => setConfirming(null)} disabled={remove.isPending}>
                    Keep it
                  </Button>
                  <Button variant="danger" onClick={() => remove.mutate(d)} disabled={remove.isPending}>
                    {remove.isPending ? "Removing…" : "Remove document"}
                  </Button>
                </div>
              </div>
            )}
          </li>
        ))}
      </ul>
      {more && (
        <p className="text-xs text-slate-500">Only the first {formatInteger(documents.length, locale)} documents by title are listed.</p>
      )}
    </div>
  );
}
