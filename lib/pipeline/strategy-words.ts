import { count } from "../format/count";

/** How each retrieval module is named to the person who asked: the modules' own names ("schema-linking", "sparql-pattern") are internal. */
const STRATEGY_WORDS: Record<string, string> = {
  search: "document search",
  "schema-linking": "database query",
  "sparql-pattern": "graph query",
  neighborhood: "graph neighbourhood",
  cypher: "graph query",
  guide: "saved query",
  llm: "query written by the model",
};

export function strategyInWords(strategy: string): string {
  return STRATEGY_WORDS[strategy] ?? "query";
}

/**
 * What a query's run came to, in words ("returned 7 results", "timed out"): the statuses ("ok", "error")
 * are internal. A query that ran and returned no rows says so, whatever its status.
 */
export function queryOutcomeInWords(q: { status: string; rows?: number }): string {
  if (q.status === "ok" && q.rows !== undefined) return q.rows > 0 ? `returned ${count(q.rows, "result")}` : "returned nothing";
  return QUERY_STATUS_WORDS[q.status] ?? "did not run";
}

const QUERY_STATUS_WORDS: Record<string, string> = {
  ok: "returned results",
  empty: "returned nothing",
  refused: "was refused",
  timeout: "timed out",
  error: "failed",
  unavailable: "could not reach its source",
};

/** A run status as a query's label says it ("ok" → "results"), for short chips. */
export function queryStatusLabel(status: string): string {
  return QUERY_STATUS_LABELS[status] ?? status;
}

const QUERY_STATUS_LABELS: Record<string, string> = {
  ok: "results",
  empty: "nothing found",
  refused: "refused",
  timeout: "timed out",
  error: "failed",
  unavailable: "source unavailable",
};

const ANSWER_TYPE_WORDS: Record<string, string> = {
  person: "a person",
  organisation: "an organisation",
  location: "a place",
  date: "a date",
  number: "a number",
  count: "a count",
  money: "an amount of money",
  percent: "a percentage",
  boolean: "a yes or no",
  entity: "a name",
  text: "a description",
  list: "a list",
};

/** What the question was read as, in a line: "Looks for a count of “orders”, “returned”". */
export function intentInWords(intent: {
  answerTypes: readonly string[];
  entities: readonly { mention: string; links: readonly unknown[] }[];
}): string {
  const wanted = intent.answerTypes.map((t) => ANSWER_TYPE_WORDS[t]).filter(Boolean);
  const named = intent.entities.map((e) => `“${e.mention}”${e.links.length ? "" : " (found in no source)"}`);
  const looksFor = wanted.length ? `Looks for ${wanted.slice(0, 2).join(" or ")}` : "Read the question";
  return named.length ? `${looksFor}; names ${named.join(", ")}` : looksFor;
}
