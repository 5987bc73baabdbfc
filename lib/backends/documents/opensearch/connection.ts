import { Client, errors } from "@opensearch-project/opensearch";
import { loadEnv } from "../../../env";
import { BackendConfigError, BackendUnavailableError } from "../../errors";
import type { DocumentsConfig, DocumentsSecrets, OpenSearchSettings } from "../config";
import { openSearchSettingsSchema } from "../config";

/**
 * One OpenSearch client per open collection (the client keeps a connection pool). Requests go through
 * `call`, which turns the client's errors into messages a person can act on: connection refused,
 * authentication, missing index, incompatible mapping, timeout.
 */

export interface OpenSearchConnection {
  client: Client;
  /** The cluster address without credentials, for messages. */
  url: string;
  settings: OpenSearchSettings;
}

export function openSearchSettings(config: DocumentsConfig): OpenSearchSettings {
  return config.opensearch ?? openSearchSettingsSchema.parse({});
}

export function connectOpenSearch(config: DocumentsConfig, secrets: DocumentsSecrets): OpenSearchConnection {
  const settings = openSearchSettings(config);
  const url = settings.url ?? loadEnv().SEARCH_URL;
  if (!url) {
    throw new BackendConfigError(
      "This collection lives in OpenSearch, but no cluster address is set: give the collection one, or set SEARCH_URL on the server.",
    );
  }
  const auth = settings.username ? { username: settings.username, password: secrets.password ?? "" } : undefined;
  const client = new Client({ node: url, auth, maxRetries: 2, requestTimeout: 30_000 });
  return { client, url: new URL(url).origin, settings };
}

type ErrorBody = { error?: { type?: string; reason?: string; root_cause?: { type?: string; reason?: string }[] } | string };

function reasonOf(body: unknown): { type: string; reason: string } {
  const b = body as ErrorBody | undefined;
  if (!b || typeof b !== "object") return { type: "", reason: "" };
  if (typeof b.error === "string") return { type: "", reason: b.error };
  const root = b.error?.root_cause?.[0];
  return { type: root?.type ?? b.error?.type ?? "", reason: root?.reason ?? b.error?.reason ?? "" };
}

/** A plain sentence for what went wrong talking to the cluster. */
export function describeOpenSearchError(e: unknown, url: string): string {
  if (e instanceof errors.ResponseError) {
    const status = e.meta.statusCode ?? 0;
    const { type, reason } = reasonOf(e.meta.body);
    if (status === 401) return `OpenSearch at ${url} refused the credentials (authentication failed): check the user and password.`;
    if (status === 403)
      return `OpenSearch at ${url} denied access (the user lacks permission on the collection's indexes${reason ? `: ${reason}` : ""}).`;
    if (type === "index_not_found_exception")
      return `OpenSearch at ${url} has no index for this collection (${reason || "index not found"}): it was deleted or never built; re-index the collection.`;
    if (type.includes("mapper") || type === "illegal_argument_exception")
      return `OpenSearch at ${url} rejected the collection's mapping (${reason || type}): the index was built by another version; re-index the collection.`;
    return `OpenSearch at ${url} answered ${status}${type ? ` ${type}` : ""}${reason ? `: ${reason}` : ""}.`;
  }
  if (e instanceof errors.TimeoutError) return `OpenSearch at ${url} did not answer in time.`;
  if (e instanceof errors.NoLivingConnectionsError || e instanceof errors.ConnectionError) {
    const cause = (e as Error).message;
    if (/ECONNREFUSED/.test(cause)) return `OpenSearch at ${url} refused the connection (is the cluster running and the address right?).`;
    if (/ENOTFOUND|EAI_AGAIN/.test(cause)) return `OpenSearch at ${url} could not be found (the host name does not resolve).`;
    if (/certificate|SSL|TLS/i.test(cause)) return `OpenSearch at ${url} could not be reached securely (${cause}).`;
    return `OpenSearch at ${url} cannot be reached (${cause}).`;
  }
  return `OpenSearch at ${url}: ${e instanceof Error ? e.message : String(e)}`;
}

/** A failed request, said plainly, with what the cluster answered (when it answered) for callers that branch on it. */
export class OpenSearchRequestError extends BackendUnavailableError {
  constructor(
    message: string,
    /** HTTP status, or null when the cluster did not answer. */
    readonly status: number | null,
    /** OpenSearch's error type ("index_not_found_exception"), or "timeout" / "cancelled" / "" . */
    readonly errorType: string,
  ) {
    super(message);
  }
}

export interface CallOptions {
  /** Statuses that are answers, not errors (404 for "not there"). */
  ignore?: number[];
  timeoutMs?: number;
  signal?: AbortSignal;
  querystring?: Record<string, unknown>;
  /** NDJSON lines for _bulk / _msearch. */
  bulkBody?: unknown[];
}

/**
 * One HTTP request to the cluster. Failures become BackendUnavailableError with a plain message,
 * so a caller (health check, search, ingestion) can show or store it as it is.
 */
export async function call<T = unknown>(
  conn: OpenSearchConnection,
  method: "GET" | "PUT" | "POST" | "DELETE" | "HEAD",
  path: string,
  body?: unknown,
  opts: CallOptions = {},
): Promise<{ status: number; body: T }> {
  if (opts.signal?.aborted) throw new OpenSearchRequestError("The request to OpenSearch was cancelled.", null, "cancelled");
  const request = conn.client.transport.request(
    {
      method,
      path,
      body: body as Record<string, unknown> | undefined,
      bulkBody: opts.bulkBody as Record<string, unknown>[] | undefined,
      querystring: opts.querystring,
    },
    { ignore: opts.ignore, requestTimeout: opts.timeoutMs, maxRetries: opts.signal ? 0 : undefined },
  );
  const onAbort = () => request.abort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const res = await request;
    return { status: res.statusCode ?? 200, body: res.body as T };
  } catch (e) {
    if (e instanceof errors.RequestAbortedError)
      throw new OpenSearchRequestError("The request to OpenSearch was cancelled.", null, "cancelled");
    if (e instanceof errors.TimeoutError) throw new OpenSearchRequestError(describeOpenSearchError(e, conn.url), null, "timeout");
    const answered = e instanceof errors.ResponseError;
    throw new OpenSearchRequestError(
      describeOpenSearchError(e, conn.url),
      answered ? (e.meta.statusCode ?? null) : null,
      answered ? reasonOf(e.meta.body).type : "",
    );
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
  }
}
