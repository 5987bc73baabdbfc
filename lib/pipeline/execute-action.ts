import { evidenceId, linearizeRow } from "../backends/evidence";
import { neighborhoodQuery } from "../backends/cypher";
import { collectionActions } from "../backends/documents/actions";
import { openBackend, type KbRecord } from "../backends/registry";
import { type EvidencePiece, type KbKind, LANGUAGE_OF, type NativeQuery, type Scalar } from "../backends/types";
import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import { asAppError } from "../catalog/backend-errors";
import type { CatalogDeps } from "../catalog/deps";
import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { QueryExecutionError } from "../backends/errors";
import {
  ACTION_LABEL,
  type GuideActionInput,
  type GuideActionKind,
  type GuideActionParams,
  MAX_CONTEXT_CHARS,
  describeAction,
  guideActionSchema,
} from "./guide-actions";

const KIND_WORDS: Record<KbKind, string> = {
  DOCUMENTS: "a document collection",
  SQL: "a relational database",
  SPARQL: "an RDF graph",
  CYPHER: "a Neo4j graph",
};

export interface ActionResult {
  /** The context text the action produced (what a guide records and shows). */
  context: string;
  pieces: EvidencePiece[];
  /** The native query an action ran, when it ran one. */
  query: NativeQuery | null;
}

function sparqlNeighborhood(iris: string[], limit: number): NativeQuery {
  const values = iris.map((i) => `<${i.replace(/[<>"{}|^`\\\s]/g, "")}>`).join(" ");
  return {
    language: "sparql",
    text: `SELECT ?s ?p ?o WHERE { VALUES ?e { ${values} } { ?e ?p ?o BIND(?e AS ?s) } UNION { ?s ?p ?e BIND(?e AS ?o) } } LIMIT ${limit}`,
  };
}

/**
 * Runs one AU-RAG retrieval action against its KB and turns the result into evidence: NativeQuery
 * through the backend (safety rules apply), SelectCoordinates / SelectSentenceIdxs on document tables
 * and text, Neighborhood on graphs.
 */
export async function executeGuideAction(
  kb: KbRecord,
  action: GuideActionInput,
  deps: CatalogDeps,
  opts: { timeoutMs: number; maxRows: number; signal?: AbortSignal },
): Promise<ActionResult> {
  const backend = openBackend(kb, deps);
  const kind = kb.kind as KbKind;
  switch (action.kind) {
    case "NATIVE_QUERY":
    case "NEIGHBORHOOD": {
      let query: NativeQuery;
      if (action.kind === "NATIVE_QUERY") query = action.params.query;
      else if (kind === "CYPHER") {
        query = neighborhoodQuery(
          action.params.byName
            ? { names: action.params.entities, hops: action.params.hops, limit: opts.maxRows }
            : { elementIds: action.params.entities, hops: action.params.hops, limit: opts.maxRows },
        );
      } else if (kind === "SPARQL") query = sparqlNeighborhood(action.params.entities, opts.maxRows);
      else
        throw new QueryExecutionError(
          `A Neighborhood action needs a graph knowledge base (RDF or Neo4j); ${kb.name} is ${KIND_WORDS[kind]}.`,
          describeAction(action),
        );
      const result = await backend.execute(query, opts);
      const pieces = backend.verbalize(result);
      return { context: pieces.map((p) => p.text).join("\n"), pieces, query };
    }
    case "SELECT_SENTENCE_IDXS": {
      if (kind !== "DOCUMENTS")
        throw new QueryExecutionError(
          `SelectSentenceIdxs works on document collections; ${kb.name} is ${KIND_WORDS[kind]}.`,
          describeAction(action),
        );
      const sel = await collectionActions(backend).selectSentences(action.params.documentId, action.params.sentenceIdxs);
      const location = { document: sel.documentId, sentences: sel.sentences.map((s) => s.index).join(",") };
      const piece: EvidencePiece = {
        id: evidenceId(kb.id, "passage", location),
        kind: "passage",
        text: sel.text,
        provenance: {
          kb: kb.id,
          kbName: kb.name,
          sourceObject: "collection",
          query: `SelectSentenceIdxs(${sel.documentId}, [${action.params.sentenceIdxs.join(", ")}])`,
          language: "search",
          location,
        },
        entities: [],
        data: {
          documentId: sel.documentId,
          documentTitle: sel.title,
          chunkIndex: -1,
          sentences: sel.sentences.map((s) => s.text),
          firstSentenceIndex: sel.sentences[0]?.index,
        },
      };
      return { context: sel.text, pieces: [piece], query: null };
    }
    case "SELECT_COORDINATES": {
      if (kind !== "DOCUMENTS") {
        throw new QueryExecutionError(
          `SelectCoordinates works on tables: inside documents, or in a relational database (as SQL); ${kb.name} is ${KIND_WORDS[kind]}.`,
          describeAction(action),
        );
      }
      const sel = await collectionActions(backend).selectCoordinates(action.params.tableKey, action.params.rows, action.params.columns);
      const query = `SelectCoordinates(${sel.tableKey}, rows [${action.params.rows.join(", ")}], columns [${action.params.columns.join(", ")}])`;
      const pieces: EvidencePiece[] = sel.rows.map((r) => {
        const location = { table: sel.tableKey, row: r.rowIndex, columns: sel.columns.join(",") };
        return {
          id: evidenceId(kb.id, "row", location),
          kind: "row",
          text: linearizeRow(sel.caption, undefined, sel.columns, r.values),
          provenance: { kb: kb.id, kbName: kb.name, sourceObject: sel.tableKey, query, language: "search", location },
          entities: r.values.filter((v): v is string => typeof v === "string" && !/^[\d.,%$€£ -]+$/.test(v)).slice(0, 3),
          data: { table: sel.caption, columns: sel.columns, values: r.values, rowIndex: r.rowIndex },
        };
      });
      return { context: sel.text, pieces, query: null };
    }
  }
}

export interface CapturedContext {
  /** The context text, cut at MAX_CONTEXT_CHARS (what a guide stores). */
  context: string;
  truncated: boolean;
  /** The evidence the action produced, best first, at most CAPTURE_PIECES of them. */
  pieces: { id: string; kind: EvidencePiece["kind"]; text: string }[];
  pieceCount: number;
  query: NativeQuery | null;
  /** The action in AU-RAG notation, as written, for the screen. */
  description: string;
  /** The action as it ran and as a guide stores it (SelectCoordinates on SQL becomes its query). */
  action: GuideActionInput;
  ms: number;
}

const CAPTURE_PIECES = 50;
export const CAPTURE_LIMITS = { timeoutMs: 15_000, maxRows: 200 } as const;

function capContext(text: string): { context: string; truncated: boolean } {
  if (text.length <= MAX_CONTEXT_CHARS) return { context: text, truncated: false };
  const cut = text.slice(0, MAX_CONTEXT_CHARS);
  const lastLine = cut.lastIndexOf("\n");
  return { context: `${lastLine > MAX_CONTEXT_CHARS / 2 ? cut.slice(0, lastLine) : cut}\n…`, truncated: true };
}

/** Loads a KB the user may use, as a backend record; unknown and restricted KBs look the same. */
export async function accessibleKb(prisma: PrismaClient, user: AccessSubject, kbId: string): Promise<KbRecord> {
  const kb = await prisma.knowledgeBase.findFirst({
    where: { AND: [{ id: kbId }, kbAccessWhere(user)] },
    select: { id: true, name: true, kind: true, config: true, secretsCiphertext: true, updatedAt: true, riskAcceptedAt: true },
  });
  if (!kb) throw new AppError("NOT_FOUND", "That knowledge base does not exist or is not shared with you.");
  return { ...kb, kind: kb.kind as KbKind };
}

/** Checks an action's parameters (and that a NativeQuery is in the KB's own language), naming what is wrong. */
export function parseActionFor(kb: KbRecord, raw: { kind: string; params: unknown }): GuideActionInput {
  const parsed = guideActionSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.filter((p) => p !== "params").join(".");
    throw new AppError(
      "VALIDATION",
      `The ${ACTION_LABEL[raw.kind as GuideActionKind] ?? raw.kind} action is incomplete${where ? ` (${where})` : ""}: ${issue?.message ?? "invalid"}.`,
    );
  }
  const action = parsed.data;
  if (action.kind === "NATIVE_QUERY" && action.params.query.language !== LANGUAGE_OF[kb.kind]) {
    throw new AppError(
      "VALIDATION",
      `${kb.name} answers ${LANGUAGE_OF[kb.kind].toUpperCase()} queries, not ${action.params.query.language.toUpperCase()}.`,
    );
  }
  return action;
}

/**
 * Runs one retrieval action for an analyst (source-object workbench, guide editor) and returns the
 * context it produces. The backends' safety rules apply as at run time; their refusals and failures
 * come back as VALIDATION/UNAVAILABLE errors whose messages say what to change.
 */
export async function runRetrievalAction(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  input: { kbId: string; kind: string; params: unknown },
  signal?: AbortSignal,
): Promise<CapturedContext> {
  const kb = await accessibleKb(prisma, user, input.kbId);
  const action = parseActionFor(kb, input);
  return captureAction(kb, action, deps, signal);
}

function sqlLiteral(v: Scalar, dialect: "sqlite" | "postgres"): string {
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new Error(`cannot compare with ${v}`);
    return String(v);
  }
  if (typeof v === "boolean") return dialect === "postgres" ? (v ? "TRUE" : "FALSE") : v ? "1" : "0";
  return `'${String(v)
    .replace(/\u0000/g, "")
    .replace(/'/g, "''")}'`;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * SelectCoordinates on a relational table. AU-RAG addresses rows by position, which a database does
 * not keep; so the selection (positions in the table's preview) becomes the SQL that reads those cells
 * by primary key (every column when there is none), and that query is what runs and what a guide stores.
 */
export async function sqlCoordinatesQuery(
  kb: KbRecord,
  deps: CatalogDeps,
  params: GuideActionParams<"SELECT_COORDINATES">,
): Promise<NativeQuery> {
  const action = describeAction({ kind: "SELECT_COORDINATES", params });
  const backend = openBackend(kb, deps);
  const structure = await backend.structure();
  if (structure.kind !== "sql") throw new QueryExecutionError(`${kb.name} is not a relational database.`, action);
  const table = structure.tables.find((t) => t.name === params.tableKey);
  if (!table)
    throw new QueryExecutionError(
      `There is no table "${params.tableKey}" in ${kb.name}. Refresh the source objects to see the current tables.`,
      action,
    );
  const preview = await backend.preview(table.name, { limit: Math.max(...params.rows) + 1 });
  if (preview.kind !== "table") throw new QueryExecutionError(`"${table.name}" cannot be read as a table.`, action);
  const badRows = params.rows.filter((i) => i >= preview.rows.length);
  if (badRows.length)
    throw new QueryExecutionError(
      `Table "${table.name}" has no row ${badRows.join(", ")}: it has rows 0 to ${preview.rows.length - 1}.`,
      action,
    );
  const columns = params.columns.map((c) => (typeof c === "number" ? preview.columns[c] : c));
  const badCols = params.columns.filter((c, k) => !columns[k] || !preview.columns.includes(columns[k]));
  if (badCols.length)
    throw new QueryExecutionError(
      `Table "${table.name}" has no column ${badCols.map((c) => JSON.stringify(c)).join(", ")}; its columns are ${preview.columns.join(", ")}.`,
      action,
    );
  const keys = table.primaryKey.length && table.primaryKey.every((k) => preview.columns.includes(k)) ? table.primaryKey : preview.columns;
  const rows = [...new Set(params.rows)].sort((a, b) => a - b);
  const where = rows.map((i) => {
    const row = preview.rows[i];
    const cells = keys.map((k) => {
      const v = row[preview.columns.indexOf(k)] ?? null;
      return v === null ? `${quoteIdent(k)} IS NULL` : `${quoteIdent(k)} = ${sqlLiteral(v, structure.dialect)}`;
    });
    return cells.length > 1 ? `(${cells.join(" AND ")})` : cells[0];
  });
  const text = `SELECT ${[...new Set(columns)].map(quoteIdent).join(", ")}\nFROM ${quoteIdent(table.name)}\nWHERE ${where.join("\n   OR ")}\nORDER BY ${keys.map(quoteIdent).join(", ")}`;
  return { language: "sql", text };
}

/**
 * The action as it runs and is stored: SelectCoordinates on a relational table becomes its SQL (see
 * sqlCoordinatesQuery); every other action is kept as written.
 */
export async function executableAction(kb: KbRecord, action: GuideActionInput, deps: CatalogDeps): Promise<GuideActionInput> {
  if (action.kind !== "SELECT_COORDINATES" || kb.kind !== "SQL") return action;
  try {
    return { kind: "NATIVE_QUERY", params: { query: await sqlCoordinatesQuery(kb, deps, action.params) } };
  } catch (e) {
    throw asAppError(e);
  }
}

export async function captureAction(
  kb: KbRecord,
  written: GuideActionInput,
  deps: CatalogDeps,
  signal?: AbortSignal,
): Promise<CapturedContext> {
  const started = performance.now();
  const action = await executableAction(kb, written, deps);
  let result: ActionResult;
  try {
    result = await executeGuideAction(kb, action, deps, { ...CAPTURE_LIMITS, signal });
  } catch (e) {
    throw asAppError(e);
  }
  return {
    ...capContext(result.context),
    pieces: result.pieces.slice(0, CAPTURE_PIECES).map((p) => ({ id: p.id, kind: p.kind, text: p.text.slice(0, 2000) })),
    pieceCount: result.pieces.length,
    query: result.query,
    description: describeAction(written),
    action,
    ms: Math.round(performance.now() - started),
  };
}
