import { createHash } from "node:crypto";
import type { PrismaClient } from "../db/generated/client";
import { log } from "../log";
import type { Embedder, ModelCallOptions } from "./types";

/**
 * Embeddings of catalog texts (KB descriptors, source-object descriptions, guide questions, table and
 * column names): computed once per (model, text) and kept in the TextEmbedding table, so every instance
 * and every restart reuses them; a changed text hashes differently and is embedded again. A bounded
 * in-memory map in front of the table serves the texts of the live catalog without a query.
 */

/** Vectors kept in memory per process (≈ 1.5 KB each at 384 dimensions: ≈ 30 MB). */
const MEMORY_LIMIT = 20_000;
/** Texts embedded per model call when many are missing (a catalog's first use). */
const STEP = 256;

export function textHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 40);
}

function toBytes(v: Float32Array): Uint8Array<ArrayBuffer> {
  const copy = new Uint8Array(v.byteLength);
  copy.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  return copy;
}

function fromBytes(b: Uint8Array): Float32Array {
  const v = new Float32Array(b.byteLength / 4);
  new Uint8Array(v.buffer).set(b);
  return v;
}

class TextEmbeddingCache {
  private readonly memory = new Map<string, Float32Array>();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly model: string,
  ) {}

  private keep(hash: string, v: Float32Array) {
    if (this.memory.size >= MEMORY_LIMIT) this.memory.delete(this.memory.keys().next().value!);
    this.memory.set(hash, v);
  }

  /** Loads what the table holds for the texts not in memory. */
  private async load(hashes: string[]): Promise<void> {
    const missing = [...new Set(hashes.filter((h) => !this.memory.has(h)))];
    for (let i = 0; i < missing.length; i += 5_000) {
      const rows = await this.prisma.textEmbedding.findMany({
        where: { model: this.model, textHash: { in: missing.slice(i, i + 5_000) } },
        select: { textHash: true, vector: true },
      });
      for (const r of rows) this.keep(r.textHash, fromBytes(r.vector));
    }
  }

  /** The vectors already computed (memory or table), null for the others; embeds nothing. */
  async stored(texts: string[]): Promise<(Float32Array | null)[]> {
    const hashes = texts.map(textHash);
    await this.load(hashes);
    return hashes.map((h) => this.memory.get(h) ?? null);
  }

  /** One vector per text, in order (passage embeddings: catalog texts are documents, not questions). */
  async vectors(embedder: Embedder, texts: string[], options: ModelCallOptions = {}): Promise<Float32Array[]> {
    if (embedder.info.id !== this.model) throw new Error(`text embeddings of ${this.model} asked of ${embedder.info.id}`);
    const hashes = texts.map(textHash);
    await this.load(hashes);
    const missing = [...new Set(hashes.filter((h) => !this.memory.has(h)))];
    if (missing.length) {
      const model = this.model;
      const textOf = new Map(hashes.map((h, i) => [h, texts[i]]));
      const toEmbed = missing;
      for (let i = 0; i < toEmbed.length; i += STEP) {
        const step = toEmbed.slice(i, i + STEP);
        const vectors = await embedder.embed(
          step.map((h) => textOf.get(h)!),
          "passage",
          options,
        );
        step.forEach((h, j) => this.keep(h, vectors[j]));
        await this.prisma.textEmbedding
          .createMany({ data: step.map((h, j) => ({ model, textHash: h, vector: toBytes(vectors[j]) })), skipDuplicates: true })
          .catch((err) => log.warn({ err }, "could not store text embeddings; they are kept in memory"));
      }
    }
    return hashes.map((h) => this.memory.get(h)!);
  }

  /** Vectors already computed (memory), without embedding anything: null for the others. */
  cached(texts: string[]): (Float32Array | null)[] {
    return texts.map((t) => this.memory.get(textHash(t)) ?? null);
  }
}

// One cache per (database client, model): tests open several databases in one process.
const caches = new WeakMap<PrismaClient, Map<string, TextEmbeddingCache>>();

/** The text-embedding cache of `embedder`'s model; `vectors(texts)` embeds what it does not hold yet. */
export interface TextEmbeddings {
  vectors(texts: string[], options?: ModelCallOptions): Promise<Float32Array[]>;
  /** Memory and table only: null for a text not embedded yet. */
  stored(texts: string[]): Promise<(Float32Array | null)[]>;
  cached(texts: string[]): (Float32Array | null)[];
}

export function textEmbeddings(prisma: PrismaClient, embedder: Embedder): TextEmbeddings {
  let byModel = caches.get(prisma);
  if (!byModel) {
    byModel = new Map();
    caches.set(prisma, byModel);
  }
  let cache = byModel.get(embedder.info.id);
  if (!cache) {
    cache = new TextEmbeddingCache(prisma, embedder.info.id);
    byModel.set(embedder.info.id, cache);
  }
  const c = cache;
  return {
    vectors: (texts, options) => c.vectors(embedder, texts, options),
    stored: (texts) => c.stored(texts),
    cached: (texts) => c.cached(texts),
  };
}
