import { isSafeIri, LABEL_PREDICATES, RDF_TYPE, XSD } from "../../../../backends/sparql/rdf-terms";
import type { EntityLink } from "../../../contracts";
import { columnKey, type RelationalView, VIEW_ID, type ViewColumn, type ViewEdge } from "../plan/relational-view";
import type { SqlStructure } from "../sql/sql-structure";
import type { RdfStructure } from "./types";

/**
 * An RDF graph as tables (plan/relational-view.ts): each class with instances is a table whose rows
 * are its resources; each literal predicate used on it a column, rdfs:label included; each object
 * predicate between two classes a key. A Direct-Mapping graph of a SQL database comes back as that
 * database's tables; an ontology-style graph (companies, people, products) as tables of its classes.
 */

const SCHEMA_NAMESPACES = [
  "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
  "http://www.w3.org/2000/01/rdf-schema#",
  "http://www.w3.org/2002/07/owl#",
];
const NUMBER_TYPES = new Set(
  ["integer", "int", "long", "short", "nonNegativeInteger", "positiveInteger", "decimal", "double", "float"].map((t) => `${XSD}${t}`),
);
const DATE_TYPES = new Set(["date", "dateTime", "gYear"].map((t) => `${XSD}${t}`));

function sqlType(ranges: string[]): string {
  if (ranges.length > 0 && ranges.every((r) => NUMBER_TYPES.has(r)))
    return ranges.every((r) => /integer|int|long|short/i.test(r)) ? "INTEGER" : "REAL";
  if (ranges.some((r) => DATE_TYPES.has(r))) return "DATE";
  if (ranges.some((r) => r === `${XSD}boolean`)) return "BOOLEAN";
  return "TEXT";
}

/** A column named for years or counts whose literals are plain strings holds numbers written as text (Direct Mapping of TEXT columns). */
function numericByName(label: string): boolean {
  return /(?:^|[_\s])(?:year|yr)s?$/i.test(label) || /^year/i.test(label);
}

export interface RdfView extends RelationalView {
  /** Table name by class IRI. */
  byClass: Map<string, string>;
  /** Column refs by predicate IRI: every table that uses it. */
  byPredicate: Map<string, { table: string; column: string }[]>;
}

export function rdfView(structure: RdfStructure): RdfView {
  const classes = structure.classes.filter(
    (c) => c.instances > 0 && isSafeIri(c.iri) && !SCHEMA_NAMESPACES.some((ns) => c.iri.startsWith(ns)),
  );
  const used = new Set<string>();
  const byClass = new Map<string, string>();
  for (const c of classes) {
    let name = c.label || c.iri.replace(/^.*[/#]/, "") || "class";
    for (let i = 2; used.has(name.toLowerCase()); i++) name = `${c.label} ${i}`;
    used.add(name.toLowerCase());
    byClass.set(c.iri, name);
  }
  const tables = new Map<string, string>([...byClass].map(([iri, name]) => [name, iri]));
  const columns = new Map<string, ViewColumn>();
  const edges = new Map<string, ViewEdge>();
  const byPredicate = new Map<string, { table: string; column: string }[]>();
  const sqlTables: SqlStructure["tables"] = [...byClass.entries()].map(([, name]) => ({
    name,
    columns: [{ name: VIEW_ID, type: "IRI", examples: [] }],
    primaryKey: [VIEW_ID],
    foreignKeys: [],
    rows: null,
  }));
  const table = (name: string) => sqlTables.find((t) => t.name === name)!;
  for (const [, name] of byClass) columns.set(columnKey(name, VIEW_ID), { ref: null });

  const labelPredicates = structure.labelPredicates.length > 0 ? structure.labelPredicates : LABEL_PREDICATES;
  for (const p of structure.predicates) {
    if (p.iri === RDF_TYPE || !isSafeIri(p.iri)) continue;
    const isLabel = labelPredicates.includes(p.iri);
    // Only classes whose resources carry the predicate get the column (a Direct Mapping labels its tables, not its rows).
    for (const d of p.domains) {
      const t = byClass.get(d);
      if (!t) continue;
      const columnName = isLabel ? "label" : p.label || p.iri.replace(/^.*[/#]/, "");
      if (p.literal) {
        if (table(t).columns.some((c) => c.name === columnName)) continue;
        const type = sqlType(p.ranges);
        const numericText = type === "TEXT" && numericByName(columnName);
        table(t).columns.push({ name: columnName, type: numericText ? "INTEGER" : type, examples: [] });
        columns.set(columnKey(t, columnName), { ref: p.iri, numericText });
        byPredicate.set(p.iri, [...(byPredicate.get(p.iri) ?? []), { table: t, column: columnName }]);
      } else {
        for (const r of p.ranges) {
          const target = byClass.get(r);
          if (!target || target === t) continue;
          const key = `→ ${columnName}`;
          table(t).foreignKeys.push({ columns: [key], refTable: target, refColumns: [VIEW_ID] });
          edges.set(columnKey(t, key), { ref: p.iri, forward: true });
        }
      }
    }
  }
  return {
    structure: { kind: "sql", dialect: "sqlite", tables: sqlTables },
    tables,
    columns,
    edges,
    idColumn: VIEW_ID,
    byClass,
    byPredicate,
  };
}

/** An RDF entity-index value ref: `<predicate> "value"` (sparql/entity-index.ts). */
function parseRdfValueRef(ref: string): { predicate: string; value: string } | null {
  const m = /^<([^>]*)> (".*")$/s.exec(ref);
  if (!m) return null;
  try {
    const value = JSON.parse(m[2]) as unknown;
    return typeof value === "string" ? { predicate: m[1], value } : null;
  } catch {
    return null;
  }
}

/**
 * An RDF link in the view's terms: a literal value → "table.column=value"; a labelled resource → its
 * class table's label value; a class → its table; a literal predicate → its column.
 */
export function rdfLinkInView(view: RdfView, link: EntityLink): EntityLink | null {
  switch (link.kind) {
    case "value": {
      const v = parseRdfValueRef(link.ref);
      if (!v) return null;
      const at =
        view.byPredicate.get(v.predicate)?.find((c) => !link.sourceObject || view.tables.get(c.table) === link.sourceObject) ??
        view.byPredicate.get(v.predicate)?.[0];
      return at ? { ...link, ref: `${at.table}.${at.column}=${v.value}`, sourceObject: at.table } : null;
    }
    case "label": {
      const t = link.sourceObject ? view.byClass.get(link.sourceObject) : undefined;
      return t && view.columns.has(columnKey(t, "label"))
        ? { ...link, kind: "value", ref: `${t}.label=${link.label}`, sourceObject: t }
        : null;
    }
    case "class": {
      const t = view.byClass.get(link.ref);
      return t ? { ...link, kind: "table", ref: t, sourceObject: t } : null;
    }
    case "predicate": {
      const at = view.byPredicate.get(link.ref)?.[0];
      return at ? { ...link, kind: "column", ref: `${at.table}.${at.column}`, sourceObject: at.table } : null;
    }
    default:
      return null;
  }
}
