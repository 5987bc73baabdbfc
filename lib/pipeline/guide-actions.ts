import { z } from "zod";
import { nativeQuerySchema } from "../backends/types";
import { count } from "../format/count";

/**
 * AU-RAG's retrieval actions, as stored in GuideAction.params (validated on write and on read: a
 * malformed guide is reported and skipped, never crashes a run). They are defined here because the
 * pipeline runs them (execute-action.ts); lib/guides stores, edits and captures them.
 */
export const guideActionParamsSchema = {
  NATIVE_QUERY: z.object({ query: nativeQuerySchema }),
  SELECT_COORDINATES: z.object({
    tableKey: z.string().min(1),
    rows: z.array(z.number().int().min(0)).min(1).max(500),
    columns: z
      .array(z.union([z.number().int().min(0), z.string().min(1)]))
      .min(1)
      .max(100),
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

export const GUIDE_ACTION_KINDS = [
  "NATIVE_QUERY",
  "SELECT_COORDINATES",
  "SELECT_SENTENCE_IDXS",
  "NEIGHBORHOOD",
] as const satisfies readonly GuideActionKind[];

/** AU-RAG's names for the actions, as analysts know them. */
export const ACTION_LABEL: Record<GuideActionKind, string> = {
  NATIVE_QUERY: "NativeQuery",
  SELECT_COORDINATES: "SelectCoordinates",
  SELECT_SENTENCE_IDXS: "SelectSentenceIdxs",
  NEIGHBORHOOD: "Neighborhood",
};

function list(values: readonly (string | number)[], max = 12): string {
  return values.length > max ? `${values.slice(0, max).join(", ")}, … (${values.length})` : values.join(", ");
}

/** One line a person can read: what the action does, in AU-RAG's notation. */
export function describeAction(action: GuideActionInput): string {
  switch (action.kind) {
    case "NATIVE_QUERY":
      return `${ACTION_LABEL.NATIVE_QUERY} (${action.params.query.language}): ${action.params.query.text.replace(/\s+/g, " ").slice(0, 200)}`;
    case "SELECT_COORDINATES":
      return `${ACTION_LABEL.SELECT_COORDINATES}(${action.params.tableKey}, rows [${list(action.params.rows)}], columns [${list(action.params.columns)}])`;
    case "SELECT_SENTENCE_IDXS":
      return `${ACTION_LABEL.SELECT_SENTENCE_IDXS}(${action.params.documentId}, [${list(action.params.sentenceIdxs)}])`;
    case "NEIGHBORHOOD":
      return `${ACTION_LABEL.NEIGHBORHOOD}(${list(action.params.entities, 4)}, ${count(action.params.hops, "hop")})`;
  }
}
