import { formatScalar } from "../../../backends/evidence";
import type { EvidencePiece, PassageData, RowData, Scalar } from "../../../backends/types";
import { type Period, periodsIn } from "../../../tables/periods";
import { type CellReading, readCell } from "../../../tables/report-number";
import { type ScaleNote, scaleInHeader, scaleInProse } from "../../../tables/scale";
import { normalizeLabel } from "../../text";
import type { ScoredEvidence } from "../../contracts";
import { isRowPiece } from "./extract-rows";
import { normalizeEvidenceScores } from "./score";

/**
 * Tables rebuilt from the row evidence: every retrieved row of one source table (document table, SQL
 * result) under that table's header, each cell read as a report means it (report-number.ts), each
 * column's reporting period read from its header ("December 31, 2019", "FY2018"), and the scale the
 * table states in its caption, header, unit rows or the surrounding passages ("in thousands", "€m").
 * Cells are then located by row label and column header (cell-locate.ts).
 */

export interface TableCell {
  column: number;
  raw: Scalar;
  reading: CellReading;
}

export interface TableRow {
  /** Index of the row's piece in the answer stage's evidence. */
  pieceIndex: number;
  evidenceId: string;
  /** What the row is about: its first non-numeric cell ("Defined benefit schemes", "Berlin"). */
  label: string;
  labelColumn: number;
  cells: TableCell[];
  /** The row's evidence score relative to the best piece (0..1). */
  strength: number;
  /** Position in the source table when known. */
  rowIndex: number | null;
}

export interface TableColumn {
  name: string;
  periods: Period[];
  /** The column holds percentages ("%", "% change", "(%)"). */
  percent: boolean;
}

export interface TableView {
  key: string;
  kb: string;
  kbName: string;
  /** The table's caption (or "Query result" for structured sources). */
  caption: string;
  section: string | null;
  document: string | null;
  columns: TableColumn[];
  rows: TableRow[];
  /** The scale the table, its header or its document's passages state. */
  scale: ScaleNote | null;
  /** The best row's strength: how well the evidence ranking placed this table. */
  strength: number;
}

/** The row's label: the first cell that is text rather than a figure. */
function labelOf(values: Scalar[]): { label: string; column: number } {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== "string") continue;
    const r = readCell(v);
    if (r.kind === "text") return { label: formatScalar(v), column: i };
  }
  return { label: "", column: -1 };
}

function percentColumn(name: string): boolean {
  return /%|\bpercent(age)?\b|\bper cent\b/i.test(name);
}

function documentOf(piece: EvidencePiece): string | null {
  const d = piece.provenance.location.document;
  return typeof d === "string" || typeof d === "number" ? String(d) : null;
}

function tableKey(piece: EvidencePiece & { data: RowData }): string {
  const loc = piece.provenance.location;
  const where = loc.table !== undefined ? `${documentOf(piece) ?? ""}#${String(loc.table)}` : piece.provenance.query;
  return [piece.provenance.kb, where, piece.data.table, piece.data.columns.join("\u0001")].join("\u0000");
}

/** A unit row: a row whose only text states a scale ("(in millions)", "$'000") and holds no figure. */
function unitRowScale(values: Scalar[]): ScaleNote | null {
  const texts = values.map((v) => formatScalar(v)).filter(Boolean);
  if (texts.length === 0 || texts.some((t) => readCell(t).kind === "number")) return null;
  for (const t of texts) {
    const s = scaleInHeader(t);
    if (s && t.length <= 40) return s;
  }
  return null;
}

/** The scale a passage of the same document states explicitly ("(in thousands, except per share data)"). */
function documentScale(evidence: ScoredEvidence[], document: string | null, kb: string): ScaleNote | null {
  if (document === null) return null;
  for (const e of evidence) {
    const p = e.piece;
    if (p.kind !== "passage" || p.provenance.kb !== kb || documentOf(p) !== document) continue;
    const s = scaleInProse(p.text) ?? scaleInProse((p.data as PassageData).documentTitle ?? "");
    if (s) return s;
  }
  return null;
}

/** The tables the row evidence belongs to, the strongest first. */
export function tablesInEvidence(evidence: ScoredEvidence[]): TableView[] {
  const strength = normalizeEvidenceScores(evidence);
  const byKey = new Map<string, TableView>();
  const unitScales = new Map<string, ScaleNote>();
  evidence.forEach((e, pieceIndex) => {
    const piece = e.piece;
    if (!isRowPiece(piece)) return;
    const data = piece.data;
    const key = tableKey(piece);
    let table = byKey.get(key);
    if (!table) {
      table = {
        key,
        kb: piece.provenance.kb,
        kbName: piece.provenance.kbName,
        caption: data.table,
        section: data.section ?? null,
        document: documentOf(piece),
        columns: data.columns.map((name) => ({ name, periods: periodsIn(name), percent: percentColumn(name) })),
        rows: [],
        scale: null,
        strength: 0,
      };
      byKey.set(key, table);
    }
    const unit = unitRowScale(data.values);
    if (unit) {
      unitScales.set(key, unit);
      return;
    }
    const { label, column } = labelOf(data.values);
    table.rows.push({
      pieceIndex,
      evidenceId: piece.id,
      label,
      labelColumn: column,
      cells: data.values.map((raw, i) => ({ column: i, raw, reading: readCell(raw) })),
      strength: strength[pieceIndex],
      rowIndex: typeof data.rowIndex === "number" ? data.rowIndex : null,
    });
    table.strength = Math.max(table.strength, strength[pieceIndex]);
  });
  const tables = [...byKey.values()].filter((t) => t.rows.length > 0);
  for (const t of tables) {
    const header = [t.caption, t.section ?? "", ...t.columns.map((c) => c.name)];
    t.scale =
      header.map(scaleInHeader).find((s) => s !== null) ??
      unitScales.get(t.key) ??
      t.rows.map((r) => (r.label ? scaleInProse(r.label) : null)).find((s) => s !== null) ??
      documentScale(evidence, t.document, t.kb);
  }
  return tables.sort((a, b) => b.strength - a.strength);
}

/** The cells of a row holding figures (not its label), with their column. */
export function figureCells(row: TableRow): TableCell[] {
  return row.cells.filter((c) => c.column !== row.labelColumn && c.reading.kind === "number");
}

/** A row's words as the question would say them: footnote marks and unit notes dropped ("Order intake1" → "order intake"). */
export function labelWords(label: string): string {
  return normalizeLabel(
    label
      .replace(/\(\s*(\d{1,2}|[a-z])\s*\)/gi, " ")
      .replace(/(\p{L})\d{1,2}\b/gu, "$1")
      .replace(/\(\s*in [^)]*\)/gi, " "),
  );
}
