import "server-only";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { PrismaClient } from "../../db/generated/client";
import { toClientError } from "../../errors";
import { searchRuns } from "../../runs/history";
import { MCP_TOOLS, type McpCaller, type McpTool, runEvidence } from "./tools";

/**
 * Mosaic as an MCP server (issue 29, part 3), over Streamable HTTP in stateless mode: one server and one
 * transport per HTTP request (the SDK's documented stateless pattern), so nothing about a client is kept
 * between requests and each request is authenticated on its own (app/api/mcp/route.ts).
 *
 * The low-level `Server` rather than `McpServer`: the protocol's errors must be the protocol's. An unknown
 * tool or arguments that break a tool's input schema are JSON-RPC errors (-32602, naming the tool or the
 * field), and the server keeps serving; McpServer 1.32 turns both into tool results. A refusal (a missing
 * scope, a knowledge base the user may not use) and a failed run are tool results with `isError`, with
 * the same plain typed message the REST API gives (raw engine text goes to the log only).
 */

export const RUN_EVIDENCE_TEMPLATE = "mosaic://runs/{runId}/evidence";
const RUN_EVIDENCE_URI = /^mosaic:\/\/runs\/([^/?#]{1,64})\/evidence$/;
/** JSON-RPC code for an unknown resource (MCP specification, "Resources": error handling). */
const RESOURCE_NOT_FOUND = -32002;
/** How many of the caller's latest runs resources/list offers (older ones are still readable by URI). */
const LISTED_RUNS = 20;

function inputJsonSchema(tool: McpTool) {
  return z.toJSONSchema(tool.input, { io: "input" }) as { type: "object"; [k: string]: unknown };
}

function missingScope(tool: { name: string; scope: string }): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `This API key lacks the "${tool.scope}" scope that ${tool.name} needs. Create a key with it on your profile page.`,
      },
    ],
  };
}

function requireRunsRead(caller: McpCaller): void {
  if (!caller.scopes.includes("runs:read")) {
    throw new McpError(ErrorCode.InvalidRequest, 'This API key lacks the "runs:read" scope that run evidence resources need.');
  }
}

/** Builds the server for one request, acting as `caller` (the key's user). */
export function mcpServer(prisma: PrismaClient, caller: McpCaller): Server {
  const server = new Server(
    { name: "mosaic", title: "Mosaic", version: "1.0.0" },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        "Mosaic answers questions from the knowledge bases the API key's user may use. Use list_knowledge_bases to see them, ask for an answer with numbered citations, search_knowledge_base for the evidence one knowledge base holds, and get_run_evidence (or the resource mosaic://runs/{runId}/evidence) to reread an answer's evidence.",
    },
  );
  const usable = MCP_TOOLS.filter((t) => caller.scopes.includes(t.scope));

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: usable.map((t) => ({
      name: t.name,
      title: t.title,
      description: `${t.description} Needs the API-key scope "${t.scope}".`,
      inputSchema: inputJsonSchema(t),
      ...(t.output ? { outputSchema: z.toJSONSchema(t.output, { io: "output" }) as { type: "object"; [k: string]: unknown } } : {}),
      annotations: { readOnlyHint: t.scope !== "ask", openWorldHint: false },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = MCP_TOOLS.find((t) => t.name === request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. Call tools/list for the tools this key may use.`);
    }
    if (!caller.scopes.includes(tool.scope)) return missingScope(tool);
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const fields = parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ");
      throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for ${tool.name}: ${fields}`, {
        fields: Object.fromEntries(parsed.error.issues.map((i) => [i.path.join(".") || "arguments", i.message])),
      });
    }
    try {
      const result = await tool.run(prisma, caller, parsed.data);
      return { content: [{ type: "text", text: result.text }], structuredContent: result.structured };
    } catch (error) {
      // Text only: structured content on an error would be checked against the tool's output schema by clients.
      const e = toClientError(error, { route: `mcp.${tool.name}` });
      return { isError: true, content: [{ type: "text", text: e.message }] };
    }
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: caller.scopes.includes("runs:read")
      ? [
          {
            uriTemplate: RUN_EVIDENCE_TEMPLATE,
            name: "run-evidence",
            title: "A run's evidence",
            description: "The evidence and citations of an answer (runId from ask), as you may see them now.",
            mimeType: "application/json",
          },
        ]
      : [],
  }));

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    if (!caller.scopes.includes("runs:read")) return { resources: [] };
    const runs = await searchRuns(prisma, caller.user, { pageSize: LISTED_RUNS });
    return {
      resources: runs.rows.map((r) => ({
        uri: `mosaic://runs/${r.id}/evidence`,
        name: `run-${r.id}-evidence`,
        title: `Evidence: ${r.question.length > 80 ? `${r.question.slice(0, 80)}…` : r.question}`,
        mimeType: "application/json",
      })),
    };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    requireRunsRead(caller);
    const m = RUN_EVIDENCE_URI.exec(request.params.uri);
    if (!m) throw new McpError(RESOURCE_NOT_FOUND, `Unknown resource: ${request.params.uri}. Use ${RUN_EVIDENCE_TEMPLATE}.`);
    try {
      const view = await runEvidence(prisma, caller, decodeURIComponent(m[1]!));
      return { contents: [{ uri: request.params.uri, mimeType: "application/json", text: JSON.stringify(view) }] };
    } catch (error) {
      const e = toClientError(error, { route: "mcp.resources.read" });
      // NOT_FOUND covers "no such run" and "not yours" alike, so run ids cannot be probed.
      throw new McpError(e.code === "NOT_FOUND" ? RESOURCE_NOT_FOUND : ErrorCode.InternalError, e.message);
    }
  });

  return server;
}

/**
 * Answers one HTTP request (a JSON-RPC message or batch, already read and bounded by the route wrapper)
 * with a fresh server and transport, closed once the response is ready. JSON responses rather than an
 * SSE stream: every tool answers once, and there is no session to push to.
 */
export async function handleMcpRequest(prisma: PrismaClient, caller: McpCaller, req: Request, body: unknown): Promise<Response> {
  const server = mcpServer(prisma, caller);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req, { parsedBody: body });
  } finally {
    await server.close();
  }
}
