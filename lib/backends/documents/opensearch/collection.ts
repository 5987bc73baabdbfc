import type { BackendContext } from "../../types";
import type { DocumentsConfig, DocumentsSecrets } from "../config";
import { call, connectOpenSearch, type OpenSearchConnection } from "./connection";
import { collectionIndexes, type CollectionIndexes, ensureIndexes } from "./layout";

/** The collection's `meta` record in the content index. */
export interface CollectionMeta {
  language: string;
  chunk_max_chars: number;
  /** Bumped by every committed document, so cached statistics know when they are stale. */
  content_version: number;
  /** Last ingestion sequence number handed out (documents are listed in this order, as SQLite lists by rowid). */
  next_seq: number;
  /** Which model wrote the vectors (name@precision:checksum); "" = none yet. */
  embedding_model: string;
  embedding_dimensions: number;
}

export const META_ID = "meta";
/** Units of one document are numbered below the document's own sequence number times this. */
export const UNITS_PER_DOCUMENT = 1 << 20;

export const documentRecordId = (id: string) => `doc:${id}`;

interface SearchHit<T> {
  _id: string;
  _score: number | null;
  _source: T;
  sort?: unknown[];
}
export interface SearchResponse<T> {
  hits: { total?: { value: number }; hits: SearchHit<T>[] };
  aggregations?: Record<string, { value?: number; buckets?: { key: string; doc_count: number }[] }>;
  timed_out?: boolean;
}

/** A collection in OpenSearch: its connection, index names and the few requests everything else is built from. */
export class OpenSearchCollection {
  readonly names: CollectionIndexes;

  constructor(
    readonly conn: OpenSearchConnection,
    readonly kbId: string,
  ) {
    this.names = collectionIndexes(conn.settings, kbId);
  }

  static open(config: DocumentsConfig, secrets: DocumentsSecrets, ctx: BackendContext): OpenSearchCollection {
    return new OpenSearchCollection(connectOpenSearch(config, secrets), ctx.kbId);
  }

  /** Creates the indexes and the meta record when missing; an existing collection keeps its settings. */
  async ensure(settings: { language: string; chunkMaxChars: number }): Promise<CollectionMeta> {
    await ensureIndexes(this.conn, this.names);
    const initial: CollectionMeta = {
      language: settings.language,
      chunk_max_chars: settings.chunkMaxChars,
      content_version: 0,
      next_seq: 0,
      embedding_model: "",
      embedding_dimensions: 0,
    };
    await call(
      this.conn,
      "PUT",
      `/${this.names.contentAlias}/_create/${META_ID}`,
      { type: "meta", ...initial },
      { ignore: [409], querystring: { refresh: "true" } },
    );
    return this.meta();
  }

  /** Realtime read (GET by id sees the latest write without a refresh). */
  async meta(): Promise<CollectionMeta> {
    const res = await call<{ _source: CollectionMeta }>(this.conn, "GET", `/${this.names.contentAlias}/_doc/${META_ID}`);
    return res.body._source;
  }

  /** Atomically reserves the next `n` ingestion sequence numbers; returns the last. */
  async nextSeq(n = 1): Promise<number> {
    const res = await call<{ get: { _source: { next_seq: number } } }>(
      this.conn,
      "POST",
      `/${this.names.contentAlias}/_update/${META_ID}`,
      { script: { source: "ctx._source.next_seq += params.n", lang: "painless", params: { n } }, _source: ["next_seq"] },
      { querystring: { retry_on_conflict: 5 } },
    );
    return res.body.get._source.next_seq;
  }

  async bumpContentVersion(): Promise<void> {
    await call(
      this.conn,
      "POST",
      `/${this.names.contentAlias}/_update/${META_ID}`,
      { script: { source: "ctx._source.content_version += 1", lang: "painless" } },
      { querystring: { retry_on_conflict: 5 } },
    );
  }

  async setMeta(fields: Partial<CollectionMeta>): Promise<void> {
    await call(
      this.conn,
      "POST",
      `/${this.names.contentAlias}/_update/${META_ID}`,
      { doc: fields },
      { querystring: { retry_on_conflict: 5, refresh: "true" } },
    );
  }

  async refresh(): Promise<void> {
    await call(this.conn, "POST", `/${this.names.contentAlias},${this.names.unitsAlias}/_refresh`);
  }

  async search<T>(index: string, body: object, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<SearchResponse<T>> {
    return (await call<SearchResponse<T>>(this.conn, "POST", `/${index}/_search`, body, opts)).body;
  }

  async count(index: string, query: object): Promise<number> {
    return (await call<{ count: number }>(this.conn, "POST", `/${index}/_count`, { query })).body.count;
  }

  /** Every hit of a query in `sort` order, page by page (search_after), so a large collection is never one response. */
  async *scan<T>(
    index: string,
    query: object,
    sort: object[],
    source: string[] | { excludes: string[] },
    pageSize = 500,
  ): AsyncGenerator<SearchHit<T>> {
    let after: unknown[] | undefined;
    for (;;) {
      const page = await this.search<T>(index, { query, sort, _source: source, size: pageSize, ...(after ? { search_after: after } : {}) });
      for (const hit of page.hits.hits) yield hit;
      if (page.hits.hits.length < pageSize) return;
      after = page.hits.hits[page.hits.hits.length - 1]!.sort;
    }
  }

  /** Several documents of the content index by id, realtime; missing ones are absent from the map. */
  async getContent<T>(ids: string[], source?: string[]): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    if (!ids.length) return out;
    const res = await call<{ docs: { _id: string; found: boolean; _source?: T }[] }>(
      this.conn,
      "POST",
      `/${this.names.contentAlias}/_mget`,
      { ids },
      source ? { querystring: { _source_includes: source.join(",") } } : {},
    );
    for (const d of res.body.docs) if (d.found && d._source) out.set(d._id, d._source);
    return out;
  }

  async close(): Promise<void> {
    await this.conn.client.close();
  }
}
