import type { Intent } from "../../contracts";
import { DETERMINERS, PREPOSITIONS, parseSmallNumber, singular } from "./lexicon";
import type { Token } from "./tokens";

export type Aggregate = NonNullable<Intent["aggregate"]>;
export type Superlative = NonNullable<Intent["superlative"]>;

export interface AggregateAnalysis {
  aggregate: Aggregate | null;
  superlative: Superlative | null;
  /** Tokens that only express the aggregation ("how many", "total", "most", "top 3"). */
  consumed: Set<number>;
}

const MAX_WORDS = new Set([
  "most",
  "highest",
  "largest",
  "biggest",
  "greatest",
  "top",
  "best",
  "maximum",
  "max",
  "heaviest",
  "longest",
  "oldest",
  "tallest",
  "richest",
  "fastest",
  "deepest",
  "widest",
  "furthest",
  "farthest",
  "strongest",
  "busiest",
  "hottest",
  "warmest",
  "costliest",
  "priciest",
]);
const MIN_WORDS = new Set([
  "least",
  "lowest",
  "smallest",
  "fewest",
  "cheapest",
  "minimum",
  "min",
  "bottom",
  "youngest",
  "shortest",
  "lightest",
  "slowest",
  "worst",
  "poorest",
  "weakest",
  "shallowest",
  "thinnest",
  "narrowest",
  "closest",
  "nearest",
  "coldest",
  "coolest",
]);
/** Superlatives that name the measured attribute themselves ("cheapest" → price). */
const MEASURED: Record<string, string> = {
  expensive: "price",
  cheap: "price",
  cheapest: "price",
  costliest: "price",
  priciest: "price",
  old: "age",
  oldest: "age",
  young: "age",
  youngest: "age",
  heavy: "weight",
  heaviest: "weight",
  light: "weight",
  lightest: "weight",
  large: "size",
  largest: "size",
  big: "size",
  biggest: "size",
  small: "size",
  smallest: "size",
  long: "length",
  longest: "length",
  short: "length",
  shortest: "length",
  tall: "height",
  tallest: "height",
  fast: "speed",
  fastest: "speed",
  slow: "speed",
  slowest: "speed",
  popular: "popularity",
  populous: "population",
  rich: "wealth",
  richest: "wealth",
  deep: "depth",
  deepest: "depth",
  wide: "width",
  widest: "width",
  hot: "temperature",
  hottest: "temperature",
  cold: "temperature",
  coldest: "temperature",
  warm: "temperature",
  warmest: "temperature",
};
/** Quantifier superlatives whose attribute is the noun after them ("highest revenue", "most orders"). */
const QUANTIFIERS = new Set([
  "most",
  "least",
  "highest",
  "lowest",
  "greatest",
  "fewest",
  "top",
  "bottom",
  "maximum",
  "minimum",
  "max",
  "min",
  "best",
  "worst",
]);
/** Time superlatives are ordinals ("the latest order" → the last one), handled with the time cues. */
const ORDINAL_SUPERLATIVES = new Set(["latest", "earliest", "newest", "last", "first"]);
/** Words before the number of rows asked for: "which 5 products", "the first 3 categories with the most …". */
const REQUEST_WORDS = new Set(["which", "what", "the", "list", "show", "name", "find", "give", "return", "get", "first"]);
const AVG = new Set(["average", "mean", "avg"]);
const SUM = new Set(["total", "sum", "overall", "combined", "altogether", "cumulative", "aggregate"]);

/**
 * Aggregation and superlatives: "how many"/"number of" → count, "total"/"sum" → sum, "average" → avg,
 * "maximum"/"minimum" → max/min; "most expensive" / "top 3 customers by revenue" → a superlative with
 * direction, attribute and limit. When a question asks for the value itself ("what is the highest
 * price?") a superlative is also the aggregate max/min.
 */
export function analyzeAggregates(tokens: Token[], asksValue: boolean, whPhrase: string | null): AggregateAnalysis {
  const consumed = new Set<number>();
  const lower = tokens.map((t) => t.lower);
  let count = whPhrase === "how many";
  let avg = false;
  let sum = false;
  let explicit: "max" | "min" | null = null;

  for (let i = 0; i < lower.length; i++) {
    const w = lower[i];
    if (w === "number" && lower[i + 1] === "of") {
      count = true;
      consumed.add(i).add(i + 1);
    } else if (w === "count" && (i === 0 || lower[i + 1] === "of" || lower[i - 1] === "the")) {
      count = true;
      consumed.add(i);
    } else if (AVG.has(w) || (w === "on" && lower[i + 1] === "average")) {
      avg = true;
      consumed.add(i);
    } else if (SUM.has(w) || (w === "in" && lower[i + 1] === "total")) {
      sum = true;
      consumed.add(i);
    } else if (w === "maximum" || w === "max" || w === "minimum" || w === "min") {
      explicit ??= w.startsWith("max") ? "max" : "min";
      consumed.add(i);
    }
  }

  const superlative = findSuperlative(tokens, consumed);
  let aggregate: Aggregate | null = null;
  // "average number of" is an average; "total number of" a count; "maximum price" a max.
  if (avg) aggregate = "avg";
  else if (count) aggregate = "count";
  else if (sum) aggregate = "sum";
  else if (explicit) aggregate = explicit;
  else if (superlative && asksValue && superlative.attribute) aggregate = superlative.direction;
  return { aggregate, superlative, consumed };
}

function findSuperlative(tokens: Token[], consumed: Set<number>): Superlative | null {
  const lower = tokens.map((t) => t.lower);
  for (let i = 0; i < tokens.length; i++) {
    const w = lower[i];
    const prev = lower[i - 1];
    // "at least 3", "at most 5" are bounds, not superlatives.
    if ((w === "least" || w === "most") && prev === "at") continue;
    if (ORDINAL_SUPERLATIVES.has(w)) continue;
    const direction = MAX_WORDS.has(w)
      ? "max"
      : MIN_WORDS.has(w)
        ? "min"
        : tokens[i].tags.has("Superlative") && /est$/.test(w)
          ? "max"
          : null;
    if (!direction) continue;
    consumed.add(i);
    let limit = 1;
    // "top 3", "3 most", "the five largest"
    const after = parseSmallNumber(lower[i + 1] ?? "");
    const before = parseSmallNumber(prev ?? "");
    if (after && (w === "top" || w === "bottom")) {
      limit = after;
      consumed.add(i + 1);
    } else if (before && before < 1000) {
      limit = before;
      consumed.add(i - 1);
    }
    if (limit === 1) limit = countAsked(tokens) ?? 1;
    const attribute = attributeOf(tokens, i, consumed);
    // "the top 5 most expensive products": "top 5" counts off rows, the later superlative says by what.
    if (attribute === null && (w === "top" || w === "bottom")) {
      const later = findSuperlative(tokens.slice(i + 1), new Set());
      if (later && (later.attribute !== null || later.direction !== direction)) {
        for (let j = i + 1; j < tokens.length; j++) if (MAX_WORDS.has(lower[j]) || MIN_WORDS.has(lower[j])) consumed.add(j);
        return { direction: later.direction, attribute: later.attribute, limit: Math.max(1, limit) };
      }
    }
    return { direction, attribute, limit: Math.max(1, limit) };
  }
  return null;
}

/** "Which 5 products…", "list the 10 customers…": how many the question asks for. */
function countAsked(tokens: Token[]): number | null {
  for (let i = 1; i + 1 < tokens.length; i++) {
    const n = parseSmallNumber(tokens[i].lower);
    if (n && n <= 100 && REQUEST_WORDS.has(tokens[i - 1].lower) && tokens[i + 1].tags.has("Plural")) return n;
  }
  return null;
}

/**
 * The last token of the phrase that says what a ranking is by, after `from`: "by", "based on", "in terms
 * of", "according to" ("the top 5 suppliers based on the number of products they supply"); -1 without one.
 */
function rankingPhraseEnd(lower: string[], from: number): number {
  for (let j = from; j < lower.length; j++) {
    if (lower[j] === "by") return j;
    if (lower[j] === "based" && lower[j + 1] === "on") return j + 1;
    if (lower[j] === "according" && lower[j + 1] === "to") return j + 1;
    if (lower[j] === "in" && lower[j + 1] === "terms" && lower[j + 2] === "of") return j + 2;
  }
  return -1;
}

/** What is maximised: a measured adjective's dimension, "by X", or the noun a quantifier modifies. */
function attributeOf(tokens: Token[], i: number, consumed: Set<number>): string | null {
  const lower = tokens.map((t) => t.lower);
  const w = lower[i];
  const by = rankingPhraseEnd(lower, i + 1);
  const byNoun = by > 0 ? nextNoun(tokens, by + 1) : null;
  if (byNoun !== null) return lower.slice(byNoun.start, byNoun.end).join(" ");
  const measured = MEASURED[w] ?? ((w === "most" || w === "least") && MEASURED[lower[i + 1] ?? ""]);
  if (measured) {
    if (w === "most" || w === "least") consumed.add(i + 1);
    return measured;
  }
  const adjective = tokens[i + 1];
  if ((w === "most" || w === "least") && adjective?.tags.has("Adjective") && !adjective.tags.has("Noun")) {
    consumed.add(i + 1);
    return adjective.lower;
  }
  if (QUANTIFIERS.has(w)) {
    const noun = nextNoun(tokens, i + 1);
    if (noun) {
      // "top 3 customers" ranks customers by something unsaid; "highest revenue" ranks by revenue.
      if (w === "top" || w === "bottom") return null;
      return lower.slice(noun.start, noun.end).join(" ");
    }
    // "the most" closing a question ("who ordered the most?"): what is counted is the verb's object.
    return null;
  }
  // An unknown "-est" adjective ("busiest") is its own attribute.
  return singular(w);
}

/** The next noun phrase (skipping determiners, numbers and "number of"), as token range. */
function nextNoun(tokens: Token[], from: number): { start: number; end: number } | null {
  let j = from;
  while (
    j < tokens.length &&
    (DETERMINERS.has(tokens[j].lower) || /^\d+$/.test(tokens[j].lower) || SUM.has(tokens[j].lower) || AVG.has(tokens[j].lower))
  )
    j++;
  if (tokens[j]?.lower === "number" && tokens[j + 1]?.lower === "of") j += 2;
  const start = j;
  while (
    j < tokens.length &&
    j < start + 3 &&
    tokens[j].tags.has("Noun") &&
    !tokens[j].tags.has("Pronoun") &&
    !PREPOSITIONS.has(tokens[j].lower) &&
    /^\s+$/.test(j > start ? tokens[j].gapBefore : " ")
  )
    j++;
  return j > start ? { start, end: j } : null;
}
