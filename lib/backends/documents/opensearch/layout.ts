import { BackendConfigError } from "../../errors";
import type { OpenSearchSettings } from "../config";
import { call, OpenSearchRequestError, type OpenSearchConnection } from "./connection";

/**
 * How a collection is laid out in OpenSearch. Two indexes per collection:
 * - `<prefix>-kb-<kbId>-units-v<N>`: what a search ranks, one document per passage and per table row,
 *   with the text BM25 reads (`search_text`, the heading and body as SQLite's FTS5 row holds them), what
 *   the evidence needs (offsets, sentences, row values) and, once embedded, a vector;
 * - `<prefix>-kb-<kbId>-content-v<N>`: the documents (full text, status, content hash), the tables
 *   (header and rows) and one `meta` record (language, chunking, content version, embedding model).
 * Queries go through aliases without the version (`…-units`, `…-content`), so a re-index can build
 * the next layout beside the current one and switch the aliases when it is complete. The layout version,
 * the analyzer's name and the mapping's `_meta` change together whenever any of them changes.
 */
export const LAYOUT_VERSION = 1;
export const TEXT_ANALYZER = `mosaic_text_v${LAYOUT_VERSION}`;

export interface CollectionIndexes {
  unitsAlias: string;
  contentAlias: string;
  unitsIndex: string;
  contentIndex: string;
}

export function collectionIndexes(settings: Pick<OpenSearchSettings, "indexPrefix">, kbId: string): CollectionIndexes {
  const id = kbId.toLowerCase();
  if (!/^[a-z0-9_-]{1,100}$/.test(id)) throw new BackendConfigError(`Invalid knowledge base id "${kbId}" for an index name.`);
  const base = `${settings.indexPrefix}-kb-${id}`;
  return {
    unitsAlias: `${base}-units`,
    contentAlias: `${base}-content`,
    unitsIndex: `${base}-units-v${LAYOUT_VERSION}`,
    contentIndex: `${base}-content-v${LAYOUT_VERSION}`,
  };
}

/** The vector field for a model of this width (a model of another width gets a field of its own). */
export function vectorField(dimensions: number): string {
  return `vector_${Math.floor(dimensions)}`;
}

/**
 * Words as SQLite's `unicode61` tokenizer and the query builder (fts-query.ts) see them: runs of letters,
 * digits and combining marks; lower-cased, accents folded, Porter-stemmed like FTS5's `porter`. The
 * same analyzer reads documents and queries, so BM25 ranks the same terms in both engines.
 */
const ANALYSIS = {
  tokenizer: { mosaic_words: { type: "pattern", pattern: "[^\\p{L}\\p{N}\\p{M}]+" } },
  analyzer: { [TEXT_ANALYZER]: { type: "custom", tokenizer: "mosaic_words", filter: ["lowercase", "asciifolding", "porter_stem"] } },
};

const stored = { type: "keyword", index: false, doc_values: false } as const;
const storedText = { type: "text", index: false } as const;
const opaque = { type: "object", enabled: false } as const;
const keyword = { type: "keyword" } as const;
const int = { type: "integer" } as const;

const LAYOUT_META = { mosaic_layout: LAYOUT_VERSION, analyzer: TEXT_ANALYZER };

const UNITS_MAPPING = {
  dynamic: "strict",
  _meta: LAYOUT_META,
  properties: {
    kind: keyword,
    document_id: keyword,
    /** Content hash of the document version the unit belongs to (see store.ts). */
    document_version: keyword,
    seq: { type: "long" },
    search_text: { type: "text", analyzer: TEXT_ANALYZER },
    heading: storedText,
    body: storedText,
    title: storedText,
    section: storedText,
    text: storedText,
    chunk_index: int,
    start: int,
    end: int,
    first_sentence_index: int,
    sentences: opaque,
    location: opaque,
    table_key: keyword,
    caption: storedText,
    columns: opaque,
    values: opaque,
    row_index: int,
    table_metadata: opaque,
    vector_model: keyword,
  },
};

const CONTENT_MAPPING = {
  dynamic: "strict",
  _meta: LAYOUT_META,
  properties: {
    type: keyword,
    seq: { type: "long" },
    // documents
    id: keyword,
    title: storedText,
    source_name: keyword,
    media_type: keyword,
    content_hash: keyword,
    status: keyword,
    error: storedText,
    text: storedText,
    ingested_at: { type: "date" },
    metadata: opaque,
    sentence_count: int,
    // tables
    key: keyword,
    document_id: keyword,
    document_version: keyword,
    table_index: int,
    caption: storedText,
    section: storedText,
    position: int,
    header: opaque,
    rows: opaque,
    row_count: int,
    // the collection's meta record
    language: stored,
    chunk_max_chars: int,
    content_version: { type: "long" },
    next_seq: { type: "long" },
    embedding_model: keyword,
    embedding_dimensions: int,
  },
};

function indexBody(settings: OpenSearchSettings, mappings: object, knn: boolean) {
  return {
    settings: {
      index: { number_of_shards: settings.shards, number_of_replicas: settings.replicas, ...(knn ? { knn: true } : {}) },
      analysis: ANALYSIS,
    },
    mappings,
  };
}

/** Layout of the index behind an alias, or null when the alias does not exist. */
async function layoutBehind(conn: OpenSearchConnection, alias: string): Promise<{ index: string; layout: unknown } | null> {
  const res = await call<Record<string, { mappings?: { _meta?: { mosaic_layout?: unknown } } }>>(
    conn,
    "GET",
    `/${encodeURIComponent(alias)}/_mapping`,
    undefined,
    { ignore: [404] },
  );
  if (res.status === 404) return null;
  const [index, body] = Object.entries(res.body)[0] ?? [];
  return index ? { index, layout: body?.mappings?._meta?.mosaic_layout } : null;
}

/** The layout versions of the indexes behind the collection's aliases (null where an alias is missing or unversioned). */
export async function layoutVersions(conn: OpenSearchConnection, names: CollectionIndexes): Promise<(number | null)[]> {
  const out: (number | null)[] = [];
  for (const alias of [names.contentAlias, names.unitsAlias]) {
    const found = await layoutBehind(conn, alias);
    out.push(typeof found?.layout === "number" ? found.layout : null);
  }
  return out;
}

/**
 * Checks that both aliases exist and lead to indexes of this layout version; throws a plain error
 * (missing index, incompatible mapping) otherwise.
 */
export async function checkLayout(conn: OpenSearchConnection, names: CollectionIndexes): Promise<void> {
  for (const alias of [names.contentAlias, names.unitsAlias]) {
    const found = await layoutBehind(conn, alias);
    if (!found) {
      throw new OpenSearchRequestError(
        `OpenSearch at ${conn.url} has no index "${alias}" for this collection: it was deleted or never built. Upload the documents again (or re-index) to rebuild it.`,
        404,
        "index_not_found_exception",
      );
    }
    if (found.layout !== LAYOUT_VERSION) {
      throw new OpenSearchRequestError(
        `OpenSearch index "${found.index}" has an incompatible mapping (layout ${JSON.stringify(found.layout ?? null)}, this version reads layout ${LAYOUT_VERSION}): re-index the collection.`,
        409,
        "incompatible_mapping",
      );
    }
  }
}

/** Creates the collection's indexes and aliases when missing (idempotent; a concurrent creator wins harmlessly). */
export async function ensureIndexes(conn: OpenSearchConnection, names: CollectionIndexes): Promise<void> {
  const create = async (index: string, alias: string, mappings: object, knn: boolean) => {
    if ((await layoutBehind(conn, alias)) !== null) return;
    const res = await call<{ error?: { type?: string } }>(
      conn,
      "PUT",
      `/${index}`,
      { ...indexBody(conn.settings, mappings, knn), aliases: { [alias]: {} } },
      { ignore: [400] },
    );
    if (res.status === 400 && res.body.error?.type !== "resource_already_exists_exception") {
      throw new OpenSearchRequestError(
        `OpenSearch at ${conn.url} refused to create the index "${index}": ${JSON.stringify(res.body.error)}`,
        400,
        String(res.body.error?.type ?? ""),
      );
    }
  };
  await create(names.contentIndex, names.contentAlias, CONTENT_MAPPING, false);
  await create(names.unitsIndex, names.unitsAlias, UNITS_MAPPING, true);
  await checkLayout(conn, names);
}

/**
 * Adds the vector field for a width (k-NN with the `lucene` engine: the k-NN plugin's native engines
 * are optional in a cluster, Lucene's HNSW is always there, and it filters during the search).
 */
export async function ensureVectorField(conn: OpenSearchConnection, names: CollectionIndexes, dimensions: number): Promise<string> {
  const field = vectorField(dimensions);
  await call(conn, "PUT", `/${names.unitsAlias}/_mapping`, {
    properties: {
      [field]: {
        type: "knn_vector",
        dimension: Math.floor(dimensions),
        method: { name: "hnsw", space_type: "cosinesimil", engine: "lucene" },
      },
    },
  });
  return field;
}

/** The indexes an alias leads to (none when the alias does not exist). */
export async function indexesBehind(conn: OpenSearchConnection, alias: string): Promise<string[]> {
  const res = await call<Record<string, unknown>>(conn, "GET", `/_alias/${encodeURIComponent(alias)}`, undefined, { ignore: [404] });
  return res.status === 404 ? [] : Object.keys(res.body);
}

/**
 * Creates one of the collection's indexes under a name of its own, without an alias (a re-index fills
 * it before the alias moves), with this version's settings, analyzer and mapping, plus `extra` fields
 * (the vector fields the collection already has).
 */
export async function createLayoutIndex(
  conn: OpenSearchConnection,
  index: string,
  which: "units" | "content",
  extra: Record<string, unknown> = {},
): Promise<void> {
  const base = which === "units" ? UNITS_MAPPING : CONTENT_MAPPING;
  const mappings = { ...base, properties: { ...base.properties, ...extra } };
  await call(conn, "PUT", `/${index}`, indexBody(conn.settings, mappings, which === "units"));
}

/** Removes the collection's indexes (deleting the KB): the first build's names and whatever its aliases lead to after a re-index. */
export async function deleteIndexes(conn: OpenSearchConnection, names: CollectionIndexes): Promise<void> {
  const behind = [...(await indexesBehind(conn, names.unitsAlias)), ...(await indexesBehind(conn, names.contentAlias))];
  const all = [...new Set([names.unitsIndex, names.contentIndex, ...behind])];
  await call(conn, "DELETE", `/${all.join(",")}`, undefined, { ignore: [404], querystring: { ignore_unavailable: true } });
}
