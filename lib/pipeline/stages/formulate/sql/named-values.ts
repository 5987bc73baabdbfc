import { constructsOf } from "../../understand/constructs";
import { type EntityMention, type Intent, sentenceStartsOf } from "../../../contracts";
import { MIN_LINK_SCORE } from "../entities";

/**
 * The values a question names (a quoted phrase, a capitalised name, a number-bearing code) that a query
 * on one source must filter on or admit it could not. Shared by the filter picks, which place a value no
 * index knows into the column the question names beside it, and by the query's fit, which counts what
 * the query left out.
 */

/**
 * A mention that names a thing by its value (a quoted phrase, a capitalised name, a number-bearing code),
 * not a schema word. A capital that only opens a sentence ("Return the …") names nothing.
 */
export function isNamedValue(mention: string, quoted: boolean, startsSentence = false): boolean {
  if (quoted) return true;
  const text = startsSentence ? mention.replace(/^\p{Lu}/u, "") : mention;
  return /\p{Lu}|\d/u.test(text);
}

const SCHEMA_KINDS = new Set(["table", "column", "predicate", "class"]);
const VALUE_KINDS = new Set(["value", "label", "node"]);

export interface NamedValue {
  entity: EntityMention;
  quoted: boolean;
  /** No source's index holds it: a name the question gives that no value, label or node matches. */
  unknown: boolean;
}

/** The mention is part of a time cue ("Q4 2025", "March 2024"): the period filter reads it, not a name lookup. */
function inTimeCue(intent: Intent, mention: string): boolean {
  const m = mention.toLowerCase();
  return intent.time.some((t) => t.text.toLowerCase().includes(m));
}

/**
 * The named values of the question for the source `kbId`: each names a thing by its value, is not a word of
 * this source's schema, and is either known as a value somewhere (this source's or another's index), quoted,
 * or known nowhere at all (a name no index holds: "the Kayaks category" when no product is a kayak). A mention
 * that only names another source's schema element ("Category" of a document's table) is not a value.
 */
export function namedValues(intent: Intent, kbId: string): NamedValue[] {
  const quoted = new Set(constructsOf(intent).quoted.map((q) => q.text.toLowerCase()));
  const out: NamedValue[] = [];
  const starts = new Set(sentenceStartsOf(intent));
  for (const e of intent.entities) {
    const strong = e.links.filter((l) => l.score >= MIN_LINK_SCORE);
    if (strong.some((l) => l.kbId === kbId && SCHEMA_KINDS.has(l.kind))) continue;
    const isQuoted = quoted.has(e.mention.toLowerCase());
    const startsSentence = e.span !== null && starts.has(e.span[0]);
    if (!isNamedValue(e.mention, isQuoted, startsSentence)) continue;
    const valueSomewhere = strong.some((l) => VALUE_KINDS.has(l.kind));
    const unknown = strong.length === 0;
    // A bare number is a count, a limit or a comparison's operand, which their own cues read.
    if (unknown && !isQuoted && (/^[\d.,\s%]+$/.test(e.mention) || inTimeCue(intent, e.mention))) continue;
    if (!valueSomewhere && !isQuoted && !unknown) continue;
    out.push({ entity: e, quoted: isQuoted, unknown });
  }
  return out;
}
