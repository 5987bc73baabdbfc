import { z } from "zod";
import type { Embedder } from "../models/types";

/**
 * The one interface every knowledge-base kind implements (OmniRetrieval: each KB keeps its native
 * engine and language; a caller reads the descriptor c_b to write native queries). Adding a source
 * is registration only: lib/backends/registry.ts opens the right implementation from a KB row.
 */

export const KB_KINDS = ["DOCUMENTS", "SQL", "SPARQL", "CYPHER"] as const;
export type KbKind = (typeof KB_KINDS)[number];

export type QueryLanguage = "search" | "sql" | "sparql" | "cypher";

export const LANGUAGE_OF: Record<KbKind, QueryLanguage> = {
  DOCUMENTS: "search",
  SQL: "sql",
  SPARQL: "sparql",
  CYPHER: "cypher",
};

/** What a backend needs besides its own config: where it may keep files, and who it is for messages. */
export interface BackendContext {
  kbId: string;
  kbName: string;
  /** A directory owned by this KB (DATA_DIR/kbs/<kbId>): uploads, indexes, stores. Created by the caller. */
  storageDir: string;
  /**
   * An admin accepted that this KB's connection may do more than read (a PostgreSQL role that is a
   * superuser or can write; sql/postgres/privileges.ts). Without it such a connection is refused.
   */
  privilegeRiskAccepted?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Native queries and raw results

export const searchFiltersSchema = z
  .object({
    /** Restrict to these document ids. */
    documentIds: z.array(z.string()).optional(),
    /** Restrict to passages or tables. */
    contentType: z.enum(["text", "table"]).optional(),
    /** Restrict to a source object (document key or table key). */
    sourceObject: z.string().optional(),
  })
  .strict();
export type SearchFilters = z.infer<typeof searchFiltersSchema>;

export const nativeQuerySchema = z.object({
  language: z.enum(["search", "sql", "sparql", "cypher"]),
  /** SQL / SPARQL / Cypher text, or the search text for documents. */
  text: z.string().min(1).max(100_000),
  /** Documents only. */
  filters: searchFiltersSchema.optional(),
  /**
   * Documents only: what the vector half of a hybrid search embeds, in plain words (the question).
   * The search text is a keyword list built for BM25 (stems, no stopwords); the collection's vectors
   * are of natural passages, so a keyword list embeds into the wrong neighbourhood. Absent: the text.
   */
  semantic: z.string().min(1).max(2_000).optional(),
  /** Cypher parameters (never spliced into the text). */
  params: z.record(z.string(), z.unknown()).optional(),
});
export type NativeQuery = z.infer<typeof nativeQuerySchema>;

export interface ExecuteOptions {
  /** Hard time limit enforced by the engine where it can (statement_timeout, transaction timeout), else by us. */
  timeoutMs: number;
  /** At most this many records are returned; `truncated` says whether more existed. */
  maxRows: number;
  signal?: AbortSignal;
  /** Document collections: the sentence embedder for hybrid (BM25 + vector) search; absent or null = BM25 only. */
  embedder?: Embedder | null;
}

export const DEFAULT_EXECUTE_OPTIONS: ExecuteOptions = { timeoutMs: 10_000, maxRows: 1_000 };

export type Scalar = string | number | boolean | null;

/**
 * The table name of rows a query computes (aggregates, joins, unions, graph records) rather than reads
 * from one stored table; every backend verbalizes such rows under it, and the evidence panel says
 * "computed by the query" instead.
 */
export const COMPUTED_ROWS_TABLE = "Query result";

export interface RawResult {
  query: NativeQuery;
  /** Column names (SQL), variables (SPARQL), return keys (Cypher), or the fields of a search hit. */
  columns: string[];
  /** Plain JSON-safe values only (no driver objects): nodes/relationships/IRIs are encoded as objects. */
  records: Record<string, unknown>[];
  truncated: boolean;
  elapsedMs: number;
}

// ---------------------------------------------------------------------------------------------
// Evidence (Quasar's verbalized pool): every kind turns raw records into these.

export type EvidenceKind = "passage" | "row" | "triple" | "path";

export interface PassageData {
  documentId: string;
  documentTitle: string;
  /** Chunk position inside the document (0-based) and its character offsets. */
  chunkIndex: number;
  start?: number;
  end?: number;
  sentences?: string[];
  /** Index of the first sentence of this chunk inside the whole document. */
  firstSentenceIndex?: number;
  /** Search score from the engine (bm25, lower is better in SQLite; stored as given). */
  engineScore?: number;
}

export interface RowData {
  table: string;
  /** A section inside the table's source (document heading, report name) when known. */
  section?: string;
  columns: string[];
  values: Scalar[];
  /** Row position in the source table when known (documents), or the primary key values (SQL). */
  rowIndex?: number;
  key?: Record<string, Scalar>;
  /** Search score when the row came from a document search (bm25 as SQLite reports it). */
  engineScore?: number;
}

export interface TermData {
  /** IRI, blank-node id, or literal lexical form. */
  value: string;
  /** Human-readable label (rdfs:label, local name, or the literal). */
  label: string;
  termType: "NamedNode" | "BlankNode" | "Literal";
  datatype?: string;
  language?: string;
  /** Label of one rdf:type of the resource, when known ("City"): lets the answer stage match "which city". */
  classLabel?: string;
}

export interface TripleData {
  subject: TermData;
  predicate: TermData;
  object: TermData;
}

export interface PathNode {
  id: string;
  labels: string[];
  /** What to show: name/title property, else the first string property, else the id. */
  caption: string;
  properties: Record<string, Scalar | Scalar[]>;
}

export interface PathEdge {
  from: string;
  to: string;
  type: string;
  properties: Record<string, Scalar | Scalar[]>;
}

export interface PathData {
  nodes: PathNode[];
  edges: PathEdge[];
}

export interface Provenance {
  kb: string;
  kbName: string;
  /** Source object key inside the KB (table name, document id, class IRI, node label), when known. */
  sourceObject: string | null;
  /** The native query that produced the piece, verbatim. */
  query: string;
  /**
   * Other queries of the same run that returned this very evidence (same source, same content),
   * verbatim: identical evidence is cited once, with every query that found it (merge-evidence.ts).
   */
  alsoQueries?: string[];
  /**
   * The values bound to the query's parameters ($p0 …), when it has any. A parameterised query's text
   * does not show what it filtered on: "WHERE c.name = $p0" reads "Confections" only from here.
   */
  params?: Record<string, Scalar>;
  language: QueryLanguage;
  /** Where in the KB: e.g. {table, row} or {document, chunk} or {subject, predicate} or {path}. */
  location: Record<string, Scalar>;
}

export interface EvidencePiece {
  /** Stable across runs for the same content at the same place: see evidenceId() in evidence.ts. */
  id: string;
  kind: EvidenceKind;
  /** Quasar linearization: row "Table / section / Col: v, Col: v"; triple "s p o"; path "A -rel-> B". */
  text: string;
  provenance: Provenance;
  /** Entity surface forms mentioned in the piece (names, labels, key values) for entity overlap scoring. */
  entities: string[];
  data: PassageData | RowData | TripleData | PathData;
}

// ---------------------------------------------------------------------------------------------
// Descriptor, source units, previews, entity index, health

export interface Descriptor {
  /** The descriptor c_b a caller reads to write native queries; bounded in size. */
  text: string;
  /** Shorter form for catalogs with many KBs (large schemas name every table but drop details). */
  compact: string;
  /** Stable hash of `text`: the same content gives the same version. */
  version: string;
  stats: Record<string, number>;
}

export type SourceContentType = "TEXT" | "TABLE" | "GRAPH";

/** A unit of content of the KB: becomes a source object (AU-RAG) at registration. */
export interface SourceUnit {
  /** Stable key inside the KB: table name, document id, document-id#table-n, class IRI, node label. */
  key: string;
  name: string;
  contentType: SourceContentType;
  /** Generated from the content: what is in it, size, main fields. Analysts may edit it later. */
  description: string;
  tags: string[];
  metadata: Record<string, Scalar | Scalar[]>;
}

export type Preview =
  | { kind: "table"; title: string; columns: string[]; rows: Scalar[][]; totalRows?: number; truncated: boolean }
  | { kind: "text"; title: string; sentences: string[]; truncated: boolean }
  | { kind: "graph"; title: string; data: PathData; truncated: boolean };

export type EntityKind = "value" | "label" | "class" | "predicate" | "node" | "table" | "column" | "document";

export interface EntityIndexEntry {
  /** The surface form a question may contain ("Tom Hanks", "Germany", "revenue"). */
  label: string;
  kind: EntityKind;
  /** What it refers to in the KB's own terms: IRI, node element id, "table.column=value", document id. */
  ref: string;
  sourceObject: string | null;
}

export interface HealthResult {
  ok: boolean;
  /** One sentence a person can act on: "Connected (SQLite 3.53, 12 tables)" or "Connection refused at …". */
  message: string;
  latencyMs: number;
  /** What the connection may do beyond reading (PostgreSQL roles), one sentence each; absent or empty when it may only read. */
  privilegeRisks?: string[];
  /** The source answered but is refused for that reason until an admin accepts the risk. */
  refused?: boolean;
}

/**
 * The structure of a KB as data (not text): what query formulation links questions against
 * (SQL tables/columns/keys, RDF classes/predicates, graph labels/relationship patterns, document tables).
 */
/**
 * A column as schema linking reads it. The engine's introspection gives name, type and examples; an
 * analyst's notes on the table (lib/catalog/table-notes.ts) add the words the business uses for it and
 * what it means, and measures: columns no row holds, an aggregate over an expression of the table's
 * columns ("revenue" = SUM(quantity * unit_price)), written into queries in place of a column name.
 */
export interface SqlStructureColumn {
  name: string;
  type: string;
  examples: Scalar[];
  synonyms?: string[];
  description?: string;
  measure?: { aggregate: "sum" | "avg" | "min" | "max"; parts: ({ text: string } | { column: string })[] };
}

export type KbStructure =
  | {
      kind: "sql";
      dialect: "sqlite" | "postgres";
      tables: {
        name: string;
        columns: SqlStructureColumn[];
        primaryKey: string[];
        foreignKeys: { columns: string[]; refTable: string; refColumns: string[] }[];
        rows: number | null;
      }[];
    }
  | {
      kind: "rdf";
      prefixes: Record<string, string>;
      classes: { iri: string; label: string; instances: number }[];
      predicates: { iri: string; label: string; count: number; domains: string[]; ranges: string[]; literal: boolean }[];
      labelPredicates: string[];
    }
  | {
      kind: "graph";
      labels: { label: string; count: number; properties: { name: string; types: string[]; examples: Scalar[] }[] }[];
      relationships: { type: string; count: number; properties: { name: string; types: string[] }[] }[];
      patterns: { from: string; type: string; to: string; count: number }[];
      /** Property used as the display name per label (name, title...). */
      captionKeys: Record<string, string>;
    }
  | {
      kind: "documents";
      documents: number;
      tables: { key: string; caption: string; section: string | null; columns: string[]; rows: number }[];
    };

export interface KnowledgeBackend {
  readonly kind: KbKind;
  readonly language: QueryLanguage;
  check(): Promise<HealthResult>;
  describe(): Promise<Descriptor>;
  sourceUnits(): Promise<SourceUnit[]>;
  /** Runs a native query under the safety rules (read-only, single statement, timeout, row cap) or throws QueryRejectedError. */
  execute(query: NativeQuery, options?: Partial<ExecuteOptions>): Promise<RawResult>;
  /** Turns raw records into evidence pieces (pure; no I/O). */
  verbalize(result: RawResult, options?: { sourceObject?: string | null }): EvidencePiece[];
  preview(sourceKey: string, options?: { limit?: number }): Promise<Preview>;
  /** Labels and values worth linking questions against, at most `limit`. */
  entityIndex(options?: { limit?: number }): Promise<EntityIndexEntry[]>;
  /** The KB's structure as data, for query formulation (schema linking, patterns, neighbourhoods). */
  structure(): Promise<KbStructure>;
  close(): Promise<void>;
}

/** A query's parameters as a provenance holds them: scalars as they are, lists of scalars joined, the rest left out. */
export function provenanceParams(query: Pick<NativeQuery, "params">): Pick<Provenance, "params"> {
  const out: Record<string, Scalar> = {};
  const isScalar = (v: unknown): v is Scalar => v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";
  for (const [name, value] of Object.entries(query.params ?? {})) {
    if (isScalar(value)) out[name] = value;
    else if (Array.isArray(value) && value.every((v) => v !== null && isScalar(v))) out[name] = value.join(", ");
  }
  return Object.keys(out).length > 0 ? { params: out } : {};
}

/** The query a piece came from as text to search for what it names: its text and the values bound to its parameters. */
export function provenanceQueryText(provenance: Pick<Provenance, "query" | "params">): string {
  const values = Object.values(provenance.params ?? {}).filter((v) => v !== null);
  return values.length > 0 ? `${provenance.query} ${values.join(" ")}` : provenance.query;
}
