import type { TextEmbeddings } from "../../../models/text-embeddings";
import type { Embedder } from "../../../models/types";
import type { CatalogEntry } from "../../../catalog/snapshot";
import { kbSemanticText, objectSemanticText } from "../../../catalog/semantic-texts";
import { cosine } from "../../scorers/dense";
import { OBJECT_DECAY } from "./signals";

/**
 * Source selection's semantic signal: the cosine of the question's embedding with each KB's text
 * (name, description, descriptor) and with its source objects' (name, description, tags), so a
 * question that names the subject in other words ("clients" for a customer table, "located in" for a
 * city column) still finds the source. Catalog texts are embedded once (models/text-embeddings.ts).
 */

/**
 * Cosines at or below this say nothing. Between unrelated texts (809 SciFact claims × 838 Spider tables,
 * all-MiniLM-L6-v2 int8; `npm run bench -- models`, "calibration") the median cosine is 0.01, the 95th
 * percentile 0.10 and the 99th 0.15; 0.2 keeps a margin above that. Above it the similarity is rescaled
 * to 0..1.
 */
export const UNRELATED_COSINE = 0.2;

export function calibrated(similarity: number, floor = UNRELATED_COSINE): number {
  return Math.max(0, Math.min(1, (similarity - floor) / (1 - floor)));
}

export interface SemanticObjectHit {
  key: string;
  name: string;
  /** Calibrated 0..1. */
  score: number;
}

export interface SemanticSignal {
  /** 0..1 per catalog entry (same order as the catalog): half the KB text's similarity, half its best objects'. */
  score: number[];
  kbScore: number[];
  objects: SemanticObjectHit[][];
  /** Catalog texts not embedded yet (the catalog job is still at work): they count as unrelated meanwhile. */
  pending: number;
}

/**
 * A question embeds at most this many catalog texts itself (a KB registered a moment ago); a larger
 * backlog (a new catalog, a new model) is the background job's (catalog-texts.ts), and questions meanwhile
 * use what is embedded.
 */
export const INLINE_TEXTS = 32;

/** Vectors for `items`: stored ones, plus the missing ones embedded now when they are few; null otherwise. */
export async function catalogVectors(
  texts: TextEmbeddings,
  items: string[],
  signal?: AbortSignal,
): Promise<{ vectors: (Float32Array | null)[]; pending: number }> {
  const stored = await texts.stored(items);
  const missing = [...new Set(items.filter((_, i) => !stored[i]))];
  if (!missing.length) return { vectors: stored, pending: 0 };
  if (missing.length > INLINE_TEXTS) return { vectors: stored, pending: missing.length };
  await texts.vectors(missing, { signal });
  return { vectors: await texts.stored(items), pending: 0 };
}

/** `question`: its text, or its vector already on the way (the run's one, which query formulation reuses). */
export async function semanticSignal(
  embedder: Embedder,
  texts: TextEmbeddings,
  question: string | Promise<Float32Array>,
  catalog: CatalogEntry[],
  signal?: AbortSignal,
): Promise<SemanticSignal> {
  const objectRefs = catalog.flatMap((entry, i) => entry.sourceObjects.map((object) => ({ entry: i, object })));
  const kbTexts = catalog.map(kbSemanticText);
  const [q, known] = await Promise.all([
    typeof question === "string" ? embedder.embed([question], "query", { signal }).then(([v]) => v) : question,
    catalogVectors(texts, [...kbTexts, ...objectRefs.map((r) => objectSemanticText(r.object))], signal),
  ]);
  const similarity = (v: Float32Array | null) => (v ? calibrated(cosine(q, v)) : 0);
  const kbScore = kbTexts.map((_, i) => similarity(known.vectors[i]));
  const objects: SemanticObjectHit[][] = catalog.map(() => []);
  objectRefs.forEach((r, i) => {
    const score = similarity(known.vectors[kbTexts.length + i]);
    if (score > 0) objects[r.entry].push({ key: r.object.key, name: r.object.name, score });
  });
  const score = catalog.map((_, i) => {
    const best = objects[i].sort((a, b) => b.score - a.score);
    const objectScore = Math.min(
      1,
      best.slice(0, OBJECT_DECAY.length).reduce((sum, h, j) => sum + h.score * OBJECT_DECAY[j], 0),
    );
    return 0.5 * kbScore[i] + 0.5 * objectScore;
  });
  return { score, kbScore, objects, pending: known.pending };
}
