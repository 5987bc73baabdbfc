import { terms } from "../../../text";
import { singularIrregulars } from "../lexicon";

/**
 * Cues SQL formulation reads from the question's wording besides the intent: where words are (to tie
 * an aggregate, a comparison or a time cue to the nearest column), numeric comparisons ("capacity
 * between 5000 and 10000", "older than 30", "above the average").
 */

export interface PositionedTerm {
  term: string;
  /** Character offset of the word. */
  at: number;
}

/** Every word of the question with its stemmed term ("" for stopwords) and offset. */
export function positionedTerms(question: string): PositionedTerm[] {
  const out: PositionedTerm[] = [];
  for (const m of question.matchAll(/[\p{L}\p{N}_]+/gu)) {
    const irregular = singularIrregulars(m[0]);
    if (irregular !== m[0]) {
      out.push({ term: terms(irregular)[0] ?? "", at: m.index });
      continue;
    }
    // A quoted schema identifier ("unitsInStock") is several words, each at its own offset.
    const parts = [
      ...m[0]
        .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
        .replace(/_/g, " ")
        .matchAll(/\S+/g),
    ];
    if (parts.length <= 1) {
      const [term = ""] = terms(m[0].replace(/_/g, " "));
      out.push({ term, at: m.index });
      continue;
    }
    let offset = 0;
    for (const part of parts) {
      const [term = ""] = terms(part[0]);
      out.push({ term, at: m.index + offset });
      offset += part[0].length;
    }
  }
  return out;
}

/**
 * Distance in words from the character offset `at` to the nearest occurrence of any of `wanted`,
 * looking `before` words back and `after` words ahead; Infinity when none is that close.
 */
export function wordDistance(words: PositionedTerm[], at: number, wanted: string[], before = 4, after = 4): number {
  const set = new Set(wanted);
  let index = words.findIndex((w) => w.at >= at);
  if (index < 0) index = words.length;
  let bestDistance = Infinity;
  for (let i = Math.max(0, index - before); i < Math.min(words.length, index + after + 1); i++) {
    if (set.has(words[i].term)) bestDistance = Math.min(bestDistance, Math.abs(i - index));
  }
  return bestDistance;
}

// ---------------------------------------------------------------------------------------------
// Numeric comparisons are read once, by understand (understand/comparisons.ts), into the Intent's constructs.

export type { ComparisonOp } from "../../../contracts";

// ---------------------------------------------------------------------------------------------
// Quoted phrases and what the answers lack are read once, by understand (understand/quoted.ts,
// understand/absence.ts), into the Intent's constructs.
