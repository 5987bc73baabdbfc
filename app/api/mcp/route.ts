import { requestActor } from "@/lib/audit/request-actor";
import { db } from "@/lib/db/client";
import { withAuthRoute } from "@/lib/http/route";
import { handleMcpRequest } from "@/lib/server/mcp/server";
import { MCP_SCOPES } from "@/lib/server/mcp/tools";

export const runtime = "nodejs";
export const maxDuration = 120;

/**
 * The MCP server (issue 29, part 3): Streamable HTTP, stateless, JSON responses. Authenticated as
 * /api/v1 is (bearer API key: lookup, expiry, revocation, per-key rate limit, problem details for
 * 401/403) by the shared route wrapper; a key needs at least one of the tools' scopes to come in, and
 * each tool checks its own (lib/server/mcp). The JSON-RPC body is read and bounded by the wrapper and
 * validated by the MCP SDK.
 */
const post = withAuthRoute(
  { name: "mcp", anyScope: MCP_SCOPES, rawJson: true, problemDetails: true },
  async ({ req, user, principal, apiKey, input }) =>
    handleMcpRequest(
      await db(),
      { user, principal, scopes: apiKey?.scopes ?? MCP_SCOPES, actor: requestActor(user, req.headers), signal: req.signal },
      req,
      input,
    ),
);

/**
 * Stateless: there is no server-to-client stream to open (GET) and no session to end (DELETE), so both
 * are 405, as the Streamable HTTP specification allows (after the same authentication as POST).
 */
const notAllowed = withAuthRoute({ name: "mcp", anyScope: MCP_SCOPES, problemDetails: true }, async () =>
  Response.json(
    {
      jsonrpc: "2.0",
      error: { code: -32000, message: "Method not allowed: this MCP server is stateless; send JSON-RPC with POST." },
      id: null,
    },
    { status: 405, headers: { allow: "POST" } },
  ),
);
export { post as POST, notAllowed as GET, notAllowed as DELETE };
