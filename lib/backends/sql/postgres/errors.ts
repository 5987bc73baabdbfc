import { log } from "../../../log";
import { BackendUnavailableError, QueryExecutionError, QueryRejectedError, QuerySyntaxError, QueryTimeoutError } from "../../errors";

/** Where the server is, for messages: never the password, never a connection string. */
export interface ServerAddress {
  host: string;
  port: number;
  database: string;
  user: string;
}

interface PgLikeError {
  code?: string;
  message?: string;
  errors?: { code?: string }[];
}

function codeOf(e: unknown): string {
  const err = e as PgLikeError;
  return err?.code ?? err?.errors?.find((x) => x?.code)?.code ?? "";
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Connection-level failures a person can act on; null when the error is not about reaching the server. */
export function connectionFailure(e: unknown, at: ServerAddress): BackendUnavailableError | null {
  const code = codeOf(e);
  const where = `${at.host}:${at.port}`;
  switch (code) {
    case "ECONNREFUSED":
      return new BackendUnavailableError(`Connection refused at ${where}: is PostgreSQL running there and reachable from this server?`);
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new BackendUnavailableError(`The host ${at.host} was not found. Check the host name.`);
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return new BackendUnavailableError(`No answer from ${where}. Check the host, the port and the firewall.`);
    case "ECONNRESET":
      return new BackendUnavailableError(`The connection to ${where} was closed by the server.`);
    case "28P01":
    case "28000":
      return new BackendUnavailableError(`Authentication failed for user "${at.user}" on ${where}. Check the user and the password.`);
    case "3D000":
      return new BackendUnavailableError(`The database "${at.database}" does not exist on ${where}.`);
    case "53300":
      return new BackendUnavailableError(`${where} accepts no more connections right now (too many clients). Try again later.`);
    case "57P03":
      return new BackendUnavailableError(`The PostgreSQL server at ${where} is starting up or shutting down. Try again shortly.`);
    default:
      break;
  }
  const message = messageOf(e);
  if (/timeout expired|Connection terminated due to connection timeout/i.test(message)) {
    return new BackendUnavailableError(`No answer from ${where} in time. Check the host, the port and the firewall.`);
  }
  if (/SSL|certificate|self[- ]signed/i.test(message)) {
    log.warn({ detail: message, host: at.host }, "PostgreSQL TLS connection failed");
    return new BackendUnavailableError(`The TLS connection to ${where} failed. Check the server's certificate and the SSL setting.`);
  }
  if (/Connection terminated|ECONNRESET/i.test(message))
    return new BackendUnavailableError(`The connection to ${where} was lost. Try again.`);
  return null;
}

/**
 * A failure of a query we ran: SQLSTATE classes mapped to the typed errors. Errors about the query
 * itself (a missing column, a division by zero) keep PostgreSQL's short message: it tells the writer
 * what to fix. Anything about the server's inside (resources, internal errors) is said plainly and the
 * server's own text goes to the log only.
 */
export function queryFailure(e: unknown, sql: string, timeoutMs: number, at: ServerAddress): Error {
  const code = codeOf(e);
  const message = messageOf(e);
  // 57014: the server's statement_timeout (or our cancel); "Query read timeout": the client stopped waiting.
  if (code === "57014" || /Query read timeout/.test(message)) return new QueryTimeoutError(timeoutMs, sql);
  if (code === "25006")
    return new QueryRejectedError("PostgreSQL refused it: the query tried to change something, and knowledge bases are only read", sql);
  if (code === "42601") return new QuerySyntaxError(`PostgreSQL: ${message}`, sql);
  if (code === "42501") return new QueryExecutionError(`PostgreSQL: ${message}. The knowledge base's user may not read this.`, sql);
  const connection = connectionFailure(e, at);
  if (connection) return connection;
  // 42: names and types the query uses; 22: values it computes on (division by zero, bad dates); 21: cardinality.
  if (/^(42|22|21)/.test(code)) return new QueryExecutionError(`PostgreSQL could not run the query: ${message}.`, sql);
  log.warn({ code, detail: message, host: at.host, database: at.database }, "PostgreSQL failed to run a query");
  if (/^54/.test(code))
    return new QueryExecutionError(
      "The query is too complex for the PostgreSQL server (it went past one of the server's limits). Write it more simply.",
      sql,
    );
  if (/^53/.test(code))
    return new QueryExecutionError(
      "The PostgreSQL server ran out of resources (memory, disk or connections) while running the query. Try again later, or ask for less.",
      sql,
    );
  return new QueryExecutionError(
    "PostgreSQL could not run the query. Try again; if it fails again, check the query against the knowledge base's tables.",
    sql,
  );
}
