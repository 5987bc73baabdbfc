// The process that parses SQL texts for lib/backends/sql/parse-pool.ts, so no parser ever runs on the
// server's main thread. node-sql-parser's grammars backtrack exponentially on some inputs (15 unbalanced
// parentheses took 7.5 s; around 20 the process dies of "invalid size"); here that only costs this
// process, which the parent kills at the check's deadline and replaces.
//
// Messages in:  { id, sql, grammars: ["sqlite", "postgresql", "libpg-query"] }   tried in order
// Replies:      { id, ok: true, grammar, json }   the tree as JSON text (parsed iteratively by the parent)
//               { id, ok: false, error: { message, found?, location?, cursorPosition?, tooDeep? } }
//
// Plain JavaScript because Node starts it directly, without the TypeScript toolchain.
import { loadModule, parseSync } from "libpg-query";
import postgresGrammar from "node-sql-parser/build/postgresql.js";
import sqliteGrammar from "node-sql-parser/build/sqlite.js";

const parsers = { sqlite: new sqliteGrammar.Parser(), postgresql: new postgresGrammar.Parser() };

function failure(e) {
  // A RangeError here is the parser (or JSON.stringify) running out of stack on a deeply nested text.
  if (e instanceof RangeError) return { message: e.message, tooDeep: true };
  return {
    message: e instanceof Error ? e.message : String(e),
    found: e?.found ?? undefined,
    location: e?.location ?? undefined,
    cursorPosition: e?.sqlDetails?.cursorPosition ?? undefined,
  };
}

function parseWithGrammars(sql, grammars) {
  let first = null;
  for (const grammar of grammars) {
    try {
      // libpg-query: PostgreSQL's own parser (linear time, whatever the text).
      const tree = grammar === "libpg-query" ? parseSync(sql) : parsers[grammar].astify(sql, { database: grammar });
      return { ok: true, grammar, json: JSON.stringify(tree) };
    } catch (e) {
      first ??= failure(e);
      if (first.tooDeep) break;
    }
  }
  return { ok: false, error: first };
}

await loadModule();

process.on("message", (msg) => {
  if (!msg || typeof msg !== "object") return;
  const reply = parseWithGrammars(msg.sql, Array.isArray(msg.grammars) ? msg.grammars : ["libpg-query"]);
  process.send({ id: msg.id, ...reply });
});
// The parent went away: nothing is left to answer.
process.on("disconnect", () => process.exit(0));
process.send({ type: "ready" });
