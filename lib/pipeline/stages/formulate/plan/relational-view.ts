import type { EntityLink, Intent } from "../../../contracts";
import type { SqlStructure } from "../sql/sql-structure";

/**
 * A graph source seen as tables, so one question plan (formulate/sql: schema linking, constructs,
 * projection) serves SQL, SPARQL and Cypher alike. An RDF class or a Neo4j label is a table; a literal
 * predicate or a node property is a column; an object predicate or a relationship is a key between
 * tables. Each part keeps how the source writes it, and the SPARQL and Cypher renderers write the plan
 * back in those terms.
 */

export interface ViewColumn {
  /** The predicate IRI or property key; null for the row's own identity (the resource, the node). */
  ref: string | null;
  /** The source stores numbers as text here (a Direct Mapping of a TEXT column): compare as numbers. */
  numericText?: boolean;
}

export interface ViewEdge {
  /** The object predicate IRI or relationship type. */
  ref: string;
  /** The key is written from `table` to `refTable` (true) or the other way (a relationship read backwards). */
  forward: boolean;
}

export interface RelationalView {
  structure: SqlStructure;
  /** Table name → class IRI / node label. */
  tables: Map<string, string>;
  /** `${table}\u0000${column}` → how the column is read. */
  columns: Map<string, ViewColumn>;
  /** `${table}\u0000${keyColumn}` → the predicate or relationship a key follows. */
  edges: Map<string, ViewEdge>;
  /** The name of the identity column every view table has (its primary key). */
  idColumn: string;
}

export const VIEW_ID = "@id";

export function columnKey(table: string, column: string): string {
  return `${table}\u0000${column}`;
}

/**
 * The intent with its links into `kbId` rewritten in the view's terms ("table.column=value" values,
 * table and column links), so SQL schema linking reads them; `translate` maps one link (null: drop).
 */
export function viewIntent(intent: Intent, kbId: string, translate: (link: EntityLink) => EntityLink | null): Intent {
  return {
    ...intent,
    entities: intent.entities.map((e) => ({
      ...e,
      links: e.links.flatMap((l) => {
        if (l.kbId !== kbId) return [l];
        const t = translate(l);
        return t ? [t] : [];
      }),
    })),
  };
}
