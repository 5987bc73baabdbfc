import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { API_BUCKET_CAPACITY, API_BUCKET_REFILL_PER_SECOND } from "../../auth/api-keys";
import { API_SCOPES, API_SCOPE_LABELS, type ApiScope } from "../../auth/api-keys.validation";
import { registerKbSchema } from "../../catalog/knowledge-bases.validation";
import { askSchema } from "../../pipeline/run.validation";
import { chatCompletionRequestSchema, chatCompletionSchema, modelListSchema } from "./openai-schemas";
import {
  apiKeySchema,
  askResultSchema,
  exportedGuideSchema,
  guideExportQuerySchema,
  guideImportBodySchema,
  guideImportReportSchema,
  registeredKnowledgeBaseSchema,
  idParamsSchema,
  jobSchema,
  knowledgeBaseListSchema,
  knowledgeBaseSchema,
  problemSchema,
  refreshInputSchema,
  refreshReportSchema,
  reportListSchema,
  reportSummarySchema,
  runEvidenceSchema,
  runSchema,
} from "./schemas";

/**
 * The OpenAPI 3.1 document of /api/v1, generated from the zod schemas the routes validate with (request
 * bodies are the actions' own schemas) and the response schemas the tests check answers against.
 * Served at /api/v1/openapi.json.
 */
function problems(...statuses: number[]) {
  const text: Record<number, string> = {
    400: "A field is invalid: `fields` names it",
    401: "No API key, or one that is unknown, expired or revoked",
    403: "The key lacks the scope (`fields.scope` names it) or the user's role may not do this",
    404: "Not found, or not shared with the key's user",
    422: "The request was understood but could not be carried out: `fields` says what failed",
    409: "Conflict",
    413: "Body too large",
    415: "Body is not application/json",
    429: "Too many requests for this key (Retry-After), or too many questions running at once",
    503: "A knowledge base could not be reached",
  };
  return Object.fromEntries(
    statuses.map((s) => [s, { description: text[s] ?? "Error", content: { "application/problem+json": { schema: problemSchema } } }]),
  );
}

const common = [401, 403, 429];

export function buildOpenApiDocument() {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description: "A personal access token from your profile page (mosaic_…).",
  });
  const json = (schema: z.ZodType, description: string) => ({ description, content: { "application/json": { schema } } });
  const secured = (scope: ApiScope) => ({ security: [{ apiKey: [] }], "x-mosaic-scope": scope });

  registry.registerPath({
    method: "post",
    path: "/api/v1/ask",
    summary: "Ask a question",
    description:
      "Runs the question over the knowledge bases the key's user may use. JSON by default; with `Accept: text/event-stream`, Server-Sent Events: `stage` events (stage, type START|END|ERROR|INFO, summary, durationMs, at), then one `answer` event (the JSON body below) or one `error` event (problem code and message).",
    ...secured("ask"),
    request: { body: { content: { "application/json": { schema: askSchema } } } },
    responses: {
      200: {
        description: "The answer with its citations and evidence",
        content: { "application/json": { schema: askResultSchema }, "text/event-stream": { schema: z.string() } },
      },
      ...problems(400, ...common, 413, 415),
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/runs/{id}",
    summary: "A stored run",
    ...secured("runs:read"),
    request: { params: idParamsSchema },
    responses: { 200: json(runSchema, "The run"), ...problems(...common, 404) },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/runs/{id}/evidence",
    summary: "A stored run's evidence",
    ...secured("runs:read"),
    request: { params: idParamsSchema },
    responses: { 200: json(runEvidenceSchema, "Citations and evidence"), ...problems(...common, 404) },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/knowledge-bases",
    summary: "Knowledge bases the user may use, with health",
    ...secured("kbs:read"),
    responses: { 200: json(knowledgeBaseListSchema, "The list"), ...problems(...common) },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/knowledge-bases/{id}",
    summary: "One knowledge base and its health",
    ...secured("kbs:read"),
    request: { params: idParamsSchema },
    responses: { 200: json(knowledgeBaseSchema, "The knowledge base"), ...problems(...common, 404) },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/knowledge-bases",
    summary: "Register a knowledge base from an upload or a connection (admins)",
    description: [
      "The registration page's own path: the same settings (`kind` DOCUMENTS, SQL, SPARQL or CYPHER with its `connection`), checks, size and type limits and audit record.",
      "From an upload (documents; a SQLite file with `connection.dialect: sqlite`; RDF files with `connection.mode: embedded`): multipart/form-data with the settings as JSON in the `payload` field and the files in `files` (the whole request within the server's upload limit).",
      "From a connection (PostgreSQL, a remote SPARQL endpoint, Neo4j, a collection on OpenSearch): the settings as a JSON body; passwords are stored encrypted and never returned.",
      "Private by default: only admins may use it until `groupIds` names groups or `openToEveryone` is true.",
      "A source that cannot be reached or described is a 422 whose `fields.connection` (or `fields.files`, for an upload) says what failed; nothing is kept.",
    ].join("\n\n"),
    ...secured("kbs:write"),
    request: {
      body: {
        content: {
          "application/json": { schema: registerKbSchema },
          "multipart/form-data": {
            schema: z.object({
              payload: z.string().describe("The settings as JSON (the application/json body's schema)"),
              files: z.array(z.string().meta({ format: "binary" })).describe("The uploaded files"),
            }),
          },
        },
      },
    },
    responses: {
      201: json(registeredKnowledgeBaseSchema, "Registered: the knowledge base as GET returns it, and its background jobs"),
      ...problems(400, ...common, 409, 413, 415, 422),
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/jobs/{id}",
    summary: "A background job's progress (admins)",
    description:
      "Registration and refresh answer with the ids of the jobs that go on with the content (a collection's embedding, the entity index). Poll this until `status` is SUCCEEDED, FAILED or CANCELLED. A job that works on a knowledge base not shared with the key's user is a 404.",
    ...secured("kbs:write"),
    request: { params: idParamsSchema },
    responses: { 200: json(jobSchema, "The job"), ...problems(...common, 404) },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/guides/export",
    summary: "Export guides as the JSON array npm run guides:export writes (analysts and admins)",
    ...secured("kbs:read"),
    request: { query: guideExportQuerySchema },
    responses: { 200: json(z.array(exportedGuideSchema), "The guides you may see"), ...problems(400, ...common, 404) },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/guides/import",
    summary: "Import guides, checking each as npm run guides:import does (analysts and admins)",
    description:
      "Each item's knowledge base must be shared with the key's user; its query must pass the source's safety rules, run and return rows. When an item fails nothing is imported (422, `fields` naming each failed item as `guides.<index>`, `report` holding the per-item report) unless `keepGoing` is true. `dryRun` checks only. The body may also be the exported array itself (then all or nothing, for real).",
    ...secured("guides:write"),
    request: { body: { content: { "application/json": { schema: guideImportBodySchema } } } },
    responses: {
      200: json(guideImportReportSchema, "The per-item report"),
      ...problems(400, ...common, 404, 413, 415, 422),
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/knowledge-bases/{id}/refresh",
    summary: "Re-describe a knowledge base or rebuild its entity index (admins)",
    ...secured("kbs:write"),
    request: { params: idParamsSchema, body: { content: { "application/json": { schema: refreshInputSchema } } } },
    responses: { 200: json(refreshReportSchema, "What the refresh found"), ...problems(400, ...common, 404, 503) },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/evaluation/reports",
    summary: "Evaluation reports (analysts and admins)",
    ...secured("runs:read"),
    responses: { 200: json(reportListSchema, "Newest first"), ...problems(...common) },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/evaluation/reports/{id}",
    summary: "One evaluation report (analysts and admins)",
    ...secured("runs:read"),
    request: { params: idParamsSchema },
    responses: { 200: json(reportSummarySchema, "Status, progress and metrics"), ...problems(...common, 404) },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/admin/api-keys",
    summary: "Every API key (admins)",
    ...secured("admin"),
    responses: { 200: json(z.object({ apiKeys: z.array(apiKeySchema) }), "Keys, never tokens"), ...problems(...common) },
  });
  registry.registerPath({
    method: "delete",
    path: "/api/v1/admin/api-keys/{id}",
    summary: "Revoke anyone's API key (admins)",
    ...secured("admin"),
    request: { params: idParamsSchema },
    responses: { 200: json(apiKeySchema, "The revoked key"), ...problems(...common, 404) },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/chat/completions",
    summary: "OpenAI-compatible chat completion",
    description:
      "The last user message is asked; the messages before it name the conversation: a history ending in an answer Mosaic sent (system messages included) continues that conversation, so the question is completed as a follow-up, and any other history starts a new one. `model` is `mosaic` (every knowledge base the user may use) or `mosaic/<knowledge base id>`. The reply's text carries numbered citations [1], [2] … listed under it. `stream: true` sends OpenAI's `chat.completion.chunk` events, ending with `data: [DONE]`.",
    ...secured("ask"),
    request: { body: { content: { "application/json": { schema: chatCompletionRequestSchema } } } },
    responses: { 200: json(chatCompletionSchema, "The completion"), ...problems(400, ...common, 404) },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/models",
    summary: "OpenAI-compatible model list: mosaic and one per knowledge base the user may use",
    ...secured("kbs:read"),
    responses: { 200: json(modelListSchema, "The models"), ...problems(...common) },
  });

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Mosaic API",
      version: "1",
      description: [
        "Send a personal access token as `Authorization: Bearer <key>`. A key acts as its user (role, groups, knowledge-base access) within its scopes:",
        ...API_SCOPES.map((s) => `- \`${s}\`: ${API_SCOPE_LABELS[s]}`),
        `Each key may make ${API_BUCKET_CAPACITY} requests at once, refilled at ${API_BUCKET_REFILL_PER_SECOND} per second (429 with Retry-After beyond), and run as many questions at once as Settings allow one person.`,
        "Errors are RFC 9457 problem details (application/problem+json).",
        "The same keys work on the MCP server at `/api/mcp` (Streamable HTTP, stateless, JSON-RPC over POST): tools `ask` and `search_knowledge_base` (scope `ask`), `list_knowledge_bases` (`kbs:read`), `get_run_evidence` and the resources `mosaic://runs/{runId}/evidence` (`runs:read`). MCP is not described here: an MCP client reads the tools and their schemas from the server (`tools/list`).",
      ].join("\n"),
    },
  });
}
