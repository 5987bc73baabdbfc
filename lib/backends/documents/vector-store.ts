import { existsSync } from "node:fs";
import { decryptSecrets } from "../../crypto/secrets";
import type { Embedder } from "../../models/types";
import { kbStorageDir, parseKbConfig } from "../registry";
import type { BackendContext } from "../types";
import { type DocumentsConfig, documentsSecretsSchema } from "./config";
import { indexPath, openIndexForRead, readMeta } from "./index-db";
import { openCollectionForIngest } from "./ingest-target";
import { OpenSearchCollection } from "./opensearch/collection";
import {
  openSearchRowsWithoutVectors,
  openSearchVectorState,
  prepareOpenSearchVectors,
  storeOpenSearchVectors,
} from "./opensearch/vectors";
import { prepareVectorTable, rowsWithoutVectors, storeVectors, type VectorState, vectorState } from "./vectors";

/**
 * A collection's vectors, whichever engine holds them: what the embedding job and the collection's page
 * need. Both engines keep the same contract (vectors.ts): one vector per passage or table row, of the
 * model `meta` names, stored only while that model holds the collection, resumable from what is missing.
 */
export interface VectorStore {
  /** Makes the collection take `model`'s vectors; true when it started over. */
  prepare(model: string, dimensions: number): Promise<boolean>;
  state(): Promise<VectorState>;
  /** The model the collection's vectors belong to now ("" = none). */
  model(): Promise<string>;
  /** The next rows without a vector of `model`, with the text to embed. */
  missing(model: string, limit: number): Promise<{ key: string; text: string }[]>;
  store(model: string, vectors: { key: string; vector: Float32Array }[]): Promise<number>;
  close(): Promise<void>;
}

export function sqliteVectorStore(ctx: BackendContext): VectorStore {
  const { db } = openCollectionForIngest(ctx);
  return {
    prepare: async (model, dimensions) => prepareVectorTable(db, model, dimensions),
    state: async () => vectorState(db),
    model: async () => readMeta(db, "embedding_model") ?? "",
    missing: async (_model, limit) => rowsWithoutVectors(db, limit).map((r) => ({ key: String(r.rowid), text: r.text })),
    store: async (model, vectors) =>
      storeVectors(
        db,
        model,
        vectors.map((v) => ({ rowid: Number(v.key), vector: v.vector })),
      ),
    close: async () => {
      db.close();
    },
  };
}

export function openSearchVectorStore(c: OpenSearchCollection): VectorStore {
  return {
    prepare: (model, dimensions) => prepareOpenSearchVectors(c, model, dimensions),
    state: () => openSearchVectorState(c),
    model: async () => (await c.meta()).embedding_model,
    missing: async (model, limit) => (await openSearchRowsWithoutVectors(c, model, limit)).map((r) => ({ key: r.id, text: r.text })),
    store: (model, vectors) =>
      storeOpenSearchVectors(
        c,
        model,
        vectors.map((v) => ({ id: v.key, vector: v.vector })),
      ),
    close: () => c.close(),
  };
}

export interface CollectionKb {
  id: string;
  name: string;
  config: unknown;
  secretsCiphertext: string | null;
}

/** Opens the vector store of a registered collection (its engine from its config, secrets decrypted). */
export function openVectorStore(kb: CollectionKb, deps: { dataDir: string; encryptionKey: Buffer }): VectorStore {
  const ctx: BackendContext = { kbId: kb.id, kbName: kb.name, storageDir: kbStorageDir(deps.dataDir, kb.id) };
  const config = parseKbConfig("DOCUMENTS", kb.config) as DocumentsConfig;
  if (config.engine !== "opensearch") return sqliteVectorStore(ctx);
  const secrets = documentsSecretsSchema.parse(kb.secretsCiphertext ? decryptSecrets(kb.secretsCiphertext, deps.encryptionKey) : {});
  return openSearchVectorStore(OpenSearchCollection.open(config, secrets, ctx));
}

/** Vector state of a registered collection; null when it has no index yet (a SQLite collection before its first upload). */
export async function readVectorState(kb: CollectionKb, deps: { dataDir: string; encryptionKey: Buffer }): Promise<VectorState | null> {
  const config = parseKbConfig("DOCUMENTS", kb.config) as DocumentsConfig;
  if (config.engine !== "opensearch") {
    const ctx: BackendContext = { kbId: kb.id, kbName: kb.name, storageDir: kbStorageDir(deps.dataDir, kb.id) };
    if (!existsSync(indexPath(ctx))) return null;
    const db = openIndexForRead(ctx);
    try {
      return vectorState(db);
    } finally {
      db.close();
    }
  }
  const store = openVectorStore(kb, deps);
  try {
    return await store.state();
  } finally {
    await store.close();
  }
}

/** Rows read and embedded per step; each step is committed on its own, so a crash loses at most one. */
export const EMBED_STEP = 128;

export class ModelChangedError extends Error {
  constructor() {
    super("The embedding model changed while this job ran; a newer job embeds the collection.");
    this.name = "ModelChangedError";
  }
}

/**
 * Embeds what is missing, step by step, from what is missing rather than from a counter: stopped at
 * any point, the next run goes on from there, and a row is never stored twice. Throws ModelChangedError
 * when another model took the collection meanwhile. Returns the final state.
 */
export async function embedMissingVectors(
  store: VectorStore,
  embedder: Embedder,
  opts: { signal?: AbortSignal; stepTimeoutMs: number; onStep?: (state: VectorState) => Promise<void> | void },
): Promise<VectorState> {
  for (;;) {
    if (opts.signal?.aborted) throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error("stopped");
    const rows = await store.missing(embedder.info.id, EMBED_STEP);
    if (!rows.length) return store.state();
    const vectors = await embedder.embed(
      rows.map((r) => r.text),
      "passage",
      { signal: opts.signal, timeoutMs: opts.stepTimeoutMs },
    );
    const n = await store.store(
      embedder.info.id,
      rows.map((r, i) => ({ key: r.key, vector: vectors[i] })),
    );
    // Nothing stored and the collection belongs to another model now: someone switched models meanwhile, their job goes on.
    if (n === 0 && (await store.model()) !== embedder.info.id) throw new ModelChangedError();
    await opts.onStep?.(await store.state());
  }
}
