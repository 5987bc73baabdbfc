import type { GuideActionInput, GuideActionKind } from "../pipeline/guide-actions";
import { count } from "../format/count";

/**
 * What analysts read for AU-RAG's retrieval actions. Guides keep storing AU-RAG's names
 * (NATIVE_QUERY, SELECT_COORDINATES…); only the words on screen are these.
 */
export const ACTION_NAME: Record<GuideActionKind, string> = {
  NATIVE_QUERY: "Saved query",
  SELECT_COORDINATES: "Pick table cells",
  SELECT_SENTENCE_IDXS: "Pick sentences",
  NEIGHBORHOOD: "Graph neighborhood",
};

const LANGUAGE_NAME: Record<string, string> = { search: "search", sql: "SQL", sparql: "SPARQL", cypher: "Cypher" };
export const languageName = (language: string) => LANGUAGE_NAME[language] ?? language;

const list = new Intl.ListFormat("en", { style: "long", type: "conjunction" });

/** "rows 2, 4 and 7", numbered from 1 as the previews number them (positions are stored from 0). */
function positions(word: string, values: readonly number[], max = 12): string {
  const shown = values.slice(0, max).map((v) => String(v + 1));
  if (values.length > max) shown.push(count(values.length - max, "more"));
  return `${word}${values.length === 1 ? "" : "s"} ${list.format(shown)}`;
}

function columns(values: readonly (number | string)[], max = 8): string {
  const shown = values.slice(0, max).map((c) => (typeof c === "number" ? `column ${c + 1}` : c));
  if (values.length > max) shown.push(count(values.length - max, "more"));
  return `${values.length === 1 ? "column" : "columns"} ${list.format(shown)}`;
}

/**
 * One line in plain words: what the action reads. `names` replaces keys with what the screen shows
 * for them (a table's or a document's title) when the caller knows it.
 */
export function describeActionPlainly(action: GuideActionInput, names: { table?: string; document?: string } = {}): string {
  const name = ACTION_NAME[action.kind];
  switch (action.kind) {
    case "NATIVE_QUERY":
      return `${name} (${languageName(action.params.query.language)}): ${action.params.query.text.replace(/\s+/g, " ").slice(0, 200)}`;
    case "SELECT_COORDINATES":
      return `${name}: ${names.table ?? action.params.tableKey}, ${positions("row", action.params.rows)}; ${columns(action.params.columns)}`;
    case "SELECT_SENTENCE_IDXS":
      return `${name}: ${names.document ?? action.params.documentId}, ${positions("sentence", action.params.sentenceIdxs)}`;
    case "NEIGHBORHOOD":
      return `${name}: ${list.format(action.params.entities.slice(0, 4))}${action.params.entities.length > 4 ? ` (${count(action.params.entities.length, "entity", "entities")})` : ""}, ${count(action.params.hops, "hop")} out`;
  }
}
