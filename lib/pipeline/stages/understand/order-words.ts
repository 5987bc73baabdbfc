import type { Constructs } from "../../contracts";

/**
 * What the question says about the order of its rows, read once from its wording into the Intent's
 * constructs (constructs.order): an explicit sort and its key's words ("ordered by age", "in descending
 * order of salary"), its direction, and the ranking words that decide whether "top 5" ranks or only cuts
 * a list. Formulation reads these, never the question's text.
 */

/** "ordered by age", "sorted descending by the number of years", "in descending order of age": an explicit sort. */
export const ORDER_BY =
  /\b(?:order(?:ed)?|sort(?:ed)?|rank(?:ed)?|list(?:ed)?)\s+(?:(?:in\s+)?(?:asc|desc|increas|decreas)\w*\s+(?:order\s+)?)?by\s+(?:the\s+|their\s+|its\s+)?(?:number\s+of\s+|total\s+)?([\p{L}_]+(?:\s+[\p{L}_]+){0,2})|\border\s+of\s+(?:the\s+|their\s+|its\s+)?(?:number\s+of\s+)?([\p{L}_]+(?:\s+[\p{L}_]+){0,2})/iu;
/** "in descending order", "ordered ascending": a sort whose key the question leaves to its one attribute. */
const BARE_ORDER = /\b(?:in\s+)?(asc|desc|increas|decreas)\w*\s+order\b|\b(?:order(?:ed)?|sort(?:ed)?)\s+(asc|desc|increas|decreas)\w*/iu;
/** Highest first: "descending", "from the oldest", "decreasing". */
const DESCENDING = /\bdesc(?:ending)?\b|\bfrom\s+(?:the\s+)?(?:old|high|larg|big|most|great|long)\w*|\bdecreasing\b/i;
/** "the top 5 …": a list led by its highest values. */
const TOP = /\btop\b/i;
/** Words that rank ("most", "highest", "oldest"), beside the ones that only count off rows ("top", "first"). */
const RANKING =
  /\b(?:most|least|highest|lowest|largest|smallest|greatest|fewest|best|worst|maximum|minimum|(?!lat|earli|inter)[a-z]{2,}iest|(?!lat|earli|inter|requ|sugg)[a-z]{3,}est)\b/i;
/** "the most common nationality": a superlative over how often a value occurs. */
const FREQUENCY = /\b(?:most|least)\s+(?:common|frequent|popular|usual|often)\b|\b(?:commonest|frequentest)\b/i;
/** The fewest first: a ranking by count from the bottom. */
const FEWEST = /\b(?:fewest|least)\b/i;

export function orderWords(question: string): Constructs["order"] {
  const explicit = ORDER_BY.exec(question);
  return {
    by: explicit ? (explicit[1] ?? explicit[2] ?? "") : null,
    sorted: explicit !== null || BARE_ORDER.test(question),
    descending: DESCENDING.test(question),
    ranked: RANKING.test(question.replace(/\b(?:top|first)\b/gi, "")),
    frequency: FREQUENCY.test(question),
    top: TOP.test(question),
    fewest: FEWEST.test(question),
  };
}
