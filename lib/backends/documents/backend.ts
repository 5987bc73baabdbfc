import { BackendUnavailableError } from "../errors";
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
} from "../types";
import type { CollectionActions, CollectionDocument } from "./actions";
import { buildCollectionDescriptor } from "./collection-descriptor";
import { collectionCounts, computeContentStats, type ContentStats } from "./collection-stats";
import type { DocumentsConfig, DocumentsSecrets } from "./config";
import {
  type CoordinateSelection,
  readSentencesFrom,
  type SentenceSelection,
  selectCoordinatesFrom,
  selectSentencesFrom,
} from "./context-actions";
import { buildEntityIndex } from "./entity-index";
import { type IndexDb, indexPath, openIndexForRead, readMeta } from "./index-db";
import { OpenSearchDocumentsBackend } from "./opensearch/backend";
import { previewUnit, sqlitePreviewSource } from "./preview";
import { type DenseQuery, denseText, searchCollection } from "./search";
import { buildSourceUnits } from "./source-units";
import { verbalizeSearchResult } from "./verbalize";
import { count } from "../../format/count";

/**
 * A document collection: one SQLite file (FTS5 + sqlite-vec) in the KB's storage directory, opened
 * read-only here. Writes happen only through ingestFiles / the dataset loaders, on their own connection.
 */
class DocumentsBackend implements KnowledgeBackend, CollectionActions {
  readonly kind = "DOCUMENTS" as const;
  readonly language = "search" as const;
  private db: IndexDb | null = null;
  private stats: ContentStats | null = null;

  constructor(
    private readonly config: DocumentsConfig,
    private readonly ctx: BackendContext,
  ) {}

  /** Opened on first use, so a backend object can exist before the first upload creates the index. */
  private index(): IndexDb {
    if (!this.db) this.db = openIndexForRead(this.ctx);
    return this.db;
  }

  /** The collection is split into sentences in the language it was built with. */
  private collectionLanguage(): string {
    return readMeta(this.index(), "language") || this.config.language;
  }

  /** Term and phrase statistics need a pass over all text: recomputed only after new content was committed. */
  private contentStats(): ContentStats {
    const db = this.index();
    const version = readMeta(db, "content_version") ?? "0";
    if (!this.stats || this.stats.contentVersion !== version) this.stats = computeContentStats(db, this.collectionLanguage());
    return this.stats;
  }

  async check(): Promise<HealthResult> {
    const started = performance.now();
    try {
      const counts = collectionCounts(this.index());
      const failed = counts.failedDocuments > 0 ? ` (${count(counts.failedDocuments, "file")} could not be read)` : "";
      return {
        ok: true,
        message: `${count(counts.documents, "document")}, ${count(counts.chunks, "passage")}, ${count(counts.tables, "table")}${failed}`,
        latencyMs: performance.now() - started,
      };
    } catch (e) {
      this.closeIndex();
      const message =
        e instanceof BackendUnavailableError
          ? e.message
          : `Cannot read ${indexPath(this.ctx)}: ${e instanceof Error ? e.message : String(e)}`;
      return { ok: false, message, latencyMs: performance.now() - started };
    }
  }

  async describe(): Promise<Descriptor> {
    return buildCollectionDescriptor(this.index(), this.ctx.kbName, collectionCounts(this.index()), this.contentStats());
  }

  async sourceUnits(): Promise<SourceUnit[]> {
    return buildSourceUnits(this.index(), this.ctx.kbName, collectionCounts(this.index()), this.contentStats());
  }

  async execute(query: NativeQuery, options?: Partial<ExecuteOptions>): Promise<RawResult> {
    const opts = { ...DEFAULT_EXECUTE_OPTIONS, ...options };
    const dense = await this.denseQuery(query, opts);
    return searchCollection(this.index(), this.collectionLanguage(), query, opts, dense);
  }

  /**
   * The query's vector when a hybrid search is possible: an embedder was given and the collection
   * holds vectors of that same model (a collection being embedded again for a new model is searched
   * by BM25 alone until its job is done). A failing embedder (busy, timed out, crashed) costs the
   * search its vector half, not its answer.
   */
  private async denseQuery(query: NativeQuery, opts: ExecuteOptions): Promise<DenseQuery | null> {
    const embedder = opts.embedder;
    if (!embedder || query.language !== "search" || !query.text.trim()) return null;
    const db = this.index();
    if ((readMeta(db, "embedding_model") ?? "") !== embedder.info.id) return null;
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

  async preview(sourceKey: string, options?: { limit?: number }): Promise<Preview> {
    return previewUnit(sqlitePreviewSource(this.index()), this.ctx.kbName, sourceKey, options?.limit);
  }

  async entityIndex(options?: { limit?: number }): Promise<EntityIndexEntry[]> {
    return buildEntityIndex(this.index(), this.contentStats(), options?.limit);
  }

  /**
   * The document tables as data for query formulation (a search can be restricted to one of them).
   * One indexed read without the rows themselves, so it stays cheap on collections with many tables.
   */
  async structure(): Promise<KbStructure> {
    const db = this.index();
    const tables = db
      .prepare(
        "SELECT t.key, t.caption, t.section, t.header, t.row_count FROM doc_tables t JOIN documents d ON d.id = t.document_id WHERE d.status = 'ready' ORDER BY d.rowid, t.table_index",
      )
      .all() as { key: string; caption: string; section: string | null; header: string; row_count: number }[];
    return {
      kind: "documents",
      documents: collectionCounts(db).documents,
      tables: tables.map((t) => ({
        key: t.key,
        caption: t.caption,
        section: t.section,
        columns: JSON.parse(t.header) as string[],
        rows: t.row_count,
      })),
    };
  }

  async selectSentences(documentId: string, idxs: number[]): Promise<SentenceSelection> {
    return selectSentencesFrom(this.index(), documentId, idxs);
  }

  async selectCoordinates(tableKey: string, rows: number[], cols: (number | string)[]): Promise<CoordinateSelection> {
    return selectCoordinatesFrom(this.index(), tableKey, rows, cols);
  }

  async readSentences(documentId: string): Promise<string[]> {
    return readSentencesFrom(this.index(), documentId);
  }

  async listDocuments(limit: number): Promise<CollectionDocument[]> {
    const rows = this.index()
      .prepare(
        `SELECT d.id, d.title, d.media_type AS mediaType,
           (SELECT COALESCE(SUM(json_array_length(c.sentences)), 0) FROM chunks c WHERE c.document_id = d.id) AS sentences,
           (SELECT COUNT(*) FROM doc_tables t WHERE t.document_id = d.id) AS tables
         FROM documents d WHERE d.status = 'ready' ORDER BY d.title LIMIT ?`,
      )
      .all(limit) as CollectionDocument[];
    return rows.map((r) => ({ ...r, sentences: Number(r.sentences), tables: Number(r.tables) }));
  }

  async close(): Promise<void> {
    this.closeIndex();
  }

  private closeIndex(): void {
    this.db?.close();
    this.db = null;
    this.stats = null;
  }
}

export function createDocumentsBackend(config: DocumentsConfig, secrets: DocumentsSecrets, ctx: BackendContext): KnowledgeBackend {
  if (config.engine === "opensearch") return new OpenSearchDocumentsBackend(config, secrets, ctx);
  return new DocumentsBackend(config, ctx);
}
