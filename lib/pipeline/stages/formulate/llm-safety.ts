import { QueryRejectedError, QuerySyntaxError } from "../../../backends/errors";
import { checkSparqlSafety } from "../../../backends/sparql";
import { checkSqlSafety } from "../../../backends/sql";
import type { SqlDialect } from "../../../backends/sql/dialect";
import { ALLOWED_PROCEDURES } from "../../../backends/cypher/safety";

/**
 * The safety checks a generated query passes before it is handed to execution (DESIGN.md safety
 * rules). SQL and SPARQL use the backends' own parsers (checkSqlSafety, checkSparqlSafety): exactly one
 * read-only SELECT; a query, never an update. Cypher has no parser in-process (Neo4j compiles it with
 * EXPLAIN at execution, and the READ session refuses writes again), so generated Cypher first passes a
 * lexical screen here: comments, strings and quoted names removed, then any writing clause, LOAD CSV,
 * apoc/dbms calls, transactions in CALL, administration commands or a second statement refuse it.
 * Throws QueryRejectedError (unsafe: never retried) or QuerySyntaxError (unreadable: repaired once).
 */

export type GeneratedLanguage = "sql" | "sparql" | "cypher";

export interface CheckedQuery {
  /** The text to run: the checker's normalized form for SQL, as written otherwise. */
  text: string;
  /** SQL: the table the rows come from when the query reads one table directly. */
  table?: string | null;
}

const CYPHER_WRITES = ["CREATE", "MERGE", "DELETE", "DETACH", "SET", "REMOVE", "DROP", "FOREACH"];
const CYPHER_ADMIN = ["SHOW", "GRANT", "REVOKE", "DENY", "ALTER", "START", "STOP", "TERMINATE", "ENABLE", "DISABLE", "RENAME"];

/** The query with comments, string literals and `quoted names` replaced by neutral placeholders. */
export function cypherSkeleton(query: string): string {
  let out = "";
  let i = 0;
  while (i < query.length) {
    const c = query[i];
    const next = query[i + 1];
    if (c === "/" && next === "/") {
      const end = query.indexOf("\n", i);
      i = end < 0 ? query.length : end;
      out += " ";
    } else if (c === "/" && next === "*") {
      const end = query.indexOf("*/", i + 2);
      i = end < 0 ? query.length : end + 2;
      out += " ";
    } else if (c === "'" || c === '"' || c === "`") {
      let j = i + 1;
      while (j < query.length && query[j] !== c) j += query[j] === "\\" ? 2 : 1;
      i = j + 1;
      out += c === "`" ? " name " : " 'x' ";
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** A keyword used as a clause: not a property (n.set), a label or map key (:Set, {set: 1}) or a parameter ($set). */
function clauseWord(skeleton: string, word: string): boolean {
  const re = new RegExp(`(?<![\\w.:$])${word}(?![\\w:])`, "i");
  const m = re.exec(skeleton);
  if (!m) return false;
  return !/^\s*:/.test(skeleton.slice(m.index + word.length));
}

export function screenCypher(query: string): CheckedQuery {
  const skeleton = cypherSkeleton(query);
  if (!skeleton.trim()) throw new QuerySyntaxError("the query is empty", query);
  const statements = skeleton.split(";").filter((s) => s.trim());
  if (statements.length > 1) throw new QueryRejectedError("only a single Cypher statement may run", query);
  if (/\bLOAD\s+CSV\b/i.test(skeleton))
    throw new QueryRejectedError("LOAD CSV is not allowed: it reads files and URLs from the database server", query);
  if (/\bIN\s+TRANSACTIONS\b/i.test(skeleton) || /\bPERIODIC\s+COMMIT\b/i.test(skeleton)) {
    throw new QueryRejectedError("CALL { … } IN TRANSACTIONS is not allowed: queries run in one read transaction", query);
  }
  const writes = CYPHER_WRITES.filter((w) => clauseWord(skeleton, w));
  if (writes.length)
    throw new QueryRejectedError(`Cypher queries may only read the graph, and this one writes (${writes.join(", ")})`, query);
  const admin = CYPHER_ADMIN.find((w) => new RegExp(`^\\s*(?:USE\\s+\\S+\\s+)?${w}\\b`, "i").test(skeleton));
  if (admin) throw new QueryRejectedError(`administration commands are not allowed (${admin})`, query);
  for (const m of skeleton.matchAll(/(?<![\w.])((?:apoc|dbms)\.[A-Za-z_][\w.]*)/gi)) {
    throw new QueryRejectedError(
      `${m[1].toLowerCase().startsWith("apoc.") ? "APOC" : "dbms.*"} procedures and functions are not allowed (${m[1]})`,
      query,
    );
  }
  for (const m of skeleton.matchAll(/\bCALL\s+([A-Za-z_][\w.]*)/gi)) {
    if (!ALLOWED_PROCEDURES.has(m[1])) {
      throw new QueryRejectedError(`procedure ${m[1]} is not allowed; only schema and index look-ups may be called`, query);
    }
  }
  if (!/\bRETURN\b/i.test(skeleton) && !/^\s*CALL\s+db\./i.test(skeleton))
    throw new QuerySyntaxError("a read query must end with RETURN", query);
  return { text: query.trim().replace(/;\s*$/, "") };
}

/** Checks a generated query for its language; throws QueryRejectedError or QuerySyntaxError. */
export async function checkGeneratedQuery(
  language: GeneratedLanguage,
  text: string,
  options: { dialect?: SqlDialect } = {},
): Promise<CheckedQuery> {
  const trimmed = text.trim();
  switch (language) {
    case "sql": {
      const checked = await checkSqlSafety(trimmed, options.dialect ?? "sqlite");
      return { text: checked.normalized, table: checked.fromTable };
    }
    case "sparql":
      checkSparqlSafety(trimmed);
      return { text: trimmed };
    case "cypher":
      return screenCypher(trimmed);
  }
}
