import { terms } from "../../text";

/**
 * How much of a question a query accounts for: the share of the question's content words that some
 * part of the query (a table, class or label it reads, a column or property, a value it filters on, a
 * time cue) is named by. Words every question uses to ask (wh-words, request verbs, aggregate and
 * comparison words, numbers) are not content. A query over a source that knows little of the question
 * ("percentage of products that contained recycled materials" against a sales database) covers little.
 */

/**
 * Request verbs shape the question only as an imperative that opens a clause ("Return the names…",
 * "…, and show their ages"); elsewhere they are things a source may record ("the returns warehouse",
 * "the trade show").
 */
const REQUEST_VERB = /(^|[,;:.?!]\s*|\b(?:please|and|then|also|you|me)\s+)(?:show|give|find|return|tell|display)\b/gi;

/** Words that only shape the question, never a thing in a source (already through the tokenizer's stemmer). */
const SCAFFOLD = new Set(
  terms(
    `list name names many much number numbers count total sum average mean minimum maximum min max
     highest lowest largest smallest most least greatest fewest top bottom first last different distinct unique each every per
     descending ascending order ordered sort sorted alphabetical alphabetically also please there exist exists listed record records
     information info detail details corresponding respective respectively whose among across overall altogether
     less more fewer greater larger bigger smaller higher lower above below over under exceed exceeding equal between than least
     whether yes`,
  ),
);

export function questionCoverage(question: string, known: string[]): { coverage: number; uncovered: string[] } {
  const knownSet = new Set(known);
  const asked = question
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .trim()
    .replace(REQUEST_VERB, "$1");
  const content = [...new Set(terms(asked))].filter((t) => !SCAFFOLD.has(t) && !/^\d+(?:\.\d+)?$/.test(t) && t.length > 1);
  if (content.length === 0) return { coverage: 1, uncovered: [] };
  const uncovered = content.filter((t) => !knownSet.has(t));
  return { coverage: Math.round(((content.length - uncovered.length) / content.length) * 1000) / 1000, uncovered };
}
