import type { ComparisonOp, Constructs, EntityMention, TimeCue } from "../../contracts";

/**
 * The question's numeric comparisons, read once from its wording into the Intent's constructs
 * (constructs.comparisons): "capacity between 5000 and 10000", "older than 30", "above the average",
 * "with 4 cylinders". Formulation ties each to a column (formulate/sql/filter-picks.ts); numbers that
 * the intent reads as time (years in time cues) or as part of an entity are left to those.
 */

type NumericComparison = Constructs["comparisons"][number];

/**
 * A number as questions write it: "$25", "€1,500.50", "25" (the currency sign and thousands separators
 * are how amounts are written, not part of the value: "a freight charge over $25" compares with 25).
 */
const NUMBER = String.raw`[$€£¥]?\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)`;

/** The value of a NUMBER capture: "1,500.50" → 1500.5. */
function numberValue(text: string): number {
  return Number(text.replace(/,/g, ""));
}
const GAP = String.raw`((?:[\p{L}_]+\s+){0,2}?)`;
const GREATER = String.raw`more\s+than|greater\s+than|larger\s+than|bigger\s+than|higher\s+than|over|above|exceeding|(?:[\p{L}]+er)\s+than`;
const LESS = String.raw`less\s+than|fewer\s+than|smaller\s+than|lower\s+than|under|below`;

const PATTERNS: { re: RegExp; op: ComparisonOp }[] = [
  { re: new RegExp(String.raw`\bbetween\s+${NUMBER}\s+and\s+${NUMBER}`, "giu"), op: "between" },
  {
    re: new RegExp(String.raw`\b(?:at\s+least|no\s+(?:less|fewer)\s+than|not\s+(?:less|fewer)\s+than)\s+${GAP}${NUMBER}`, "giu"),
    op: ">=",
  },
  { re: new RegExp(String.raw`\b(?:at\s+most|no\s+more\s+than|not\s+more\s+than|up\s+to)\s+${GAP}${NUMBER}`, "giu"), op: "<=" },
  { re: new RegExp(String.raw`\b(?:${LESS})\s+${GAP}${NUMBER}`, "giu"), op: "<" },
  { re: new RegExp(String.raw`\b(${GREATER})\s+${GAP}${NUMBER}`, "giu"), op: ">" },
];

/** Comparative adjectives that mean "less" ("younger than 30", "cheaper than 100"). */
const LESS_ADJECTIVES = /^(?:young|cheap|small|light|short|low|slow|early|few|less)/i;

function yearLike(n: number, text: string): boolean {
  return Number.isInteger(n) && n >= 1000 && n <= 2999 && /^\d{4}$/.test(text);
}

/**
 * "zero units on order", "a unitsOnOrder of zero": the word is the number 0. Written as the digit padded
 * to the word's length, so positions in the question still hold. Other number words stay words: "one"
 * is as often a pronoun ("the one with …") as a count.
 */
function zeroAsDigit(question: string): string {
  return question.replace(/\bzero\b/gi, "0   ");
}

/**
 * The numeric comparisons of the question. Numbers the intent already reads as time (years in time
 * cues) or as part of an entity are left to those.
 */
export function numericComparisons(intent: {
  completed: string;
  time: readonly Pick<TimeCue, "text">[];
  entities: readonly Pick<EntityMention, "mention">[];
}): NumericComparison[] {
  const question = zeroAsDigit(intent.completed);
  const taken = new Set(
    [...intent.time.map((t) => t.text), ...intent.entities.map((e) => e.mention)].flatMap((t) => t.match(/\d+(?:\.\d+)?/g) ?? []),
  );
  const out: NumericComparison[] = [];
  const covered: [number, number][] = [];
  for (const { re, op } of PATTERNS) {
    for (const m of question.matchAll(re)) {
      const start = m.index;
      const end = start + m[0].length;
      if (covered.some(([a, b]) => start < b && end > a)) continue;
      if (op === "between") {
        const values = [numberValue(m[1]), numberValue(m[2])];
        out.push({ op, values, withAverage: false, at: start, attribute: "", text: m[0] });
      } else {
        const groups = m.slice(1).filter((g) => g !== undefined);
        const numberText = groups[groups.length - 1];
        const gap = (groups[groups.length - 2] ?? "").trim();
        const comparator = op === ">" ? groups[0] : "";
        if (taken.has(numberText) && yearLike(numberValue(numberText), numberText)) continue;
        const adjective = /^([\p{L}]+er)\s+than$/iu.exec(comparator ?? "")?.[1] ?? "";
        // "other than 5", "rather than 5" compare nothing.
        if (/^(?:other|rather)$/i.test(adjective)) continue;
        const realOp: ComparisonOp = op === ">" && adjective && LESS_ADJECTIVES.test(adjective) ? "<" : op;
        out.push({
          op: realOp,
          values: [numberValue(numberText)],
          withAverage: false,
          at: start,
          attribute: [adjective, gap].filter(Boolean).join(" "),
          text: m[0],
        });
      }
      covered.push([start, end]);
    }
  }
  const average =
    /\b(?:(more|greater|larger|bigger|higher|[\p{L}]+er)\s+than|above|over|(less|fewer|smaller|lower)\s+than|below|under)\s+(?:the\s+)?(?:average|mean)(?:\s+([\p{L}_]+))?/giu;
  for (const m of question.matchAll(average)) {
    const lessWord = m[2] !== undefined || /\b(?:below|under)\b/i.test(m[0]);
    const adjective = m[1] && !/^(?:more|greater|larger|bigger|higher)$/i.test(m[1]) ? m[1] : "";
    const less = lessWord || (adjective !== "" && LESS_ADJECTIVES.test(adjective));
    out.push({
      op: less ? "<" : ">",
      values: [],
      withAverage: true,
      at: m.index,
      attribute: [adjective, m[3] ?? ""].filter(Boolean).join(" "),
      text: m[0],
    });
  }
  // "with 4 cylinders": a count followed by what it counts; "grade 9 or 10": a column word and its values.
  // Both are equalities, kept only when the word names a numeric column (checked by the caller).
  const equalities: [RegExp, (m: RegExpMatchArray) => { values: number[]; attribute: string }][] = [
    // "with 0 units on order": the words after "on"/"in" tell apart units on order from units in stock.
    // "an age of 20 and …" counts nothing: a conjunction is not what a number counts.
    // "with '0' units on order": a quoted count is still a count.
    [
      /\b(?:with|has|have|having|of)\s+(?:exactly\s+)?['"‘“]?(\d+)['"’”]?\s+(?!(?:and|or|but)\b)([\p{L}_]+(?:\s+(?:on|in)\s+[\p{L}_]+)?)/giu,
      (m) => ({ values: [Number(m[1])], attribute: m[2] }),
    ],
    // "a reorder level of 10", "an age of 20", "reorder levels set at 30", "a 'unitsInStock' of exactly 50":
    // the attribute (quoted or not), then its value.
    [
      /\b([\p{L}_]+(?:\s+[\p{L}_]+)?)['"’”]?\s+(?:of|equal\s+to|set\s+(?:at|to))\s+(?:exactly\s+)?(\d+(?:\.\d+)?)\b(?!\s*(?:%|percent|or\s+(?:more|less|fewer|greater|higher|lower|above|below)))/giu,
      (m) => ({ values: [Number(m[2])], attribute: m[1] }),
    ],
    [
      /\b([\p{L}_]+)\s+(\d+(?:\.\d+)?)(?:\s+or\s+(\d+(?:\.\d+)?))?\b/giu,
      (m) => ({ values: [Number(m[2]), ...(m[3] ? [Number(m[3])] : [])], attribute: m[1] }),
    ],
  ];
  for (const [re, read] of equalities) {
    for (const m of question.matchAll(re)) {
      const start = m.index ?? 0;
      const end = start + m[0].length;
      const numbers = m[0].match(/\d+(?:\.\d+)?/g) ?? [];
      if (covered.some(([a, b]) => start < b && end > a) || numbers.some((n) => taken.has(n))) continue;
      covered.push([start, end]);
      out.push({ op: "=", withAverage: false, at: start, text: m[0], ...read(m) });
    }
  }
  // The question's own words in each comparison's text: "of zero", not "of 0" (a match ends after the digit, inside the word).
  const wordEnd = (end: number) => end + (/^\p{L}*/u.exec(intent.completed.slice(end))?.[0].length ?? 0);
  return out.map((c) => ({ ...c, text: intent.completed.slice(c.at, wordEnd(c.at + c.text.length)) })).sort((a, b) => a.at - b.at);
}
