import { withPublicRoute } from "@/lib/http/route";
import { buildOpenApiDocument } from "@/lib/server/api-v1/openapi";

export const runtime = "nodejs";

let document: ReturnType<typeof buildOpenApiDocument> | undefined;

/** The OpenAPI 3.1 description of /api/v1, public like any API reference (it holds no data). */
export const GET = withPublicRoute({ name: "v1.openapi" }, async () => {
  document ??= buildOpenApiDocument();
  return Response.json(document, { headers: { "cache-control": "public, max-age=300" } });
});
