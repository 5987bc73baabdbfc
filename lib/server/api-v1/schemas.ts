import { z } from "zod";
import { API_SCOPES } from "../../auth/api-keys.validation";

/**
 * The response shapes of /api/v1, for the OpenAPI document (openapi.ts) and for the tests that check
 * every answer against its documented shape. Request bodies are the actions' own schemas (askSchema, …).
 */
export const citationSchema = z.string().describe("The id of an evidence item the answer rests on");

export const evidenceItemSchema = z.object({
  id: z.string(),
  kind: z.string().describe("passage, row, triple, node, path, table…"),
  text: z.string(),
  kb: z.string().describe("The knowledge base it came from"),
  sourceObject: z.string().nullish(),
  query: z.string().nullish().describe("The native query that returned it (SQL, SPARQL, Cypher or search words)"),
  score: z.number(),
});

export const askResultSchema = z.looseObject({
  runId: z.string(),
  conversationId: z.string(),
  status: z.enum(["ANSWERED", "REFRAINED", "FAILED", "CANCELLED"]),
  question: z.string(),
  answer: z.string().nullable().describe("The answer's text; null when Mosaic refrained (see reason)"),
  refrained: z.boolean(),
  reason: z.string().nullish(),
  confidence: z
    .number()
    .describe("How likely the answer is right, 0–1 (calibrated where the calibrator covers the answering source's kind)"),
  certainty: z
    .enum(["certain", "uncertain"])
    .nullish()
    .describe("uncertain: shown only as the closest answer, not as fact (for example, the critic could not check it)"),
  calibration: z
    .object({ raw: z.number(), calibrator: z.object({ version: z.string(), sha256: z.string() }).nullable() })
    .nullish()
    .describe("The answer stage's own confidence and the calibrator that turned it into `confidence` (null: none applied)"),
  citations: z.array(citationSchema),
  evidence: z.array(evidenceItemSchema),
  degradations: z.array(z.string()),
  totalMs: z.number(),
});

export const traceEventSchema = z.looseObject({
  stage: z.string(),
  type: z.enum(["START", "END", "ERROR", "INFO"]),
  summary: z.string(),
  durationMs: z.number().nullish(),
});

export const runSchema = z.object({
  id: z.string(),
  question: z.string(),
  status: z.enum(["QUEUED", "RUNNING", "ANSWERED", "REFRAINED", "FAILED", "CANCELLED"]),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  conversationId: z.string().nullable(),
  askedByYou: z.boolean(),
  result: askResultSchema.nullable().describe("null while running, or when withheld (see hidden)"),
  hidden: z
    .object({ wholeResult: z.boolean(), entityLinks: z.number() })
    .nullable()
    .describe("Set when the run read knowledge bases you may not use: its result is withheld"),
  trace: z.array(traceEventSchema),
});

export const runEvidenceSchema = z.object({
  runId: z.string(),
  citations: z.array(citationSchema),
  evidence: z.array(evidenceItemSchema),
  hidden: runSchema.shape.hidden,
});

export const knowledgeBaseSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(["DOCUMENTS", "SQL", "SPARQL", "CYPHER"]),
  description: z.string(),
  health: z.object({
    status: z.string().describe("HEALTHY, UNREACHABLE, ERROR or PENDING, from the last check"),
    checkedAt: z.string().nullable(),
    message: z.string().nullable().describe("Admins only: what the last check said"),
  }),
  stats: z.record(z.string(), z.number()),
  access: z
    .object({ openToEveryone: z.boolean(), groups: z.array(z.object({ id: z.string(), name: z.string() })) })
    .nullable()
    .describe("Admins only: who may use it"),
});

export const knowledgeBaseListSchema = z.object({ knowledgeBases: z.array(knowledgeBaseSchema) });

export const refreshInputSchema = z.object({
  parts: z
    .enum(["describe", "index"])
    .default("describe")
    .describe("describe: re-read the schema and source objects; index: rebuild the entity index"),
});

export const refreshReportSchema = z.looseObject({
  status: z.enum(["HEALTHY", "UNREACHABLE", "ERROR"]),
  message: z.string(),
});

export const reportSummarySchema = z.looseObject({ id: z.string(), status: z.string(), createdAt: z.string() });
export const reportListSchema = z.object({ reports: z.array(reportSummarySchema) });

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.enum(API_SCOPES)),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  revokedBy: z.string().nullable(),
  state: z.enum(["active", "expired", "revoked"]),
  owner: z.object({ id: z.string(), email: z.string(), name: z.string() }),
});

export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  instance: z.string().optional(),
  code: z.string(),
  fields: z.record(z.string(), z.string()).optional().describe("Which input field is wrong and why, or the missing scope"),
  retryAfterSeconds: z.number().optional(),
  ref: z.string().optional(),
});

export const idParamsSchema = z.object({ id: z.string().min(1) });
