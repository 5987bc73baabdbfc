import { evidenceId, linearizeRow } from "../backends/evidence";
import { neighborhoodQuery } from "../backends/cypher";
import { collectionActions } from "../backends/documents/actions";
import { openBackend, type KbRecord } from "../backends/registry";
import type { EvidencePiece, KbKind, NativeQuery } from "../backends/types";
import type { CatalogDeps } from "../deps";
import { QueryExecutionError } from "../backends/errors";
import { type GuideActionInput, describeAction } from "./guide-actions";

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
