import { rememberVector } from "../../../models/known-vectors";
import { QueryExecutionError, QueryRejectedError, QuerySyntaxError, QueryTimeoutError } from "../../errors";
import { type ExecuteOptions, type NativeQuery, type Scalar, type RawResult, searchFiltersSchema } from "../../types";
import { queryTerms } from "../fts-query";
import { DEFAULT_FUSION, type FusionSettings, type RankedRow, fuseRankings } from "../fusion";
import { COLLECTION_UNIT, SEARCH_RESULT_COLUMNS, type SearchRecord, scalarEntries } from "../records";
import { type DenseQuery, vectorTextNote } from "../search";
import { documentRecordId, type OpenSearchCollection } from "./collection";
import { OpenSearchRequestError } from "./connection";
import { vectorField } from "./layout";
import type { DocumentRecord, UnitRecord } from "./store";

/** As in SQLite's search.ts: each ranking of a hybrid search contributes at least this many candidates. */
const MIN_HYBRID_CANDIDATES = 100;
const MAX_HYBRID_CANDIDATES = 1000;

/** What a search never needs back: the vectors (large) and the analysed copy of heading and body. */
const UNIT_SOURCE = { excludes: ["vector_*", "search_text", "heading", "body"] };

/** The filters as query clauses over the units index; an unknown source object is an error, not an empty result. */
async function filterClauses(c: OpenSearchCollection, query: NativeQuery): Promise<object[]> {
  const parsed = searchFiltersSchema.safeParse(query.filters ?? {});
  if (!parsed.success) {
    throw new QuerySyntaxError(
      `invalid search filters (${parsed.error.issues.map((i) => `${i.path.join(".") || "filters"}: ${i.message}`).join("; ")})`,
      query.text,
    );
  }
  const filters = parsed.data;
  const out: object[] = [];
  if (filters.contentType) out.push({ term: { kind: filters.contentType === "table" ? "row" : "chunk" } });
  if (filters.documentIds) out.push({ terms: { document_id: filters.documentIds } });
  const unit = filters.sourceObject;
  if (unit !== undefined) {
    if (unit === COLLECTION_UNIT) {
      out.push({ term: { kind: "chunk" } });
    } else if ((await c.count(c.names.contentAlias, { bool: { filter: [{ term: { type: "table" } }, { term: { key: unit } }] } })) > 0) {
      out.push({ term: { table_key: unit } });
    } else if ((await c.getContent<DocumentRecord>([documentRecordId(unit)], ["status"])).get(documentRecordId(unit))?.status === "ready") {
      out.push({ term: { document_id: unit } });
    } else {
      throw new QueryExecutionError(
        `This collection has no source object "${unit}" (expected "${COLLECTION_UNIT}", a document id or a table key such as "<document>#table-1").`,
        query.text,
      );
    }
  }
  return out;
}

/** What the evidence panel shows under the search text for a hybrid search on this engine. */
export function describeOpenSearchHybrid(s: FusionSettings, model: { name: string; precision: string }): string {
  const how = s.method === "rrf" ? `reciprocal-rank fusion (k = ${s.k})` : "weighted blend of normalised BM25 and cosine similarity";
  const n = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));
  return `hybrid search: BM25 (OpenSearch) + vector similarity (${model.name}, ${model.precision}; k-NN, Lucene HNSW), ${how}, weights BM25 ${n(s.weights.bm25)} : vector ${n(s.weights.vector)}`;
}

interface Ranked {
  id: string;
  score: number;
  unit: UnitRecord;
}

/**
 * The same search as SQLite's searchCollection, on OpenSearch: the same query terms (stopwords out,
 * at most MAX_QUERY_TERMS, every term a plain word: the text is analysed, never parsed as query
 * syntax), BM25 over heading and body, the same filters, and with `dense` a k-NN search (Lucene HNSW,
 * filtered by the same filters and by the model that wrote the vectors) fused by the same function.
 * The cluster is told the caller's time budget, and the request is abandoned when it is spent or the
 * caller gives up.
 */
export async function searchOpenSearch(
  c: OpenSearchCollection,
  language: string,
  query: NativeQuery,
  options: ExecuteOptions,
  dense: DenseQuery | null = null,
  fusion: FusionSettings = DEFAULT_FUSION,
): Promise<RawResult> {
  const started = performance.now();
  if (query.language !== "search") {
    throw new QueryRejectedError(
      `a document collection answers "search" queries (free text), not ${query.language.toUpperCase()}`,
      query.text,
    );
  }
  if (options.signal?.aborted) throw new QueryExecutionError("The search was cancelled before it started.", query.text);
  const remaining = () => Math.max(1, Math.floor(options.timeoutMs - (performance.now() - started)));
  const run = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof OpenSearchRequestError && e.errorType === "timeout") throw new QueryTimeoutError(options.timeoutMs, query.text);
      if (e instanceof OpenSearchRequestError && e.errorType === "cancelled")
        throw new QueryExecutionError("The search was cancelled.", query.text);
      throw e;
    }
  };

  const filters = await run(() => filterClauses(c, query));
  const terms = queryTerms(query.text, language);
  const maxRows = Math.max(1, Math.floor(options.maxRows));
  if (terms.length === 0 && !dense)
    return { query, columns: SEARCH_RESULT_COLUMNS, records: [], truncated: false, elapsedMs: performance.now() - started };

  const candidates = dense ? Math.min(MAX_HYBRID_CANDIDATES, Math.max(maxRows + 1, MIN_HYBRID_CANDIDATES)) : maxRows + 1;
  const units = new Map<string, UnitRecord>();
  const searchUnits = async (body: object): Promise<Ranked[]> => {
    const res = await run(() =>
      c.search<UnitRecord>(
        c.names.unitsAlias,
        { ...body, size: candidates, _source: UNIT_SOURCE, timeout: `${remaining()}ms` },
        { timeoutMs: remaining(), signal: options.signal },
      ),
    );
    if (res.timed_out) throw new QueryTimeoutError(options.timeoutMs, query.text);
    return res.hits.hits.map((h) => {
      units.set(h._id, h._source);
      return { id: h._id, score: h._score ?? 0, unit: h._source };
    });
  };

  const lexical =
    terms.length === 0
      ? []
      : await searchUnits({
          query: { bool: { must: [{ match: { search_text: { query: terms.join(" "), operator: "or" } } }], filter: filters } },
        });
  let ranked: { id: string; score: number }[] = lexical;
  let retrieval: string | undefined;
  if (dense) {
    const field = vectorField(dense.vector.length);
    const vector = await searchUnits({
      query: {
        knn: {
          [field]: {
            vector: Array.from(dense.vector),
            k: candidates,
            filter: { bool: { filter: [{ term: { vector_model: dense.model } }, ...filters] } },
          },
        },
      },
    });
    // Lucene's cosine score is (1 + cosine) / 2: back to the cosine the fusion and SQLite use.
    const similarity = vector.map((h) => ({ ...h, score: 2 * h.score - 1 }));
    const ids = [...new Set([...lexical, ...similarity].map((h) => h.id))];
    const rowid = new Map(ids.map((id, i) => [id, i]));
    const toRows = (list: { id: string; score: number }[]): RankedRow[] => list.map((h) => ({ rowid: rowid.get(h.id)!, score: h.score }));
    ranked = fuseRankings(toRows(lexical), toRows(similarity), fusion).map((f) => ({ id: ids[f.rowid]!, score: f.score }));
    retrieval = describeOpenSearchHybrid(fusion, dense) + vectorTextNote(query);
  }

  const visible = await run(() => currentVersions(c, [...new Set(ranked.map((r) => units.get(r.id)!.document_id))]));
  const current = ranked.filter((r) => {
    const u = units.get(r.id)!;
    return visible.get(u.document_id)?.version === u.document_version;
  });
  const truncated = current.length > maxRows;
  const top = current.slice(0, maxRows);
  const records = top.map((r) => toRecord(units.get(r.id)!, r.score, visible.get(units.get(r.id)!.document_id)!.title, retrieval));
  if (dense)
    await run(() =>
      rememberStoredVectors(
        c,
        top.map((r) => r.id),
        records,
        dense,
      ),
    );
  const elapsedMs = performance.now() - started;
  if (elapsedMs > options.timeoutMs) throw new QueryTimeoutError(options.timeoutMs, query.text);
  return { query, columns: SEARCH_RESULT_COLUMNS, records: records as unknown as Record<string, unknown>[], truncated, elapsedMs };
}

/** The committed version and title of each ready document (a unit of another version is a leftover or not yet switched on). */
export async function currentVersions(
  c: OpenSearchCollection,
  documentIds: string[],
): Promise<Map<string, { version: string; title: string }>> {
  const records = await c.getContent<Pick<DocumentRecord, "id" | "title" | "status" | "content_hash">>(documentIds.map(documentRecordId), [
    "id",
    "title",
    "status",
    "content_hash",
  ]);
  const out = new Map<string, { version: string; title: string }>();
  for (const r of records.values()) if (r.status === "ready") out.set(r.id, { version: r.content_hash.slice(0, 16), title: r.title });
  return out;
}

function toRecord(u: UnitRecord, score: number, title: string, retrieval: string | undefined): SearchRecord {
  if (u.kind === "chunk") {
    return {
      kind: "passage",
      score,
      sourceObject: COLLECTION_UNIT,
      documentId: u.document_id,
      documentTitle: title,
      section: u.section ?? null,
      chunkIndex: u.chunk_index ?? 0,
      text: u.text ?? "",
      start: u.start ?? 0,
      end: u.end ?? 0,
      sentences: u.sentences ?? [],
      firstSentenceIndex: u.first_sentence_index ?? 0,
      location: scalarEntries(u.location),
      ...(retrieval ? { retrieval } : {}),
    };
  }
  return {
    kind: "row",
    score,
    sourceObject: u.table_key ?? "",
    documentId: u.document_id,
    documentTitle: title,
    tableKey: u.table_key ?? "",
    caption: u.caption ?? "",
    section: u.section ?? null,
    columns: u.columns ?? [],
    values: (u.values ?? []) as Scalar[],
    rowIndex: u.row_index ?? 0,
    tableMetadata: scalarEntries(u.table_metadata),
    ...(retrieval ? { retrieval } : {}),
  };
}

/** The stored vectors of the returned units travel with their records (known-vectors.ts), as in SQLite. */
async function rememberStoredVectors(c: OpenSearchCollection, ids: string[], records: SearchRecord[], dense: DenseQuery): Promise<void> {
  if (!ids.length) return;
  const field = vectorField(dense.vector.length);
  const res = await c.search<Record<string, unknown>>(c.names.unitsAlias, {
    query: { ids: { values: ids } },
    size: ids.length,
    _source: [field, "vector_model"],
  });
  const byId = new Map(res.hits.hits.map((h) => [h._id, h._source]));
  ids.forEach((id, i) => {
    const source = byId.get(id);
    const values = source?.[field];
    if (source?.vector_model === dense.model && Array.isArray(values))
      rememberVector(records[i]!, { model: dense.model, vector: Float32Array.from(values as number[]) });
  });
}
