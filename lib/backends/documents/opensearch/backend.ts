import { count } from "../../../format/count";
import { QueryExecutionError } from "../../errors";
import {
  type BackendContext,
  DEFAULT_EXECUTE_OPTIONS,
  type Descriptor,
  type EntityIndexEntry,
  type EvidencePiece,
  type ExecuteOptions,
  type HealthResult,
  type KbStructure,
  type KnowledgeBackend,
  type NativeQuery,
  type Preview,
  type RawResult,
  type SourceUnit,
} from "../../types";
import type { CollectionActions, CollectionDocument } from "../actions";
import { composeCollectionDescriptor, DESCRIPTOR_LISTED_TABLES, DESCRIPTOR_SAMPLE_TITLES } from "../collection-descriptor";
import { type ContentStats, contentStatsOf, type StatsDocument } from "../collection-stats";
import type { DocumentsConfig, DocumentsSecrets } from "../config";
import { type CoordinateSelection, coordinateSelection, type SentenceSelection, sentenceSelection } from "../context-actions";
import { composeEntityIndex } from "../entity-index";
import { previewUnit, type PreviewSource } from "../preview";
import { type DenseQuery, denseText } from "../search";
import { composeSourceUnits, SOURCE_UNIT_SAMPLES } from "../source-units";
import { verbalizeSearchResult } from "../verbalize";
import { type CollectionMeta, OpenSearchCollection } from "./collection";
import { call } from "./connection";
import { checkLayout } from "./layout";
import {
  type CollectionOutline,
  documentSentencesOf,
  loadDocumentRecord,
  loadTableRecord,
  quickCounts,
  readOutline,
  statsDocuments,
} from "./read";
import { searchOpenSearch } from "./search";

interface Snapshot {
  contentVersion: number;
  outline: CollectionOutline;
  stats: ContentStats | null;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/**
 * A document collection in OpenSearch behind the same interface, with the same evidence, descriptor,
 * source units and entity index as the SQLite collection (both compose them with the same functions
 * from what they read). What the catalog views need (documents, tables, statistics) is read once per
 * content version and kept, as the SQLite backend keeps its statistics.
 */
export class OpenSearchDocumentsBackend implements KnowledgeBackend, CollectionActions {
  readonly kind = "DOCUMENTS" as const;
  readonly language = "search" as const;
  private readonly collection: OpenSearchCollection;
  private snapshot: Snapshot | null = null;

  constructor(
    private readonly config: DocumentsConfig,
    secrets: DocumentsSecrets,
    private readonly ctx: BackendContext,
  ) {
    this.collection = OpenSearchCollection.open(config, secrets, ctx);
  }

  private async meta(): Promise<CollectionMeta> {
    await checkLayout(this.collection.conn, this.collection.names);
    return this.collection.meta();
  }

  private async current(withStats = false): Promise<Snapshot> {
    const meta = await this.meta();
    if (!this.snapshot || this.snapshot.contentVersion !== meta.content_version) {
      this.snapshot = { contentVersion: meta.content_version, outline: await readOutline(this.collection), stats: null };
    }
    if (withStats && !this.snapshot.stats) {
      const docs: StatsDocument[] = await collect(statsDocuments(this.collection, this.snapshot.outline));
      this.snapshot.stats = contentStatsOf(docs, meta.language || this.config.language, String(meta.content_version));
    }
    return this.snapshot;
  }

  async check(): Promise<HealthResult> {
    const started = performance.now();
    try {
      await checkLayout(this.collection.conn, this.collection.names);
      const counts = await quickCounts(this.collection);
      const health = await call<{ status: string }>(this.collection.conn, "GET", "/_cluster/health");
      // Worded as the SQLite collection's check, then where the cluster is.
      const failed = counts.failedDocuments > 0 ? ` (${count(counts.failedDocuments, "file")} could not be read)` : "";
      return {
        ok: true,
        message: `${count(counts.documents, "document")}, ${count(counts.chunks, "passage")}, ${count(counts.tables, "table")}${failed}; OpenSearch at ${this.collection.conn.url}, cluster ${health.body.status}`,
        latencyMs: performance.now() - started,
      };
    } catch (e) {
      return { ok: false, message: e instanceof Error ? e.message : String(e), latencyMs: performance.now() - started };
    }
  }

  async describe(): Promise<Descriptor> {
    const { outline, stats } = await this.current(true);
    const formats = new Map<string, number>();
    for (const d of outline.documents) formats.set(d.mediaType, (formats.get(d.mediaType) ?? 0) + 1);
    return composeCollectionDescriptor(this.ctx.kbName, {
      counts: outline.counts,
      stats: stats!,
      titles: outline.documents.slice(0, DESCRIPTOR_SAMPLE_TITLES).map((d) => ({ id: d.id, title: d.title })),
      tables: outline.tables.slice(0, DESCRIPTOR_LISTED_TABLES).map((t) => ({
        key: t.key,
        caption: t.caption,
        section: t.section,
        header: t.header,
        rowCount: t.rows.length,
        title: t.documentTitle,
      })),
      // Most frequent first, ties in the order the SQLite collection lists them (name descending).
      formats: [...formats]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : 0))
        .map(([mediaType, n]) => ({ mediaType, n })),
    });
  }

  async sourceUnits(): Promise<SourceUnit[]> {
    const { outline, stats } = await this.current(true);
    return composeSourceUnits(this.ctx.kbName, {
      counts: outline.counts,
      stats: stats!,
      mediaTypes: [...new Set(outline.documents.map((d) => d.mediaType))].sort(),
      samples: outline.documents.slice(0, SOURCE_UNIT_SAMPLES).map((d) => d.title),
      tables: outline.tables.map((t) => ({ ...t, rowCount: t.rows.length, title: t.documentTitle, mediaType: t.documentMediaType })),
    });
  }

  async execute(query: NativeQuery, options?: Partial<ExecuteOptions>): Promise<RawResult> {
    const opts = { ...DEFAULT_EXECUTE_OPTIONS, ...options };
    // No layout check per search: a missing index fails this read with its own plain message.
    const meta = await this.collection.meta();
    const dense = await this.denseQuery(query, opts, meta);
    return searchOpenSearch(this.collection, meta.language || this.config.language, query, opts, dense);
  }

  /** As in the SQLite backend: hybrid only when the collection's vectors are the embedder's; a failing embedder costs only the vector half. */
  private async denseQuery(query: NativeQuery, opts: ExecuteOptions, meta: CollectionMeta): Promise<DenseQuery | null> {
    const embedder = opts.embedder;
    if (!embedder || query.language !== "search" || !query.text.trim()) return null;
    if (meta.embedding_model !== embedder.info.id) return null;
    try {
      const [vector] = await embedder.embed([denseText(query)], "query", { signal: opts.signal, timeoutMs: opts.timeoutMs });
      return { model: embedder.info.id, name: embedder.info.name, precision: embedder.info.precision, vector };
    } catch {
      return null;
    }
  }

  verbalize(result: RawResult, options?: { sourceObject?: string | null }): EvidencePiece[] {
    return verbalizeSearchResult(this.ctx, result, this.config.language, options?.sourceObject);
  }

  private previewSource(): PreviewSource {
    const c = this.collection;
    return {
      firstDocuments: async (n) => (await this.current()).outline.documents.slice(0, n),
      openingSentences: (id) => documentSentencesOf(c, id, true),
      loadTable: (key) => loadTableRecord(c, key),
      loadDocument: (id) => loadDocumentRecord(c, id),
      documentSentences: (id) => documentSentencesOf(c, id),
    };
  }

  async preview(sourceKey: string, options?: { limit?: number }): Promise<Preview> {
    await this.meta();
    return previewUnit(this.previewSource(), this.ctx.kbName, sourceKey, options?.limit);
  }

  async entityIndex(options?: { limit?: number }): Promise<EntityIndexEntry[]> {
    const { outline, stats } = await this.current(true);
    return composeEntityIndex({ tables: outline.tables, phrases: stats!.phrases, documents: outline.documents }, options?.limit);
  }

  async structure(): Promise<KbStructure> {
    const { outline } = await this.current();
    return {
      kind: "documents",
      documents: outline.counts.documents,
      tables: outline.tables.map((t) => ({ key: t.key, caption: t.caption, section: t.section, columns: t.header, rows: t.rows.length })),
    };
  }

  /** AU-RAG's SelectSentenceIdxs on this engine (the SQLite collection's selectSentences). */
  async selectSentences(documentId: string, idxs: number[]): Promise<SentenceSelection> {
    const doc = await loadDocumentRecord(this.collection, documentId);
    if (!doc) throw new QueryExecutionError(`This collection has no document "${documentId}".`, documentId);
    return sentenceSelection(doc, await documentSentencesOf(this.collection, documentId), idxs);
  }

  /** AU-RAG's SelectCoordinates on this engine (the SQLite collection's selectCoordinates). */
  async selectCoordinates(tableKey: string, rows: number[], cols: (number | string)[]): Promise<CoordinateSelection> {
    const table = await loadTableRecord(this.collection, tableKey);
    if (!table)
      throw new QueryExecutionError(`This collection has no table "${tableKey}". Table keys look like "<document id>#table-1".`, tableKey);
    return coordinateSelection(table, rows, cols);
  }

  async readSentences(documentId: string): Promise<string[]> {
    if (!(await loadDocumentRecord(this.collection, documentId)))
      throw new QueryExecutionError(`This collection has no document "${documentId}".`, documentId);
    return documentSentencesOf(this.collection, documentId);
  }

  async listDocuments(limit: number): Promise<CollectionDocument[]> {
    const { outline } = await this.current();
    const tables = new Map<string, number>();
    for (const t of outline.tables) tables.set(t.documentId, (tables.get(t.documentId) ?? 0) + 1);
    return [...outline.documents]
      .sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0))
      .slice(0, limit)
      .map((d) => ({ id: d.id, title: d.title, mediaType: d.mediaType, sentences: d.sentences, tables: tables.get(d.id) ?? 0 }));
  }

  async close(): Promise<void> {
    this.snapshot = null;
    await this.collection.close();
  }
}
