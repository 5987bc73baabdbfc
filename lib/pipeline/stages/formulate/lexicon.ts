import { identifierWords } from "../../../backends/sql/values";
import type { Intent } from "../../contracts";
import { terms, words } from "../../text";
import { ORDER_BY } from "../understand/order-words";
import { constructsOf } from "../understand/constructs";

/**
 * The words of schema-linking: identifiers and phrases as stemmed term sets (through the pipeline's
 * one tokenizer, so "Singer_ID", "singers" and "singer" meet), and the few English cue words that
 * formulation reads directly from the question (aggregates, grouping, superlative adjectives).
 */

/** Stemmed content terms of an identifier: "list_price" → [list, price], "songReleaseYear" → [song, releas, year]. */
export function identifierTerms(name: string): string[] {
  return terms(identifierWords(name));
}

/** The share of `name` terms found in `bag` (0..1): how completely the question names this identifier. */
export function coverage(nameTerms: string[], bag: ReadonlySet<string>): number {
  if (nameTerms.length === 0) return 0;
  return nameTerms.filter((t) => bag.has(t)).length / nameTerms.length;
}

/** Dice coefficient of two term lists as sets (0..1). */
export function dice(a: string[], b: string[]): number {
  const A = new Set(a);
  const B = new Set(b);
  if (A.size === 0 || B.size === 0) return 0;
  let shared = 0;
  for (const t of A) if (B.has(t)) shared++;
  return (2 * shared) / (A.size + B.size);
}

/** English plurals the stemmer cannot fold to their singular ("people" names a Person table). */
const IRREGULAR: Record<string, string> = {
  people: "person",
  persons: "person",
  children: "child",
  men: "man",
  women: "woman",
  mice: "mouse",
  geese: "goose",
  feet: "foot",
  teeth: "tooth",
  data: "datum",
  criteria: "criterion",
  analyses: "analysis",
};
const IRREGULAR_RE = new RegExp(`\\b(${Object.keys(IRREGULAR).join("|")})\\b`, "gi");

/** Irregular plurals replaced by their singular, so they meet schema names through the stemmer. */
export function singularIrregulars(text: string): string {
  return text.replace(IRREGULAR_RE, (w) => IRREGULAR[w.toLowerCase()] ?? w);
}

/**
 * Identifiers a question quotes from the schema ("unitsInStock", "order_date") as words: "units In
 * Stock", "order date". Ordinary words are left as they are.
 */
export function splitIdentifiers(text: string): string {
  return text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Za-z])_([A-Za-z])/g, "$1 $2");
}

/** Stemmed terms of question text, with schema identifiers it quotes split into their words. */
export function textTerms(text: string): string[] {
  return terms(splitIdentifiers(singularIrregulars(text)));
}

/** Every stemmed term the question offers for linking: the completed question, relation and keywords. */
export function questionTerms(intent: Intent): Set<string> {
  return new Set([...textTerms(intent.completed), ...textTerms(intent.relation ?? ""), ...textTerms(intent.keywords.join(" "))]);
}

const WH_LEAD = /^(?:how\s+many|how\s+much|which|what|who|whom|whose|where|when|list|show|name|find|give|count|return)\b/i;
const FILLER = new Set([
  "is",
  "are",
  "was",
  "were",
  "do",
  "does",
  "did",
  "the",
  "a",
  "an",
  "of",
  "all",
  "me",
  "us",
  "number",
  "kind",
  "type",
  "different",
  "distinct",
]);

/**
 * The terms of the question's focus: the noun the wh-phrase asks about ("How many singers…" → singer,
 * "Which product has…" → product). Source of the answer table when several tables match.
 */
export function focusTerms(intent: Intent): string[] {
  const question = intent.completed.trim();
  const lead = WH_LEAD.exec(question);
  if (!lead) return [];
  const rest = words(singularIrregulars(question.slice(lead[0].length))).filter((w) => !FILLER.has(w));
  return terms(rest.slice(0, 2).join(" ")).slice(0, 2);
}

// ---------------------------------------------------------------------------------------------
// Aggregates

export type AggregateFn = "count" | "sum" | "avg" | "min" | "max";

/** Aggregate words besides the intent's one: Spider-style questions ask for several at once ("average, minimum and maximum age"). */
const AGGREGATE_WORDS: [RegExp, AggregateFn][] = [
  [/\b(?:average|mean|avg)\b/gi, "avg"],
  [/\b(?:minimum|min)\b/gi, "min"],
  [/\b(?:maximum|max)\b/gi, "max"],
  [/\b(?:total|sum)\b/gi, "sum"],
  [/\bhow\s+many\b|\bnumber\s+of\b|\bcount\b/gi, "count"],
];

/**
 * Aggregate words that are not results: a comparison with the average ("older than average"), a
 * superlative over a count ("the greatest number of friends"), the key of a sort ("sorted by the
 * number of years").
 */
const NOT_AGGREGATES = [
  /\b(?:than|above|below|over|under)\s+(?:the\s+)?(?:average|mean)\b/gi,
  /\b(?:greatest|largest|highest|biggest|smallest|lowest|most|fewest|least)\s+(?:total\s+)?number\s+of\b/gi,
];

export interface AggregateRequest {
  fn: AggregateFn;
  /** Character offset of the aggregate word in the question, or -1 when only the intent says so. */
  at: number;
}

/** Character ranges of `phrase` (case-insensitive) in `text`. */
function rangesOf(text: string, phrase: string): [number, number][] {
  const out: [number, number][] = [];
  if (!phrase.trim()) return out;
  const lower = text.toLowerCase();
  const p = phrase.toLowerCase();
  for (let at = lower.indexOf(p); at >= 0; at = lower.indexOf(p, at + 1)) out.push([at, at + p.length]);
  return out;
}

/**
 * The aggregates asked for, in question order, the intent's own included. Aggregate words inside the
 * superlative's attribute ("the highest average attendance") or in a comparison with the average
 * ("older than average") name an attribute or a filter, not a result.
 */
export function aggregateRequests(intent: Intent): AggregateRequest[] {
  const question = intent.completed;
  const excluded = [
    ...rangesOf(question, intent.superlative?.attribute ?? ""),
    ...NOT_AGGREGATES.flatMap((re) => [...question.matchAll(re)].map((m): [number, number] => [m.index, m.index + m[0].length])),
    ...[ORDER_BY.exec(question)].flatMap((m): [number, number][] => (m ? [[m.index, m.index + m[0].length]] : [])),
  ];
  const found: AggregateRequest[] = [];
  const dropped = new Set<AggregateFn>();
  for (const [re, fn] of AGGREGATE_WORDS) {
    for (const m of question.matchAll(re)) {
      if (excluded.some(([a, b]) => m.index >= a && m.index < b)) dropped.add(fn);
      else found.push({ fn, at: m.index });
    }
  }
  found.sort((a, b) => a.at - b.at);
  const out: AggregateRequest[] = [];
  const seen = new Set<AggregateFn>();
  const own = intent.aggregate;
  // The intent's aggregate stands unless its only wording in the question was one of the excluded uses.
  if (own && !(dropped.has(own) && !found.some((f) => f.fn === own))) {
    out.push(found.find((f) => f.fn === own) ?? { fn: own, at: -1 });
    seen.add(own);
  }
  for (const f of found) {
    if (seen.has(f.fn)) continue;
    seen.add(f.fn);
    out.push(f);
  }
  return out;
}

/** The aggregate functions asked for (see aggregateRequests). */
export function requestedAggregates(intent: Intent): AggregateFn[] {
  return aggregateRequests(intent).map((a) => a.fn);
}

// ---------------------------------------------------------------------------------------------
// Grouping: "for each country", "per region", "by category"

/**
 * The terms of what the question groups by, or null (understand/constructs.ts reads the phrase). "by X"
 * only counts next to an aggregate and as the question's last phrase after a noun ("total sales by
 * region"), so "orders placed by customers in Germany" or "ordered by age" do not group.
 */
export function groupingTerms(intent: Intent, hasAggregate: boolean): string[] | null {
  const g = constructsOf(intent).grouping;
  if (!g || (g.kind === "by" && !hasAggregate)) return null;
  return terms(g.text);
}

// ---------------------------------------------------------------------------------------------
// Superlatives: adjectives name a measurable attribute ("most expensive" → price)

interface AttributeSense {
  /** Stemmed terms of attribute names that measure the adjective. */
  measures: string[];
  /** Attributes whose larger value means less of the adjective (older = earlier birth date). */
  inverted: string[];
  /** +1: the adjective grows with the measure (expensive, old); -1: it shrinks (cheap, young). */
  polarity: 1 | -1;
}

const PRICE = "price cost amount fee charge value";
const AGE_INVERTED = "birth born dob date year founded established created released built";
const SIZE = "capacity size area population count amount number total";
const RECENCY = "date year time created release founded";
const WEIGHT = "weight mass grams kg";

/** Attribute words through the one tokenizer, so they meet column names the same way ("age" → "ag"). */
function sense(measures: string, polarity: 1 | -1, inverted = ""): AttributeSense {
  return { measures: terms(measures), inverted: terms(inverted), polarity };
}

/**
 * General English adjectives of degree and the attribute names they measure. Not tied to any one
 * schema: a column or property whose name holds one of the measure terms is the attribute.
 */
const ADJECTIVE_SENSES: Record<string, AttributeSense> = {
  expensive: sense(PRICE, 1),
  costly: sense(PRICE, 1),
  cheap: sense(PRICE, -1),
  old: sense("age", 1, AGE_INVERTED),
  elder: sense("age", 1, AGE_INVERTED),
  young: sense("age", -1, AGE_INVERTED),
  new: sense(RECENCY, 1),
  recent: sense(RECENCY, 1),
  late: sense(RECENCY, 1),
  early: sense(RECENCY, -1),
  large: sense(SIZE, 1),
  big: sense(SIZE, 1),
  great: sense(SIZE, 1),
  small: sense(SIZE, -1),
  heavy: sense(WEIGHT, 1),
  light: sense(WEIGHT, -1),
  long: sense("length duration distance time", 1),
  short: sense("length duration distance height", -1),
  tall: sense("height", 1),
  high: sense("height elevation price rate score salary", 1),
  low: sense("price rate score salary height", -1),
  fast: sense("speed", 1, "time duration"),
  slow: sense("speed", -1, "time duration"),
  rich: sense("wealth money net worth revenue income", 1),
  popular: sense("popularity votes rating views sales", 1),
  busy: sense("passengers traffic count", 1),
};

/** The base adjective of a degree form: "oldest" → old, "heaviest" → heavy, "biggest" → big, "larger" → large. */
function senseOf(word: string): AttributeSense | null {
  const w = word.toLowerCase();
  const bases = [
    w,
    w.replace(/e?st$/, ""),
    w.replace(/e?r$/, ""),
    w.replace(/iest$/, "y"),
    w.replace(/ier$/, "y"),
    w.replace(/(.)\1est$/, "$1"),
    w.replace(/(.)\1er$/, "$1"),
  ];
  const withE = bases.map((b) => `${b}e`);
  for (const b of [...bases, ...withE]) if (ADJECTIVE_SENSES[b]) return ADJECTIVE_SENSES[b];
  return null;
}

export interface AttributeChoice<T> {
  item: T;
  /** The superlative's direction after inversion: "max" means ORDER BY … DESC. */
  direction: "max" | "min";
  /** How the attribute was found, for explanations. */
  reason: string;
  /** The attribute measures the adjective inversely: "old" by a birth date or year (earlier = older). */
  inverted?: boolean;
}

/** Whether a word is a degree adjective of the lexicon ("expensive", "older", "biggest"). */
export function adjectiveSense(word: string): boolean {
  return senseOf(word) !== null;
}

/** Content terms of the few words after `phrase` in the question ("the smallest weight of…" → weight). */
export function termsAfter(question: string, phrase: string, count = 3): string[] {
  if (!phrase) return [];
  const qs = words(question);
  const ps = words(phrase);
  if (ps.length === 0) return [];
  for (let i = 0; i + ps.length <= qs.length; i++) {
    if (ps.every((p, j) => qs[i + j] === p)) return terms(qs.slice(i + ps.length, i + ps.length + count).join(" "));
  }
  return [];
}

/**
 * Picks the measurable attribute a superlative is about among `candidates` (numeric or date columns,
 * properties, predicates): by the attribute's own words ("highest list price" → list_price), by the
 * words right after the adjective in the question ("the smallest weight"), by the adjective's sense
 * ("most expensive" → price, "oldest" → age, or birth date ascending), then by the question's other
 * words. An adjective decides the direction itself ("youngest" is the smallest age however the intent
 * wrote it, "least expensive" the smallest price); named attributes keep the intent's direction.
 */
export function chooseSuperlativeAttribute<T>(
  superlative: NonNullable<Intent["superlative"]>,
  candidates: { item: T; terms: string[] }[],
  questionBag: ReadonlySet<string>,
  question: string,
): AttributeChoice<T> | null {
  if (candidates.length === 0) return null;
  const attribute = superlative.attribute ?? "";
  const attributeTerms = new Set(terms(attribute));
  const best = (score: (c: { item: T; terms: string[] }) => number) => {
    let top: { item: T; terms: string[] } | null = null;
    let topScore = 0;
    for (const c of candidates) {
      const s = score(c);
      if (s > topScore) {
        top = c;
        topScore = s;
      }
    }
    return top;
  };
  // Words right after the attribute break ties between columns it names alike ("highest units in stock": units_in_stock over unit_price).
  const following = new Set(words(attribute).length > 0 ? termsAfter(question, words(attribute).slice(-1)[0], 3) : []);
  // Then the column the whole question names more of ("sold the most units": units sold over unit price).
  const named = best((c) => {
    const named = coverage(c.terms, attributeTerms);
    return named > 0
      ? named +
          0.01 * c.terms.filter((t) => attributeTerms.has(t)).length +
          0.005 * c.terms.filter((t) => following.has(t)).length +
          0.001 * coverage(c.terms, questionBag)
      : 0;
  });
  if (named) return { item: named.item, direction: superlative.direction, reason: `"${attribute}" names it` };

  for (const adjective of words(attribute)) {
    const sense = senseOf(adjective);
    const least = new RegExp(`\\b(?:least|less)\\s+${adjective}`, "i").test(question);
    const grows = sense ? sense.polarity > 0 !== least : superlative.direction === "max";
    const following = new Set(termsAfter(question, adjective));
    const after = best((c) => coverage(c.terms, following));
    if (after) return { item: after.item, direction: grows ? "max" : "min", reason: `the words after "${adjective}" name it` };
    if (!sense) continue;
    const direct = best((c) => (c.terms.some((t) => sense.measures.includes(t)) ? 1 + coverage(c.terms, questionBag) : 0));
    if (direct) return { item: direct.item, direction: grows ? "max" : "min", reason: `"${adjective}" is measured by it` };
    const inverted = best((c) => (c.terms.some((t) => sense.inverted.includes(t)) ? 1 + coverage(c.terms, questionBag) : 0));
    if (inverted)
      return {
        item: inverted.item,
        direction: grows ? "min" : "max",
        reason: `"${adjective}" is measured by it, inversely`,
        inverted: true,
      };
  }
  const mentioned = best((c) => coverage(c.terms, questionBag));
  if (mentioned) return { item: mentioned.item, direction: superlative.direction, reason: "the question names it" };
  return null;
}
