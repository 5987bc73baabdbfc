import { log } from "../../log";
import {
  BackendUnavailableError,
  QueryExecutionError,
  QueryRejectedError,
  QuerySyntaxError,
  QueryTimeoutError,
  isBackendError,
  type BackendError,
} from "../errors";

/**
 * Neo4j and driver errors → Mosaic's typed backend errors, with messages a person can act on.
 * Neo4j's own message is kept where it helps (syntax errors point at the offending token); the
 * password never appears because neither the driver nor the server puts it in a message.
 */

export interface ErrorContext {
  /** The Bolt address as configured (it never carries credentials: the config schema refuses them). */
  uri: string;
  user: string;
  database?: string;
  query?: string;
  timeoutMs?: number;
}

interface DriverErrorLike {
  code?: string;
  message?: string;
}

function asDriverError(error: unknown): DriverErrorLike {
  return typeof error === "object" && error !== null ? (error as DriverErrorLike) : { message: String(error) };
}

const TIMEOUT_CODES = new Set([
  "Neo.ClientError.Transaction.TransactionTimedOut",
  "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
]);

/** Error codes that say the server, the credentials or the database cannot be used at all. */
export function isUnavailableCode(code: string | undefined): boolean {
  return (
    code === "ServiceUnavailable" ||
    code === "SessionExpired" ||
    code === "Neo.ClientError.Security.Unauthorized" ||
    code === "Neo.ClientError.Security.AuthenticationRateLimit" ||
    code === "Neo.ClientError.Security.CredentialsExpired" ||
    code === "Neo.ClientError.Database.DatabaseNotFound" ||
    code === "Neo.TransientError.General.DatabaseUnavailable"
  );
}

/** The socket-level reason inside a driver message ("… Caused by: connect ECONNREFUSED 127.0.0.1:7687"). */
function networkReason(message: string): string {
  if (message.includes("ECONNREFUSED")) return "connection refused";
  if (message.includes("ENOTFOUND") || message.includes("EAI_AGAIN")) return "host name not found";
  if (message.includes("ETIMEDOUT") || /timed out/i.test(message)) return "connection timed out";
  if (message.includes("ECONNRESET")) return "the server closed the connection";
  if (/SSL|TLS|certificate|encryption/i.test(message)) return "TLS settings do not match the server (try bolt+s:// or bolt://)";
  return "no server answered on Bolt";
}

/** For failures that make the whole KB unusable: unreachable, refused credentials, missing database. */
export function unavailableError(error: unknown, ctx: ErrorContext): BackendUnavailableError {
  const { code, message = "" } = asDriverError(error);
  switch (code) {
    case "Neo.ClientError.Security.Unauthorized":
      return new BackendUnavailableError(`Neo4j refused the credentials for user ${ctx.user}. Check the user name and password.`);
    case "Neo.ClientError.Security.AuthenticationRateLimit":
      return new BackendUnavailableError(
        `Neo4j locked user ${ctx.user} out after too many failed sign-ins. Wait a few seconds, then check the password.`,
      );
    case "Neo.ClientError.Security.CredentialsExpired":
      return new BackendUnavailableError(
        `The password of Neo4j user ${ctx.user} has expired. Change it in Neo4j, then update the secrets.`,
      );
    case "Neo.ClientError.Database.DatabaseNotFound":
      return new BackendUnavailableError(`Database "${ctx.database ?? "(default)"}" does not exist on ${ctx.uri}.`);
    case "Neo.TransientError.General.DatabaseUnavailable":
      return new BackendUnavailableError(
        `Database "${ctx.database ?? "(default)"}" on ${ctx.uri} is not available right now (stopped or starting).`,
      );
    default:
      return new BackendUnavailableError(`Cannot reach ${ctx.uri}: ${networkReason(message)}.`);
  }
}

/** Neo4j's message without the echo of the whole query it appends to syntax errors after a blank line. */
function firstParagraph(message: string): string {
  return message.split(/\n\s*\n/)[0]!.trim();
}

/** Maps any error raised while explaining or running a query. Backend errors pass through unchanged. */
export function mapNeo4jError(error: unknown, ctx: ErrorContext): BackendError {
  if (isBackendError(error)) return error;
  const query = ctx.query ?? "";
  const { code, message = "" } = asDriverError(error);
  if (code && TIMEOUT_CODES.has(code)) return new QueryTimeoutError(ctx.timeoutMs ?? 0, query);
  if (isUnavailableCode(code)) return unavailableError(error, ctx);
  switch (code) {
    case "Neo.ClientError.Statement.SyntaxError":
      // Neo4j's parser is the judge of statement boundaries; its message is the only place it says so.
      if (message.includes("Expected exactly one statement per query")) {
        return new QueryRejectedError("only one Cypher statement may run at a time", query);
      }
      return new QuerySyntaxError(firstParagraph(message), query);
    case "Neo.ClientError.Statement.SemanticError":
    case "Neo.ClientError.Statement.TypeError":
    case "Neo.ClientError.Statement.ParameterMissing":
    case "Neo.ClientError.Statement.ParameterSyntaxError":
      return new QuerySyntaxError(firstParagraph(message), query);
    case "Neo.ClientError.Statement.AccessMode":
      // The second line of defence: the READ session refused a write that got past the plan check.
      return new QueryRejectedError("Cypher queries may only read the graph, and this one tried to write", query);
    case "Neo.ClientError.Security.Forbidden":
      return new QueryRejectedError(`Neo4j user ${ctx.user} is not allowed to run this query (${firstParagraph(message)})`, query);
    case "Neo.ClientError.Procedure.ProcedureNotFound":
    case "Neo.ClientError.Statement.FunctionNotFound":
      return new QuerySyntaxError(firstParagraph(message), query);
    case "Neo.TransientError.General.MemoryPoolOutOfMemoryError":
      // The server's per-transaction limit (db.memory.transaction.max) stopped it; the server itself is fine.
      log.warn({ code, detail: message, uri: ctx.uri }, "Neo4j stopped a query at its memory limit");
      return new QueryExecutionError(
        "The query needed more memory than one graph query may use, so Neo4j stopped it. Ask for fewer or shorter values, or aggregate.",
        query,
      );
    default:
      // The server's own words go to the log only; the person gets what to do.
      log.warn({ code, detail: message, uri: ctx.uri }, "Neo4j failed to run a query");
      return new QueryExecutionError(
        `Neo4j could not run the query${code ? ` (${code})` : ""}. Try again; if it fails again, check the query against the graph's labels and relationship types.`,
        query,
      );
  }
}
