import "server-only";
import { NextRequest, NextResponse } from "next/server";
import type { z } from "zod";
import { authenticateApiToken, requireAnyScope, requireScope, spendApiRequest } from "../auth/api-keys";
import type { ApiScope } from "../auth/api-keys.validation";
import { type CurrentUser, getCurrentUser } from "../auth/session";
import { db } from "../db/client";
import type { Role } from "../db/generated/enums";
import { loadEnv } from "../env";
import { AppError, type ClientError, httpStatusFor, toClientError } from "../errors";
import { log } from "../log";
import { BodyTooLargeError, mediaType, readBoundedBody } from "./body";
import { problemDetails } from "./problem";
import { type RequestCredentials, requestCredentials } from "./credentials";
import { sameOriginVerdict } from "./same-origin";

/**
 * The one wrapper every route handler under app/api goes through (tests/unit/http/routes-wrapped.test.ts
 * checks that each exported method does). Before a handler runs it:
 * 1. refuses a state-changing request from another origin (lib/http/same-origin.ts) unless it carries
 *    only a bearer credential, which no other site can make a browser send;
 * 2. authenticates (withAuthRoute) and checks the role;
 * 3. bounds the body: a declared length over the route's limit is refused before reading, a chunked
 *    body is cut at the limit (lib/http/body.ts), and the refusal closes the connection so the rest is
 *    never received; JSON is read only when sent as application/json (415 otherwise);
 * and maps errors to the allow-listed typed set (lib/errors.ts) with the matching status.
 */

export interface RouteOptions<S extends z.ZodType | undefined> {
  name: string;
  roles?: readonly Role[];
  /** Validates the JSON body (POST/PUT/PATCH) or, for GET, the query string. */
  input?: S;
  /**
   * multipart/form-data: the input is the JSON in the `payload` field and the uploads (field `files`)
   * are handed to the handler; the whole request is bounded by UPLOAD_MAX_BYTES. "or-json": a
   * multipart/form-data request is read so, any other is read as a JSON body validated by `input` (an
   * endpoint that registers from an upload or from connection settings alone: POST /api/v1/knowledge-bases).
   */
  multipart?: boolean | "or-json";
  /**
   * The API-key scope this route needs (issue 29). A route without one takes a signed-in session only;
   * a route with one also takes `Authorization: Bearer <key>`, acting as the key's user, refused (403,
   * naming the scope) when the key lacks it. Sessions are not scoped: they may do what the role allows.
   */
  scope?: ApiScope;
  /**
   * Instead of `scope`, for an endpoint whose operations each need their own scope (the MCP server,
   * issue 29): a bearer key is accepted when it holds at least one of these, and the handler checks
   * the one each operation needs (`apiKey.scopes`). A key with none of them is refused (403, naming them).
   */
  anyScope?: readonly ApiScope[];
  /**
   * Hand the handler the raw JSON body (read, bounded and parsed as for `input`, but not validated):
   * for a protocol that validates its own messages (MCP's JSON-RPC).
   */
  rawJson?: boolean;
  /** Errors as RFC 9457 problem details (application/problem+json): the versioned API's format. */
  problemDetails?: boolean;
}

export interface UploadedFormFile {
  name: string;
  bytes: Buffer;
  mediaType: string;
}

export type Handler<S extends z.ZodType | undefined, P> = (args: {
  req: NextRequest;
  user: CurrentUser;
  /**
   * Who is acting, for per-principal limits (lib/runs/run-slots.ts): "user:<id>" for a session; an API
   * key (issue 29) will be "key:<id>", so a key has its own allowance beside its owner's browser.
   */
  principal: string;
  /** The API key the request came with, if any (its id and scopes); absent for a session. */
  apiKey?: { id: string; scopes: readonly ApiScope[] };
  input: S extends z.ZodType ? z.infer<S> : undefined;
  files: UploadedFormFile[];
  params: P;
}) => Promise<Response | unknown>;

type RouteContext<P> = { params: Promise<P> };

/** Marks the functions this module made, for the test that checks every route uses it. */
export const GUARDED_ROUTE = Symbol.for("mosaic.http.guardedRoute");

function mark<F extends object>(fn: F): F {
  (fn as Record<symbol, unknown>)[GUARDED_ROUTE] = true;
  return fn;
}

function errorResponse(error: unknown, route: string, asProblem = false, instance?: string): Response {
  const clientError: ClientError = toClientError(error, { route });
  const headers: Record<string, string> = {};
  // A refused body may still be arriving: close the connection rather than let the server drain it.
  if (error instanceof BodyTooLargeError || clientError.code === "PAYLOAD_TOO_LARGE") headers.connection = "close";
  if (clientError.retryAfterSeconds !== undefined) headers["retry-after"] = String(clientError.retryAfterSeconds);
  const status = httpStatusFor(clientError);
  if (!asProblem) return NextResponse.json({ error: clientError }, { status, headers });
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="mosaic"';
  headers["content-type"] = "application/problem+json";
  return new Response(JSON.stringify(problemDetails(clientError, status, instance)), { status, headers });
}

/** Step 1: the same-origin rule, for every credential but a bare bearer token. */
function checkOrigin(req: Request, credentials: RequestCredentials, route: string): void {
  if (credentials.kind === "bearer") return;
  const verdict = sameOriginVerdict(req.method, (n) => req.headers.get(n), loadEnv().NEXTAUTH_URL);
  if (!verdict.ok) {
    log.warn({ route, reason: verdict.reason }, "cross-origin request refused");
    throw new AppError("FORBIDDEN", `Refused ${verdict.reason}: changes may only be made from Mosaic's own pages (or with an API key).`);
  }
}

/**
 * Step 2: who is calling. A session cookie (or nothing) goes through next-auth; a bearer token is an API
 * key (lib/auth/api-keys.ts), accepted only where the route names the scope it needs, checked for that
 * scope, and charged one request of the key's allowance. The key's principal ("key:<id>") has its own
 * run slots beside its owner's browser.
 */
async function authenticate(
  credentials: RequestCredentials,
  scope: ApiScope | undefined,
  anyScope?: readonly ApiScope[],
): Promise<{ user: CurrentUser; principal: string; apiKey?: { id: string; scopes: readonly ApiScope[] } }> {
  if (credentials.kind === "bearer") {
    if (!scope && !anyScope?.length)
      throw new AppError("UNAUTHENTICATED", "This endpoint takes a signed-in session; API keys work on /api/v1 and /api/mcp.");
    const prisma = await db();
    const key = await authenticateApiToken(prisma, credentials.token);
    if (scope) requireScope(key, scope);
    else requireAnyScope(key, anyScope!);
    await spendApiRequest(prisma, key.keyId);
    return { user: key.user, principal: `key:${key.keyId}`, apiKey: { id: key.keyId, scopes: key.scopes } };
  }
  const user = await getCurrentUser();
  if (!user) {
    throw new AppError(
      "UNAUTHENTICATED",
      scope || anyScope?.length ? "Send an API key as Authorization: Bearer <key>, or sign in." : "Sign in to use this endpoint.",
    );
  }
  return { user, principal: `user:${user.id}` };
}

/** Whether a body follows the headers: a non-zero declared length, or a body of undeclared length (chunked). */
function hasBody(req: Request): boolean {
  const length = req.headers.get("content-length");
  return length !== null ? length.trim() !== "0" : req.body !== null;
}

async function readJson(req: Request): Promise<unknown> {
  const { HTTP_MAX_BODY_BYTES } = loadEnv();
  if (mediaType(req.headers.get("content-type")) !== "application/json") {
    // Read nothing: a cross-site form or a "simple" text/plain request never gets its body parsed as JSON.
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the request body as JSON with Content-Type: application/json.");
  }
  if (!hasBody(req)) throw new AppError("VALIDATION", "The request body must be JSON.");
  const bytes = await readBoundedBody(req, HTTP_MAX_BODY_BYTES, "JSON body");
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new AppError("VALIDATION", "The request body must be JSON.");
  }
}

async function readMultipart(req: Request): Promise<{ raw: unknown; files: UploadedFormFile[] }> {
  const { UPLOAD_MAX_BYTES } = loadEnv();
  if (mediaType(req.headers.get("content-type")) !== "multipart/form-data") {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the upload as multipart/form-data.");
  }
  const bytes = await readBoundedBody(req, UPLOAD_MAX_BYTES, "upload");
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(bytes), {
      headers: { "content-type": req.headers.get("content-type")! },
    }).formData();
  } catch {
    throw new AppError("VALIDATION", "The upload could not be read. Send it as multipart/form-data.");
  }
  const payload = form.get("payload");
  let raw: unknown = {};
  if (typeof payload === "string") {
    try {
      raw = JSON.parse(payload);
    } catch {
      throw new AppError("VALIDATION", "The payload field must be JSON.");
    }
  }
  const files: UploadedFormFile[] = [];
  for (const entry of form.getAll("files")) {
    if (typeof entry === "string") continue;
    files.push({
      name: entry.name || "upload",
      bytes: Buffer.from(await entry.arrayBuffer()),
      mediaType: entry.type || "application/octet-stream",
    });
  }
  return { raw, files };
}

const READS_QUERY = new Set(["GET", "HEAD"]);

/** A body the route does not read is still bounded, and consumed, so it cannot stream on unread. */
async function discardBody(req: Request): Promise<void> {
  if (hasBody(req)) await readBoundedBody(req, loadEnv().HTTP_MAX_BODY_BYTES);
}

/**
 * The route-handler twin of authActionClient: origin rule, session and role check, bounded input, and
 * the same allow-listed error mapping (JSON `{error: ClientError}` with the matching HTTP status).
 */
export function withAuthRoute<S extends z.ZodType | undefined = undefined, P = Record<string, string>>(
  options: RouteOptions<S>,
  handler: Handler<S, P>,
) {
  return mark(async (req: NextRequest, ctx: RouteContext<P>): Promise<Response> => {
    try {
      const credentials = requestCredentials((n) => req.headers.get(n));
      checkOrigin(req, credentials, options.name);
      const { user, principal, apiKey } = await authenticate(credentials, options.scope, options.anyScope);
      if (options.roles && !options.roles.includes(user.role)) {
        throw new AppError("FORBIDDEN", "You do not have permission to do this.");
      }
      let input: unknown = undefined;
      let files: UploadedFormFile[] = [];
      const asMultipart =
        options.multipart === "or-json" ? mediaType(req.headers.get("content-type")) === "multipart/form-data" : !!options.multipart;
      if (asMultipart) {
        let raw: unknown;
        ({ raw, files } = await readMultipart(req));
        input = parseInput(options.input, raw);
      } else if (options.rawJson && !READS_QUERY.has(req.method)) {
        input = await readJson(req);
      } else if (options.input && !READS_QUERY.has(req.method)) {
        input = parseInput(options.input, await readJson(req));
      } else {
        if (options.input) input = parseInput(options.input, Object.fromEntries(req.nextUrl.searchParams));
        await discardBody(req);
      }
      const result = await handler({ req, user, principal, apiKey, input: input as never, files, params: await ctx.params });
      return result instanceof Response ? result : NextResponse.json(result);
    } catch (error) {
      return errorResponse(error, options.name, options.problemDetails, req.nextUrl?.pathname);
    }
  });
}

function parseInput(schema: z.ZodType | undefined, raw: unknown): unknown {
  if (!schema) return undefined;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError(
      "VALIDATION",
      "Some fields are invalid.",
      Object.fromEntries(parsed.error.issues.map((i) => [i.path.join(".") || "body", i.message])),
    );
  }
  return parsed.data;
}

interface PublicRouteOptions {
  name: string;
  /**
   * For a handler that parses the body itself (next-auth): the body is read here under this limit
   * and handed on in a fresh request, so the handler never sees more than the limit.
   */
  bodyLimitBytes?: number;
}

/**
 * Routes without a session (the health probe, next-auth's own endpoints): the same origin rule and
 * body bounds, no authentication.
 */
export function withPublicRoute<P = Record<string, string>>(
  options: PublicRouteOptions,
  handler: (args: { req: NextRequest; ctx: RouteContext<P> }) => Promise<Response>,
) {
  return mark(async (req: NextRequest, ctx: RouteContext<P>): Promise<Response> => {
    try {
      checkOrigin(
        req,
        requestCredentials((n) => req.headers.get(n)),
        options.name,
      );
      let forwarded = req;
      if (hasBody(req)) {
        const bytes = await readBoundedBody(req, options.bodyLimitBytes ?? loadEnv().HTTP_MAX_BODY_BYTES);
        if (options.bodyLimitBytes !== undefined) {
          forwarded = new NextRequest(req.url, {
            method: req.method,
            headers: req.headers,
            body: new Uint8Array(bytes),
            signal: req.signal,
          });
        }
      }
      return await handler({ req: forwarded, ctx });
    } catch (error) {
      return errorResponse(error, options.name);
    }
  });
}
