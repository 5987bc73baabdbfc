import { evidenceId, linearizePath, linearizeRow, linearizeTriple } from "@/lib/backends/evidence";
import type { EvidencePiece, PassageData, PathData, PathEdge, PathNode, RowData, Scalar, TermData, TripleData } from "@/lib/backends/types";
import { isStopword, words } from "@/lib/pipeline/text";
import type {
  Answer,
  Critique,
  EntityMention,
  ExecutedQuery,
  Intent,
  QueryFit,
  QueryResult,
  ScoredEvidence,
} from "@/lib/pipeline/contracts";
import { critique } from "@/lib/pipeline/stages/critique/classical";
import { baseIntent } from "./intent-fixture";

/**
 * Hand-made evidence for the answer and critique tests, built the way the backends verbalize
 * (lib/backends/{sql,sparql,cypher,documents}/verbalize.ts): same linearization, ids, data and provenance.
 * The content is the Aurora Outfitters demo catalog and the Neo4j movies graph.
 */

export const KB = {
  sales: { id: "kb_sales", name: "Aurora sales database" },
  products: { id: "kb_products", name: "Aurora product graph" },
  docs: { id: "kb_docs", name: "Aurora documents" },
  movies: { id: "kb_movies", name: "Movies graph" },
  finance: { id: "kb_finance", name: "Finance warehouse" },
} as const;
type Kb = (typeof KB)[keyof typeof KB];

export const EX = "https://data.aurora-outfitters.example/";

export function scored(piece: EvidencePiece, score: number): ScoredEvidence {
  return { piece, score, scores: { bm25: score } };
}

/** An SQL row ("table / Col: v, …"), located by primary key when given, else by query and position. */
export function sqlRow(
  kb: Kb,
  table: string,
  columns: string[],
  values: Scalar[],
  query: string,
  opts: { key?: Record<string, Scalar>; row?: number } = {},
): EvidencePiece {
  const location: Record<string, Scalar> = opts.key
    ? {
        table,
        key: Object.entries(opts.key)
          .map(([c, v]) => `${c}=${v}`)
          .join(", "),
      }
    : { table, query: query.length.toString(16), row: opts.row ?? 0 };
  const data: RowData = { table, columns, values, ...(opts.key ? { key: opts.key } : { rowIndex: opts.row ?? 0 }) };
  return {
    id: evidenceId(kb.id, "row", location),
    kind: "row",
    text: linearizeRow(table, undefined, columns, values),
    provenance: { kb: kb.id, kbName: kb.name, sourceObject: table === "Query result" ? null : table, query, language: "sql", location },
    entities: values.filter((v): v is string => typeof v === "string" && /\p{L}/u.test(v)),
    data,
  };
}

/** A row of a table inside a document ("caption / section / Col: v"). */
export function docRow(
  kb: Kb,
  documentId: string,
  caption: string,
  section: string,
  columns: string[],
  values: Scalar[],
  rowIndex: number,
  query: string,
): EvidencePiece {
  const location: Record<string, Scalar> = { document: documentId, table: `${documentId}#table-0`, row: rowIndex };
  return {
    id: evidenceId(kb.id, "row", location),
    kind: "row",
    text: linearizeRow(caption, section, columns, values),
    provenance: { kb: kb.id, kbName: kb.name, sourceObject: `${documentId}#table-0`, query, language: "search", location },
    entities: [String(values[0]), caption],
    data: { table: caption, section, columns, values, rowIndex } satisfies RowData,
  };
}

export const iri = (local: string, label: string): TermData => ({ value: `${EX}${local}`, label, termType: "NamedNode" });
export const literal = (value: string, datatype?: string): TermData => ({
  value,
  label: value,
  termType: "Literal",
  ...(datatype ? { datatype: `http://www.w3.org/2001/XMLSchema#${datatype}` } : {}),
});

export function triple(kb: Kb, subject: TermData, predicate: TermData, object: TermData, query: string): EvidencePiece {
  const data: TripleData = { subject, predicate, object };
  const location = { subject: subject.value, predicate: predicate.value, object: object.value };
  return {
    id: evidenceId(kb.id, "triple", location),
    kind: "triple",
    text: linearizeTriple(subject.label, predicate.label, object.label),
    provenance: { kb: kb.id, kbName: kb.name, sourceObject: null, query, language: "sparql", location },
    entities: [subject.label, ...(object.termType === "Literal" ? [] : [object.label])],
    data,
  };
}

export const node = (id: string, label: string, caption: string, properties: PathNode["properties"] = {}): PathNode => ({
  id,
  labels: [label],
  caption,
  properties: { ...(label === "Movie" ? { title: caption } : { name: caption }), ...properties },
});
export const edge = (from: string, to: string, type: string, properties: PathEdge["properties"] = {}): PathEdge => ({
  from,
  to,
  type,
  properties,
});

/** A Cypher path "A -REL-> B" with relationship properties in the text, as cypher/verbalize.ts writes it. */
export function path(kb: Kb, nodes: PathNode[], edges: PathEdge[], query: string): EvidencePiece {
  const data: PathData = { nodes, edges };
  const rels = edges.map((e, i) => {
    const props = Object.entries(e.properties).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join("; ") : v}`);
    return { type: props.length ? `${e.type} (${props.join(", ")})` : e.type, forward: e.from === nodes[i].id };
  });
  const ids = [nodes[0].id];
  edges.forEach((_, i) => ids.push(`r${nodes[i].id}${nodes[i + 1].id}`, nodes[i + 1].id));
  const location = { path: ids.join(",") };
  return {
    id: evidenceId(kb.id, "path", location),
    kind: "path",
    text: linearizePath(nodes, rels),
    provenance: { kb: kb.id, kbName: kb.name, sourceObject: nodes[0].labels[0], query, language: "cypher", location },
    entities: nodes.map((n) => n.caption),
    data,
  };
}

/** A document chunk: "Title / Section: text", sentences kept as the documents backend stores them. */
export function passage(
  kb: Kb,
  documentId: string,
  title: string,
  section: string | null,
  sentences: string[],
  chunkIndex: number,
  query: string,
): EvidencePiece {
  const location: Record<string, Scalar> = { document: documentId, chunk: chunkIndex };
  const text = sentences.join(" ");
  const data: PassageData = { documentId, documentTitle: title, chunkIndex, sentences, firstSentenceIndex: chunkIndex * 4 };
  return {
    id: evidenceId(kb.id, "passage", location),
    kind: "passage",
    text: `${section ? `${title} / ${section}` : title}: ${text}`,
    provenance: { kb: kb.id, kbName: kb.name, sourceObject: documentId, query, language: "search", location },
    entities: [],
    data,
  };
}

// ---------------------------------------------------------------------------------------------
// Intents as the understand stage produces them

export function link(label: string, kb: Kb, ref: string, kind = "label", score = 1): EntityMention["links"][number] {
  return { kbId: kb.id, label, kind, ref, sourceObject: null, score };
}

export function mention(question: string, text: string, links: EntityMention["links"] = []): EntityMention {
  const at = question.indexOf(text);
  return { mention: text, span: at >= 0 ? [at, at + text.length] : null, links, fromContext: false };
}

export function intent(question: string, over: Partial<Intent> = {}): Intent {
  return baseIntent(question, { keywords: words(question).filter((w) => !isStopword(w, "en")), ...over });
}

export function executed(
  kb: Kb,
  strategy: ExecutedQuery["strategy"],
  language: "sql" | "sparql" | "cypher" | "search",
  text: string,
  status: ExecutedQuery["status"],
  rows: number,
  over: Partial<ExecutedQuery> = {},
): ExecutedQuery {
  const kind = language === "sql" ? "SQL" : language === "sparql" ? "SPARQL" : language === "cypher" ? "CYPHER" : "DOCUMENTS";
  return {
    kbId: kb.id,
    kbName: kb.name,
    kind,
    query: { language, text },
    strategy,
    sourceObject: null,
    explanation: `${strategy} query`,
    status,
    rows,
    truncated: false,
    ms: 5,
    evidenceIds: [],
    ...over,
  };
}

/** A committed SQL query's result that found no rows, with what the query represents of the question. */
export function emptySqlResult(kbId: string, kbName: string, query: string, fit: QueryFit): QueryResult {
  return { kbId, kbName, language: "sql", query, columns: [], rows: [], pieceIds: [], truncated: false, cap: 100, fit, grouped: null };
}

/** The critic's verdict on a first round that ran no queries and pooled no evidence: what the answer alone decides. */
export function firstRoundVerdict(question: Intent, answer: Answer): Critique {
  return critique({ intent: question, answer, evidence: [], executed: [], candidates: [], round: 1, maxRounds: 3, previousFeedback: [] });
}
