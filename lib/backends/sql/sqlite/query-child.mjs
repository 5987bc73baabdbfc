// The child process that runs checked SELECTs against one SQLite file for lib/backends/sql/sqlite/query-process.ts.
//
// Why a separate process: better-sqlite3 is synchronous and exposes neither sqlite3_interrupt nor a
// progress handler, so a runaway query (an endless recursive CTE counting rows) never returns to
// JavaScript. A worker thread cannot be stopped then either: Worker.terminate() waits for the native
// call to return, and even process.exit() hangs behind it (tried). Killing a child process is the
// only thing that truly stops it, so the parent kills this process at the deadline (or when it uses
// more memory than allowed) and starts a new one for the next query. Between rows the deadline and
// the result's byte budget are also checked here, so slow or bulky results end cleanly without a restart.
//
// Plain JavaScript because Node starts it directly, without the TypeScript toolchain.
import Database from "better-sqlite3";

let db = null;
let openFile = null;

/** Opcodes of SQLite's compiled program that call a function; P4 reads "name(argc)". */
const CALL_OPCODES = new Set([
  "Function",
  "Function0",
  "PureFunc",
  "PureFunc0",
  "AggStep",
  "AggStep0",
  "AggStep1",
  "AggFinal",
  "AggValue",
  "AggInverse",
]);

function openDatabase(file) {
  if (db && openFile === file) return db;
  if (db) db.close();
  db = null;
  // Second wall: the file is opened read-only and query_only refuses writes even to temp tables.
  const opened = new Database(file, { readonly: true, fileMustExist: true });
  opened.pragma("query_only = ON");
  db = opened;
  openFile = file;
  return db;
}

function failure(id, kind, message, code) {
  process.send({ id, ok: false, error: { kind, message, code: code ?? null } });
}

/**
 * SQLite's own list of the functions the statement calls, read from its compiled program (EXPLAIN):
 * whatever the text looked like to a parser, this is what would run. Returns the first one not allowed.
 */
function refusedCall(database, sql, allowed) {
  for (const op of database.prepare(`EXPLAIN ${sql}`).iterate()) {
    if (!CALL_OPCODES.has(op.opcode) || typeof op.p4 !== "string") continue;
    const name = op.p4.replace(/\(-?\d+\)$/, "").toLowerCase();
    if (!allowed.has(name)) return name;
  }
  return null;
}

/** Bytes a value takes in a result, counted as it would be sent. */
function sizeOf(v) {
  if (typeof v === "string") return v.length < 256 ? v.length : Buffer.byteLength(v, "utf8");
  if (v instanceof Uint8Array) return 32;
  return 8;
}

/**
 * A value as it may leave this process: blobs by their size only (as toJsonSafe() in values.ts shows
 * them), text longer than the per-value budget cut there with a visible mark.
 */
function bounded(v, maxValueBytes) {
  if (v instanceof Uint8Array) return `<binary ${v.byteLength} bytes>`;
  if (typeof v !== "string" || v.length * 3 <= maxValueBytes) return v;
  const bytes = Buffer.byteLength(v, "utf8");
  if (bytes <= maxValueBytes) return v;
  const head = Buffer.from(v.slice(0, maxValueBytes), "utf8").subarray(0, maxValueBytes).toString("utf8");
  // The same mark as cutMark() in postgres/engine.ts.
  return `${head}… [cut: the value is ${bytes.toLocaleString("en")} bytes long; values are kept up to ${maxValueBytes.toLocaleString("en")} bytes]`;
}

function run({ id, file, sql, maxRows, timeoutMs, maxValueBytes, maxResultBytes, allowedFunctions }) {
  const deadline = Date.now() + timeoutMs;
  let stmt;
  let database;
  try {
    database = openDatabase(file);
    stmt = database.prepare(sql);
  } catch (e) {
    if (e instanceof RangeError && /more than one statement/.test(e.message)) {
      return failure(id, "rejected", "only a single SELECT statement may run, and SQLite found more than one");
    }
    return failure(id, "failed", e.message, e.code);
  }
  // SQLite's own verdict on the prepared statement: it must return rows and must not write.
  if (!stmt.reader) return failure(id, "rejected", "only statements that return rows may run");
  if (!stmt.readonly) return failure(id, "rejected", "SQLite reports that this statement would change the database");
  try {
    const refused = refusedCall(database, sql, new Set(allowedFunctions));
    if (refused) return failure(id, "function", refused);
  } catch (e) {
    return failure(id, "failed", e.message, e.code);
  }
  stmt.raw(true);
  stmt.safeIntegers(true);
  const columns = stmt.columns().map((c) => c.name);
  const rows = [];
  let truncated = false;
  let bytes = 0;
  try {
    // iterate() reads one row at a time; leaving the loop finalizes the statement, so at most
    // maxRows + 1 rows are ever read, however many the query would produce.
    for (const row of stmt.iterate()) {
      if (rows.length === maxRows) {
        truncated = true;
        break;
      }
      const out = row.map((v) => bounded(v, maxValueBytes));
      for (const v of out) bytes += sizeOf(v);
      if (bytes > maxResultBytes) return failure(id, "too-large", String(maxResultBytes));
      rows.push(out);
      if (Date.now() > deadline) return failure(id, "timeout", `the query ran longer than ${timeoutMs} ms`);
    }
  } catch (e) {
    return failure(id, "failed", e.message, e.code);
  }
  process.send({ id, ok: true, columns, rows, truncated });
}

process.on("message", (msg) => {
  if (msg && typeof msg === "object" && msg.type === "query") run(msg);
});
// The parent went away: nothing is left to answer.
process.on("disconnect", () => process.exit(0));
process.send({ type: "ready" });
