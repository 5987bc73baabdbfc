import { count } from "../format/count";

/**
 * The words a knowledge base's counts and connection settings are shown with. The backends report
 * them under code keys (`tableRows`, `failedDocuments`, `defaultGraph`); screens show these labels.
 * A key not listed here is spelled out from its code name ("relationshipTypes" → "Relationship types"),
 * so a new count still reads as words.
 */
const STAT_NOUNS: Record<string, [one: string, other: string]> = {
  // documents (tables: in documents, or of a database)
  documents: ["document", "documents"],
  chunks: ["passage", "passages"],
  tables: ["table", "tables"],
  tableRows: ["table row", "table rows"],
  failedDocuments: ["unreadable document", "unreadable documents"],
  // SQL
  columns: ["column", "columns"],
  rows: ["row", "rows"],
  foreignKeys: ["foreign key", "foreign keys"],
  // RDF
  triples: ["triple", "triples"],
  classes: ["class", "classes"],
  predicates: ["predicate", "predicates"],
  examples: ["example", "examples"],
  // Neo4j
  nodes: ["node", "nodes"],
  relationships: ["relationship", "relationships"],
  labels: ["label", "labels"],
  relationshipTypes: ["relationship type", "relationship types"],
  patterns: ["pattern", "patterns"],
};

function spellOut(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .toLowerCase()
    .trim();
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export interface StatLine {
  key: string;
  /** As a heading: "Table rows". */
  label: string;
  /** null: the source could not say (a remote endpoint that does not count its triples). */
  value: number | null;
}

const STAT_ORDER = Object.keys(STAT_NOUNS);
/** Listed keys in the order above (the database does not keep the backend's order), others after them. */
const rank = (key: string) => (STAT_ORDER.includes(key) ? STAT_ORDER.indexOf(key) : STAT_ORDER.length);

/** Every count, labelled, most telling first ("Documents", "Passages"…); a negative count means "unknown". */
export function statLines(stats: Record<string, number>): StatLine[] {
  const keys = Object.keys(stats).sort((a, b) => rank(a) - rank(b));
  return keys
    .map((key) => [key, stats[key]] as const)
    .map(([key, v]) => ({
      key,
      label: capitalise(STAT_NOUNS[key]?.[1] ?? spellOut(key)),
      value: Number.isFinite(v) && v >= 0 ? v : null,
    }));
}

/** "12 table rows", "1 passage"; for an unlisted key "relationship types: 4". */
export function statPhrase(key: string, n: number): string {
  const noun = STAT_NOUNS[key];
  return noun ? count(n, noun[0], noun[1]) : `${spellOut(key)}: ${n.toLocaleString("en")}`;
}

/** The first few known counts in one line: "3 documents · 42 passages · 1 table". */
export function statsSummary(stats: Record<string, number>, max = 3): string {
  return statLines(stats)
    .filter((s): s is StatLine & { value: number } => s.value !== null)
    .slice(0, max)
    .map((s) => statPhrase(s.key, s.value))
    .join(" · ");
}

const CONFIG_LABELS: Record<string, string> = {
  dialect: "Engine",
  host: "Host",
  port: "Port",
  database: "Database",
  user: "User",
  schema: "Schema",
  ssl: "Encrypted connection (TLS)",
  mode: "Store",
  endpoint: "Endpoint",
  defaultGraph: "Default graph",
  uri: "Bolt URI",
  language: "Language",
  engine: "Search index kept",
  // An OpenSearch collection's cluster settings, flattened by the page as "opensearch.<key>".
  "opensearch.url": "Cluster address",
  "opensearch.username": "Cluster user",
  "opensearch.indexPrefix": "Index name prefix",
  "opensearch.shards": "Shards",
  "opensearch.replicas": "Replicas",
};

const CONFIG_VALUES: Record<string, Record<string, string>> = {
  dialect: { sqlite: "SQLite (uploaded file, read-only)", postgres: "PostgreSQL" },
  mode: { embedded: "Embedded (uploaded RDF)", remote: "Remote SPARQL endpoint" },
  engine: { sqlite: "On this server (SQLite)", opensearch: "In an OpenSearch cluster" },
  language: { en: "English", de: "German", fr: "French", es: "Spanish", it: "Italian", nl: "Dutch" },
};

/** A knowledge base's connection settings as label and value; booleans as yes/no. */
export function configLines(config: Record<string, unknown>): { key: string; label: string; value: string }[] {
  return Object.entries(config)
    .filter(([, v]) => v !== undefined && v !== null && v !== "")
    .map(([key, v]) => ({
      key,
      label: CONFIG_LABELS[key] ?? capitalise(spellOut(key)),
      value:
        typeof v === "boolean"
          ? v
            ? "yes"
            : "no"
          : (CONFIG_VALUES[key]?.[String(v)] ?? (typeof v === "object" ? JSON.stringify(v) : String(v))),
    }));
}
