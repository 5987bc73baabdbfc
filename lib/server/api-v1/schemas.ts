import { z } from "zod";
import { API_SCOPES } from "../../auth/api-keys.validation";
import { guideFileItemSchema } from "../../guides/files";

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
  caution: z
    .object({ target: z.number(), applies: z.boolean(), held: z.boolean() })
    .nullish()
    .describe(
      "The workspace's caution target (0–1): held = the answer was below it and is shown as not certain (certainty 'uncertain'); applies = a calibrated confidence existed to compare",
    ),
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

/** POST /api/v1/knowledge-bases: the new knowledge base as GET returns it, and where its ingestion goes on. */
export const registeredKnowledgeBaseSchema = z.object({
  knowledgeBase: knowledgeBaseSchema,
  jobId: z
    .string()
    .nullable()
    .describe("The background job that goes on with the new content (a collection's embedding; else the catalog's); null when none"),
  jobIds: z.array(z.string()).describe("Every background job the registration queued, the knowledge base's own first"),
  warnings: z.array(z.string()).describe("Per-file problems that did not stop the registration"),
  message: z.string().describe("What the first check and description found"),
});

/** GET /api/v1/jobs/{id}: a background job's progress, for a client that registered or refreshed a knowledge base. */
export const jobSchema = z.object({
  id: z.string(),
  kind: z.string().describe('What the job does, e.g. "documents.embed"'),
  status: z.enum(["QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED"]),
  knowledgeBaseId: z.string().nullable().describe("The knowledge base it works on; null for workspace-wide work"),
  progress: z.object({
    done: z.number().int(),
    total: z.number().int().nullable().describe("Null while the job does not know its total yet"),
  }),
  message: z.string().describe("One line for people: what the job is doing or why it stopped"),
  error: z.string().nullable(),
  attempts: z.number().int(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});

/** One guide in the files of npm run guides:export / guides:import (Spider's format). */
export const exportedGuideSchema = z.object({
  question: z.string(),
  query: z.string().describe("SQL, SPARQL or Cypher: the language of the guide's knowledge base"),
  db_id: z.string().optional().describe("The Spider database, for a guide on a registered Spider database"),
  kb: z.string().describe("The knowledge base's name"),
  language: z.enum(["sql", "sparql", "cypher", "search"]),
});

export const guideExportQuerySchema = z.object({
  kb: z.string().trim().min(1).max(200).optional().describe("A knowledge base's id: only its guides (default: every one you may use)"),
});

export const guideImportItemReportSchema = z.object({
  item: z.number().int().describe("1-based, as people count"),
  question: z.string(),
  kb: z.string().nullable(),
  status: z.enum(["imported", "ready", "duplicate", "failed"]),
  detail: z.string().describe("What is wrong (failed), or what happened"),
  rows: z.number().optional(),
  guideId: z.string().optional(),
});

export const guideImportReportSchema = z.object({
  items: z.array(guideImportItemReportSchema),
  imported: z.number().int(),
  failed: z.number().int(),
  duplicates: z.number().int(),
  committed: z.boolean().describe("False when nothing was imported: a dry run, or an item failed without keepGoing"),
  dryRun: z.boolean(),
});

/** The most guides one import request may carry: each runs its query against its source. */
export const GUIDE_IMPORT_MAX_ITEMS = 500;

const guideImportObjectSchema = z.object({
  guides: z
    .array(guideFileItemSchema)
    .min(1, "Send at least one guide.")
    .max(GUIDE_IMPORT_MAX_ITEMS, `Send at most ${GUIDE_IMPORT_MAX_ITEMS} guides at once.`)
    .describe("The array npm run guides:export (and GET /api/v1/guides/export) writes"),
  kb: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe("A knowledge base's id, for items that name neither db_id nor kb (as the CLI's --kb)"),
  keepGoing: z.boolean().default(false).describe("Import the good items even when some fail (the failed ones are reported)"),
  dryRun: z.boolean().default(false).describe("Only check: import nothing"),
});

/**
 * POST /api/v1/guides/import: `{guides, kb?, keepGoing?, dryRun?}`, or the exported array itself (then
 * with the defaults: all or nothing, for real).
 */
export const guideImportSchema = z.preprocess((raw) => (Array.isArray(raw) ? { guides: raw } : raw), guideImportObjectSchema);
export const guideImportBodySchema = guideImportObjectSchema;
