import { readableName } from "../../../../backends/cypher/entity-index";
import type { EntityLink } from "../../../contracts";
import { columnKey, type RelationalView, VIEW_ID, type ViewColumn, type ViewEdge } from "../plan/relational-view";
import type { SqlStructure } from "../sql/sql-structure";
import type { GraphStructure } from "./types";

/**
 * A property graph as tables (plan/relational-view.ts): each node label is a table of its nodes, each
 * property a column; each relationship pattern (:A)-[:TYPE]->(:B) a table of its relationships, with
 * the relationship's own properties ("roles", "quantity") and a key to each end. The Cypher renderer
 * writes a join through such a table back as the pattern (a)-[r:TYPE]->(b).
 */

export interface GraphView extends RelationalView {
  /** Relationship tables: name → {type, from label table, to label table}. */
  relationships: Map<string, { type: string; from: string; to: string }>;
  /** Table of each relationship type (the first pattern's when several label pairs share it). */
  byType: Map<string, string>;
}

export const FROM_KEY = "→ from";
export const TO_KEY = "→ to";

function sqlType(types: string[]): string {
  const t = types.map((x) => x.toUpperCase());
  if (t.length > 0 && t.every((x) => x === "INTEGER" || x === "LONG")) return "INTEGER";
  if (t.length > 0 && t.every((x) => /INTEGER|LONG|FLOAT|DOUBLE/.test(x))) return "REAL";
  if (t.some((x) => /DATE|TIME/.test(x))) return "DATE";
  if (t.some((x) => x === "BOOLEAN")) return "BOOLEAN";
  return "TEXT";
}

export function graphView(structure: GraphStructure): GraphView {
  const tables: SqlStructure["tables"] = [];
  const names = new Map<string, string>();
  const columns = new Map<string, ViewColumn>();
  const edges = new Map<string, ViewEdge>();
  for (const l of structure.labels) {
    names.set(l.label, l.label);
    tables.push({
      name: l.label,
      columns: [
        { name: VIEW_ID, type: "NODE", examples: [] },
        ...l.properties.map((p) => ({ name: p.name, type: sqlType(p.types), examples: p.examples.slice(0, 5) })),
      ],
      primaryKey: [VIEW_ID],
      foreignKeys: [],
      rows: l.count,
    });
    columns.set(columnKey(l.label, VIEW_ID), { ref: null });
    for (const p of l.properties) columns.set(columnKey(l.label, p.name), { ref: p.name });
  }
  const relationships = new Map<string, { type: string; from: string; to: string }>();
  const byType = new Map<string, string>();
  const taken = new Set(tables.map((t) => t.name.toLowerCase()));
  for (const pattern of structure.patterns) {
    if (!names.has(pattern.from) || !names.has(pattern.to)) continue;
    // Each end needs its own key: a relationship between nodes of one label (FOLLOWS) is left to the neighbourhood queries.
    if (pattern.from === pattern.to) continue;
    let name = pattern.type;
    if (taken.has(name.toLowerCase())) name = `${pattern.type} ${pattern.from} ${pattern.to}`;
    if (taken.has(name.toLowerCase())) continue;
    taken.add(name.toLowerCase());
    const rel = structure.relationships.find((r) => r.type === pattern.type);
    tables.push({
      name,
      columns: [
        { name: VIEW_ID, type: "RELATIONSHIP", examples: [] },
        ...(rel?.properties ?? []).map((p) => ({ name: p.name, type: sqlType(p.types), examples: [] })),
      ],
      primaryKey: [VIEW_ID],
      foreignKeys: [
        { columns: [FROM_KEY], refTable: pattern.from, refColumns: [VIEW_ID] },
        { columns: [TO_KEY], refTable: pattern.to, refColumns: [VIEW_ID] },
      ],
      rows: pattern.count,
    });
    columns.set(columnKey(name, VIEW_ID), { ref: null });
    for (const p of rel?.properties ?? []) columns.set(columnKey(name, p.name), { ref: p.name });
    edges.set(columnKey(name, FROM_KEY), { ref: pattern.type, forward: true });
    edges.set(columnKey(name, TO_KEY), { ref: pattern.type, forward: false });
    relationships.set(name, { type: pattern.type, from: pattern.from, to: pattern.to });
    if (!byType.has(pattern.type)) byType.set(pattern.type, name);
  }
  return {
    structure: { kind: "sql", dialect: "sqlite", tables },
    tables: new Map(tables.map((t) => [t.name, t.name])),
    columns,
    edges,
    idColumn: VIEW_ID,
    relationships,
    byType,
  };
}

/**
 * A graph link in the view's terms: values and property links are already "Label.key(=value)"; a node
 * found by its caption is its label's caption value; a relationship type names its table.
 */
export function graphLinkInView(view: GraphView, structure: GraphStructure, link: EntityLink): EntityLink | null {
  switch (link.kind) {
    case "value":
    case "column":
      return link;
    case "label":
      return view.tables.has(link.ref) ? { ...link, kind: "table", ref: link.ref } : null;
    case "node": {
      const label = link.sourceObject;
      const key = label ? structure.captionKeys[label] : undefined;
      if (!label || !key || !view.columns.has(columnKey(label, key))) return null;
      // Captions of id-captioned labels are written "Order 10248": the value is the number after the label.
      const value = link.label.startsWith(`${label} `) ? link.label.slice(label.length + 1) : link.label;
      return { ...link, kind: "value", ref: `${label}.${key}=${value}` };
    }
    case "predicate": {
      const table = view.byType.get(link.ref);
      return table ? { ...link, kind: "table", ref: table, label: readableName(link.ref) } : null;
    }
    default:
      return null;
  }
}
