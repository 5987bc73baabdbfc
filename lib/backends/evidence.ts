import { createHash } from "node:crypto";
import type { Scalar } from "./types";

/** Stable evidence id: the same KB and location always give the same id (citations survive re-runs). */
export function evidenceId(kbId: string, kind: string, location: Record<string, Scalar>): string {
  const keys = Object.keys(location).sort();
  const canonical = JSON.stringify([kbId, kind, keys.map((k) => [k, location[k]])]);
  return `ev_${createHash("sha256").update(canonical).digest("hex").slice(0, 16)}`;
}

export function formatScalar(v: Scalar | undefined): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(12)));
  return String(v).replace(/\s+/g, " ").trim();
}

/**
 * Quasar's row linearization: "Table name / section / Column: value, Column: value".
 * Empty cells are skipped so they add no noise to BM25.
 */
export function linearizeRow(table: string, section: string | undefined, columns: string[], values: Scalar[]): string {
  const cells = columns
    .map((c, i) => [c, formatScalar(values[i])] as const)
    .filter(([, v]) => v !== "")
    .map(([c, v]) => `${c}: ${v}`);
  return [table, section, cells.join(", ")].filter((p) => p && p.length > 0).join(" / ");
}

/** Quasar's triple linearization: "subject predicate object" with readable labels. */
export function linearizeTriple(subject: string, predicate: string, object: string): string {
  return `${subject} ${predicate} ${object}`.replace(/\s+/g, " ").trim();
}

/** A graph path as "A -rel-> B <-rel- C" (direction kept). */
export function linearizePath(steps: { caption: string }[], rels: { type: string; forward: boolean }[]): string {
  let out = steps[0]?.caption ?? "";
  for (let i = 0; i < rels.length; i++) {
    const r = rels[i];
    out += r.forward ? ` -${r.type}-> ` : ` <-${r.type}- `;
    out += steps[i + 1]?.caption ?? "?";
  }
  return out;
}

/** Human label for an IRI: the fragment or last path segment, de-camel-cased and de-underscored. */
export function labelFromIri(iri: string): string {
  const tail = iri.split(/[#/]/).filter(Boolean).pop() ?? iri;
  let decoded = tail;
  try {
    decoded = decodeURIComponent(tail);
  } catch {
    // keep the raw tail
  }
  return decoded
    .replace(/[_-]+/g, " ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .trim();
}
