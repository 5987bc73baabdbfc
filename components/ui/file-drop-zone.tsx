"use client";

import { type DragEvent, useId, useRef, useState } from "react";
import { count } from "@/lib/format/count";

function formatSize(bytes: number): string {
  if (bytes < 1024) return count(bytes, "byte");
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Whether a file matches an `accept` list of extensions (".txt,.md"), as the file dialog filters them. */
function accepted(file: File, accept: string | undefined): boolean {
  if (!accept) return true;
  const name = file.name.toLowerCase();
  return accept.split(",").some((ext) => name.endsWith(ext.trim().toLowerCase()));
}

const sameFile = (a: File, b: File) => a.name === b.name && a.size === b.size && a.lastModified === b.lastModified;

/**
 * A file field people see as one: a bordered area to drop files on or click, that is reached with Tab
 * and opened with Enter or Space (the file input itself takes the focus, visually hidden), and lists
 * the chosen files with their sizes and a way to remove each. With `multiple`, files dropped or chosen
 * later are added; otherwise the new file replaces the old one. Files of other types are refused by name.
 */
export function FileDropZone({
  id,
  label,
  accept,
  multiple = false,
  files,
  onChange,
  error,
}: {
  id: string;
  label: string;
  accept?: string;
  multiple?: boolean;
  files: File[];
  onChange: (files: File[]) => void;
  error?: string;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [refused, setRefused] = useState<string[]>([]);
  const hintId = useId();
  const errorId = `${id}-error`;

  function take(list: FileList | null) {
    const incoming = Array.from(list ?? []);
    const ok = incoming.filter((f) => accepted(f, accept));
    setRefused(incoming.filter((f) => !accepted(f, accept)).map((f) => f.name));
    if (!ok.length) return;
    onChange(multiple ? [...files, ...ok.filter((f) => !files.some((g) => sameFile(f, g)))] : ok.slice(0, 1));
  }

  function onDrop(e: DragEvent) {
    e.preventDefault();
    setDragging(false);
    take(e.dataTransfer.files);
  }

  const types = accept
    ?.split(",")
    .map((t) => t.trim())
    .join(", ");
  return (
    <div className="space-y-2">
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <div
        data-testid={`${id}-drop-zone`}
        data-dragging={dragging || undefined}
        onClick={() => input.current?.click()}
        onDragEnter={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragOver={(e) => {
          e.preventDefault();
          e.dataTransfer.dropEffect = "copy";
        }}
        onDragLeave={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={onDrop}
        className={`flex cursor-pointer flex-col items-center justify-center gap-1 rounded-lg border-2 border-dashed px-4 py-6 text-center text-sm transition-colors has-[input:focus-visible]:outline-2 has-[input:focus-visible]:outline-offset-2 has-[input:focus-visible]:outline-brand-500 ${
          dragging
            ? "border-brand-500 bg-brand-50"
            : error
              ? "border-rose-400 bg-rose-50/40 hover:border-rose-500"
              : "border-slate-300 bg-slate-50 hover:border-brand-500 hover:bg-brand-50/50"
        }`}
      >
        <svg aria-hidden viewBox="0 0 24 24" className="h-7 w-7 text-slate-400" fill="none" stroke="currentColor" strokeWidth={1.5}>
          <path strokeLinecap="round" strokeLinejoin="round" d="M12 16V4m0 0-4 4m4-4 4 4M4 16v2a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-2" />
        </svg>
        <p>
          <span className="font-medium text-brand-700">{multiple ? "Choose files" : "Choose a file"}</span>
          <span className="text-slate-600"> or drop {multiple ? "them" : "it"} here</span>
        </p>
        <p id={hintId} className="text-xs text-slate-500">
          {types ? `Accepted: ${types}` : "Any file"}
        </p>
        <input
          ref={input}
          id={id}
          type="file"
          accept={accept}
          multiple={multiple}
          className="sr-only"
          aria-invalid={!!error || undefined}
          aria-describedby={error ? `${errorId} ${hintId}` : hintId}
          onClick={(e) => e.stopPropagation()}
          onChange={(e) => {
            take(e.target.files);
            // Cleared so that choosing the same file again after removing it is seen as a change.
            e.target.value = "";
          }}
        />
      </div>
      {error && (
        <p id={errorId} className="text-xs text-rose-700" role="alert">
          {error}
        </p>
      )}
      {refused.length > 0 && (
        <p className="text-xs text-rose-700" role="alert">
          Not added ({types ? `only ${types}` : "unsupported type"}): {refused.join(", ")}
        </p>
      )}
      {files.length > 0 && (
        <ul
          className="divide-y divide-slate-100 rounded-md border border-slate-200 bg-white text-sm"
          aria-label={`Chosen ${multiple ? "files" : "file"}`}
          aria-live="polite"
        >
          {files.map((f, i) => (
            <li key={`${f.name}-${f.size}-${f.lastModified}`} className="flex items-center justify-between gap-3 px-3 py-1.5">
              <span className="min-w-0 truncate" title={f.name}>
                {f.name}
              </span>
              <span className="flex shrink-0 items-center gap-3">
                <span className="text-xs tabular-nums text-slate-500">{formatSize(f.size)}</span>
                <button
                  type="button"
                  className="text-xs text-slate-600 hover:text-rose-700 hover:underline"
                  onClick={() => onChange(files.filter((_, j) => j !== i))}
                  aria-label={`Remove ${f.name}`}
                >
                  Remove
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
