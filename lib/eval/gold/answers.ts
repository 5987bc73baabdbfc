import { labelFromIri } from "../../backends/evidence";
import type { ResultTable } from "../types";

/**
 * A result table read as an answer a person would give: one column of values is a list of those values
 * (one row: a single value); several columns are read cell by cell (one row) or row by row. Values are
 * shown as people name them: an RDF literal by its text, an IRI by its local name, a graph node by its
 * name or title, a number without float noise.
 */

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(12)));
  if (typeof value === "string") return value.trim();
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.map(cellText).filter(Boolean).join(", ");
  if (typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (typeof o.termType === "string") {
      if (o.termType === "Literal") return String(o.value ?? "").trim();
      if (typeof o.label === "string" && o.label) return o.label;
      return o.termType === "NamedNode" ? labelFromIri(String(o.value)) : "";
    }
    if (o.__kind === "node") return nodeCaption(o.properties as Record<string, unknown>, o.labels as string[]);
    if (o.__kind === "relationship") return String(o.type ?? "");
    if (o.__kind === "path") {
      const nodes = (o.nodes as { properties: Record<string, unknown>; labels: string[] }[]) ?? [];
      return nodes.map((n) => nodeCaption(n.properties, n.labels)).join(" → ");
    }
    return Object.values(o).map(cellText).filter(Boolean).join(" ");
  }
  return String(value);
}

const CAPTION_KEYS = ["name", "title", "companyName", "productName", "categoryName", "contactName", "lastName", "id"];

function nodeCaption(properties: Record<string, unknown> = {}, labels: string[] = []): string {
  for (const k of CAPTION_KEYS) {
    const v = properties[k];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  const first = Object.values(properties).find((v) => typeof v === "string" && v.trim());
  return typeof first === "string" ? first.trim() : labels.join(":");
}

export interface TableAnswers {
  /** The answer as items (several when `list`). */
  items: string[];
  list: boolean;
  /** Every cell's text: what answer presence looks for in the evidence. */
  cells: string[];
}

/** Lists longer than this are cut: no pipeline answer names 5,000 values, and scoring stays bounded. */
const MAX_ITEMS = 500;

export function tableAnswers(table: ResultTable): TableAnswers {
  if (!table.rows.length || !table.columns.length) return { items: [], list: false, cells: [] };
  const texts = table.rows.slice(0, MAX_ITEMS).map((r) => r.map(cellText));
  const cells = [...new Set(texts.flat().filter(Boolean))];
  if (table.columns.length === 1 || texts.every((r) => r.length === 1)) {
    const items = [...new Set(texts.map((r) => r[0]).filter(Boolean))];
    return { items, list: items.length > 1, cells };
  }
  if (texts.length === 1) {
    const items = texts[0].filter(Boolean);
    return { items, list: items.length > 1, cells };
  }
  const items = [...new Set(texts.map((r) => r.filter(Boolean).join(" ")).filter(Boolean))];
  return { items, list: items.length > 1, cells };
}
