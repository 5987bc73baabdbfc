import { z } from "zod";
import { CURRENCY_CODE_PATTERN, CURRENCY_WORD_PATTERN } from "./currencies";
import data from "./field-types.json";

/**
 * What a field's name says its values are (lib/data/field-types.json): one list per kind of value,
 * shared by the answer stage's value types and the answer-type scorer, which each kept their own and
 * disagreed (one read "hq" and "warehouse" as places, the other not; one read "time" as a date).
 */
export const FIELD_KINDS = ["date", "percent", "money", "location", "person", "organisation"] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];

const words = z.array(z.string().regex(/^[a-z][a-z ]*$/)).min(1);
const lexicon = z.object({ date: words, percent: words, money: words, location: words, person: words, organisation: words }).parse(data);

const alternation = (items: string[]) => [...new Set(items)].sort((a, b) => b.length - a.length || a.localeCompare(b)).join("|");

/** Whole-word pattern of a kind's words on a normalized (lower-case) name; money also knows currency codes and words ("price_eur"). */
export function fieldWords(kind: FieldKind): RegExp {
  const extra = kind === "money" ? `|${CURRENCY_CODE_PATTERN.toLowerCase()}|${CURRENCY_WORD_PATTERN}` : "";
  return new RegExp(`\\b(?:${alternation(lexicon[kind])}${extra})\\b`);
}
