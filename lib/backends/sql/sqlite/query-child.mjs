// The child process that runs checked SELECTs against one SQLite file for lib/backends/sql/sqlite/query-process.ts.
//
// Why a separate process: better-sqlite3 is synchronous and exposes neither sqlite3_interrupt nor a
// progress handler, so a runaway query (an endless recursive CTE counting rows) never returns to
// JavaScript. A worker thread cannot be stopped then either: Worker.terminate() waits for the native
// call to return, and even process.exit() hangs behind it (tried). Killing a child process is the
// only thing that truly stops it, so the parent kills this process at the deadline and starts a new
// one for the next query. Between rows the deadline is also checked here, so slow row-producing
// queries end cleanly without a restart.
//
// Plain JavaScript because Node starts it directly, without the TypeScript toolchain.
import Database from "better-sqlite3";

let db = null;
let openFile = null;

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

/** Blobs are not sent back whole: only their size is shown, in the same form as toJsonSafe() in values.ts. */
function withoutBlobs(row) {
  return row.map((v) => (v instanceof Uint8Array ? `<binary ${v.byteLength} bytes>` : v));
}

function failure(id, kind, message, code) {
  process.send({ id, ok: false, error: { kind, message, code: code ?? null } });
}

function run({ id, file, sql, maxRows, timeoutMs }) {
  const deadline = Date.now() + timeoutMs;
  let stmt;
  try {
    stmt = openDatabase(file).prepare(sql);
  } catch (e) {
    if (e instanceof RangeError && /more than one statement/.test(e.message)) {
      return failure(id, "rejected", "only a single SELECT statement may run, and SQLite found more than one");
    }
    return failure(id, "failed", e.message, e.code);
  }
  // SQLite's own verdict on the prepared statement: it must return rows and must not write.
  if (!stmt.reader) return failure(id, "rejected", "only statements that return rows may run");
  if (!stmt.readonly) return failure(id, "rejected", "SQLite reports that this statement would change the database");
  stmt.raw(true);
  stmt.safeIntegers(true);
  const columns = stmt.columns().map((c) => c.name);
  const rows = [];
  let truncated = false;
  try {
    // iterate() reads one row at a time; leaving the loop finalizes the statement, so at most
    // maxRows + 1 rows are ever read, however many the query would produce.
    for (const row of stmt.iterate()) {
      if (rows.length === maxRows) {
        truncated = true;
        break;
      }
      rows.push(withoutBlobs(row));
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
