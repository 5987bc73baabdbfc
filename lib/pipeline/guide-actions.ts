import { z } from "zod";
import { nativeQuerySchema } from "../backends/types";

/**
 * AU-RAG's retrieval actions, as stored in GuideAction.params (validated on write and on read: a
 * malformed guide is reported and skipped, never crashes a run).
 */
export const guideActionParamsSchema = {
  NATIVE_QUERY: z.object({ query: nativeQuerySchema }),
  SELECT_COORDINATES: z.object({
    tableKey: z.string().min(1),
    rows: z.array(z.number().int().min(0)).min(1).max(500),
    columns: z.array(z.union([z.number().int().min(0), z.string().min(1)])).min(1).max(100),
  }),
  SELECT_SENTENCE_IDXS: z.object({
    documentId: z.string().min(1),
    sentenceIdxs: z.array(z.number().int().min(0)).min(1).max(200),
  }),
  NEIGHBORHOOD: z.object({
    /** Node element ids (Neo4j) or resource IRIs (RDF), or names when ids are unknown. */
    entities: z.array(z.string().min(1)).min(1).max(10),
    hops: z.union([z.literal(1), z.literal(2)]).default(1),
    byName: z.boolean().default(false),
  }),
} as const;

export type GuideActionKind = keyof typeof guideActionParamsSchema;
export type GuideActionParams<K extends GuideActionKind> = z.infer<(typeof guideActionParamsSchema)[K]>;

export const guideActionSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("NATIVE_QUERY"), params: guideActionParamsSchema.NATIVE_QUERY }),
  z.object({ kind: z.literal("SELECT_COORDINATES"), params: guideActionParamsSchema.SELECT_COORDINATES }),
  z.object({ kind: z.literal("SELECT_SENTENCE_IDXS"), params: guideActionParamsSchema.SELECT_SENTENCE_IDXS }),
  z.object({ kind: z.literal("NEIGHBORHOOD"), params: guideActionParamsSchema.NEIGHBORHOOD }),
]);
export type GuideActionInput = z.infer<typeof guideActionSchema>;

export function parseGuideAction(kind: string, params: unknown): GuideActionInput | null {
  const parsed = guideActionSchema.safeParse({ kind, params });
  return parsed.success ? parsed.data : null;
}
