import { type Period, periodOrder, periodsIn } from "../../../tables/periods";
import { cellNumber } from "../../../tables/report-number";
import { normalizeLabel } from "../../text";
import { readsAsProse } from "../understand/answer-form";

/**
 * What a question asks of a table, read from its wording (TagOp's operator set, Zhu et al. 2021):
 * a cell, or an operation over located cells — sum, difference, average, multiplication, division,
 * change ratio, count — plus the periods it names, and a comparison ("in which year was X higher")
 * or a threshold ("less than 1,000"). The words that signalled the operation are kept: when they are
 * part of a row's own label ("Total revenue", "Average price paid per share", "Net change in cash"),
 * the question is a lookup of that row, not an operation (cell-locate.ts decides).
 */

export const OPERATIONS = ["sum", "difference", "average", "multiplication", "division", "change-ratio", "count"] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface OperationCue {
  operation: Operation;
  /** The signalling words as written ("percentage change", "total"). */
  words: string;
  start: number;
}

export interface TableQuestion {
  text: string;
  /** Normalized, space-padded, for whole-word tests. */
  padded: string;
  cue: OperationCue | null;
  /** Division read as a percentage ("what percentage of", "as a percentage of"): the ratio × 100. */
  percentResult: boolean;
  /** Periods in order of appearance; a range ("2017-2019", "from 2017 to 2019") stays one period with `to`. */
  periods: Period[];
  /** "between 2017 and 2019", "from 2017 to 2019", "2017-2019": the endpoints span the years in between. */
  spansRange: boolean;
  /** "In which year was X higher?": the answer is the column (period) with the extreme value. */
  comparison: { direction: "max" | "min"; over: "period" | "row" } | null;
  /** "less than 1,000 thousands", "more than 15,000": a filter on figures. */
  threshold: { op: "<" | ">"; value: number } | null;
  /** The question asks for a year or period ("which year", "when"). */
  asksPeriod: boolean;
  /** The question asks for an explanation, a definition or a method, not a figure: "why …", "what does X represent", "how is X determined". */
  asksForProse: boolean;
  /** A question about the table itself: which periods it covers, or which items (rows) it lists. */
  asksStructure: "periods" | "rows" | null;
}

const TABLE_WORDS =
  /\b(table|tabulated|listed|shown|presented|included|provided|reported|highlighted|disclosed|calculated|computed|given|recorded|stated)\b/i;
const STRUCTURE_PERIODS =
  /^\s*(?:in\s+|for\s+)?(?:which|what)\s+(?:(?:financial|fiscal|calendar)\s+)?(?:years?|periods?|dates)(?:'?\s*information)?\s+(?:does|do|are|is|was|were)\b|^\s*(?:what|which)\s+(?:are|were)\s+the\s+(?:\d+\s+)?(?:years|periods|dates)\b/i;
const STRUCTURE_ROWS =
  /^\s*(?:what|which)\s+(?:are\s+)?(?:the\s+)?(?:\w+\s+)?(?:items|line items|components|countries|regions|segments|types|categories|elements|classes|groups|businesses|products|geographies|markets)\b/i;

function structureOf(text: string): TableQuestion["asksStructure"] {
  if (!TABLE_WORDS.test(text)) return null;
  if (STRUCTURE_PERIODS.test(text)) return "periods";
  if (STRUCTURE_ROWS.test(text)) return "rows";
  return null;
}

interface CueRule {
  operation: Operation;
  re: RegExp;
  percent?: boolean;
}

/**
 * Checked in order; the first that matches wins. Change ratios before differences ("percentage
 * change" is not a plain change), division before sums ("percentage of total revenue" is a share).
 */
const CUE_RULES: CueRule[] = [
  {
    operation: "change-ratio",
    re: /\b(?:percent(?:age)?|%)\s*(?:change|increase|decrease|growth|decline|rise|fall|drop|difference|movement|variance|reduction)\b|\bchange\s+in\s+percent(?:age)?\b|%\s*change|\b(?:growth|change|increase|decrease|decline)\s+rate\b|\brate\s+of\s+(?:change|growth|increase|decrease|decline)\b|\bby\s+what\s+(?:percent(?:age)?|%)|\bhow\s+much\s+(?:percent|%)|\bby\s+how\s+many\s+percent\b|\bgrowth\s+in\s+percent(?:age)?\b|\bpercent(?:age)?\s+(?:of\s+)?(?:increase|decrease|change)\b/i,
  },
  {
    operation: "division",
    re: /\bratio\b|\bproportion\b|\bwhat\s+(?:is\s+|was\s+)?(?:the\s+)?(?:percent(?:age)?|%|fraction|share|portion)\s+(?:of|does|did|do|is|was)\b|\bas\s+an?\s+(?:percent(?:age)?|%|proportion|share|portion|fraction)\s+of\b|\bpercent(?:age)?\s+(?:constitution|composition|contribution)\b|\b(?:percent(?:age)?|%|proportion|share|portion)\s+of\s+(?:the\s+)?(?:total|overall|all|combined)\b|\bdivided\s+by\b|\bper\s+(?:employee|share|unit|customer|store)\b(?=.*\b(?:what|calculate)\b)|\bhow\s+many\s+times\b|\bpercentage\s+of\b|\bwhat\s+percent\b/i,
    percent: true,
  },
  { operation: "average", re: /\baverage\b|\bmean\b|\baveraged?\b/i },
  {
    operation: "difference",
    re: /\bdifference\b|\bchange\b|\bchanged\b|\bincrease\b|\bincreased\b|\bdecrease\b|\bdecreased\b|\bincrease\s*\/\s*\(?decrease\)?|\bhow\s+much\s+(?:more|less|higher|lower|larger|smaller|bigger|greater)\b|\bvariance\b|\bmovement\b|\bgrowth\b|\bgrew\b|\bgrow(?:n|s)?\b|\bdecline\b|\bdeclined\b|\bfell\b|\brose\b|\bdrop(?:ped)?\b|\bnet\s+change\b/i,
  },
  { operation: "sum", re: /\btotal\b|\bsum\b|\bcombined\b|\baltogether\b|\badd(?:ed)?\s+up\b|\baggregate\b|\bin\s+all\b/i },
  { operation: "multiplication", re: /\bmultipl(?:y|ied|ication)\b|\btimes\b(?!\s+(?:as|more|less|higher|larger))/i },
  {
    operation: "count",
    re: /^\s*how\s+many\b(?!\s+(?:percent|%|times|(?:thousand|million|billion)s?\b|(?:dollars?|euros?|pounds?|shares?)\s+(?:did|was|were|is|are|does|do)\b))/i,
  },
];

function operationCue(text: string): { cue: OperationCue | null; percent: boolean } {
  for (const rule of CUE_RULES) {
    const m = rule.re.exec(text);
    if (!m) continue;
    const percent = rule.operation === "division" ? /percent|%/i.test(m[0]) || /\bpercent(age)?\b|%/i.test(text) : false;
    return { cue: { operation: rule.operation, words: m[0], start: m.index }, percent };
  }
  return { cue: null, percent: false };
}

const HIGHER = /\b(higher|highest|larger|largest|greater|greatest|more|most|bigger|biggest|maximum|max|peak|better|best)\b/i;
const LOWER = /\b(lower|lowest|smaller|smallest|less|least|fewer|fewest|minimum|min|worse|worst)\b/i;

function comparisonOf(text: string): TableQuestion["comparison"] {
  const asksPeriod =
    /\b(which|what)\s+(year|period|quarter|fiscal\s+year|month)\b|\bin\s+which\s+(year|period)\b|\bwhen\s+(was|were|did)\b/i.test(text);
  const asksRow = /^\s*(which|what)\b(?!\s+(year|period|quarter|fiscal\s+year|month|is|was|are|were)\b)/i.test(text);
  const h = HIGHER.exec(text);
  const l = LOWER.exec(text);
  if (!h && !l) return null;
  const direction = h && (!l || h.index < l.index) ? "max" : "min";
  if (asksPeriod) return { direction, over: "period" };
  if (asksRow) return { direction, over: "row" };
  return null;
}

function thresholdOf(text: string): TableQuestion["threshold"] {
  const m =
    /\b(less|lower|fewer|smaller|below|under|more|greater|higher|larger|above|over|exceed(?:ed|s)?)\b(?:\s+than)?\s+(\$?\s?[\d,]*\.?\d+(?:\s*%)?)(?:\s*(thousands?|millions?|billions?|k|m|bn))?/i.exec(
      text,
    );
  if (!m) return null;
  const n = cellNumber(m[2].trim());
  if (!n) return null;
  // The figure as written: a scale word after it ("$5 million") is reconciled with the table's own scale where it is compared.
  return { op: /less|lower|fewer|smaller|below|under/i.test(m[1]) ? "<" : ">", value: n.value };
}

export function readTableQuestion(question: string): TableQuestion {
  const text = question.replace(/\s+/g, " ").trim();
  const { cue, percent } = operationCue(text);
  const periods = periodsIn(text);
  const spansRange =
    periods.some((p) => p.to !== null) ||
    /\bbetween\s+(?:fiscal\s+|fy\s*)?(?:19|20)\d\d\s+and\s+(?:fiscal\s+|fy\s*)?(?:19|20)\d\d\b|\b(?:19|20)\d\d\s+(?:to|through|until)\s+(?:fiscal\s+|fy\s*)?(?:19|20)\d\d\b|\bover\s+the\s+(?:\w+\s+)?(?:year|period)s?\b|\bacross\b|\bfor\s+all\s+(?:the\s+)?years\b|\b(?:three|3|two|2|four|4|five|5)[\s-]+years?\b/i.test(
      text,
    );
  const comparison = comparisonOf(text);
  const threshold = thresholdOf(text);
  return {
    text,
    padded: ` ${normalizeLabel(text)} `,
    cue,
    percentResult: percent,
    periods,
    spansRange,
    comparison,
    threshold,
    asksPeriod: /\b(which|what)\s+(year|years|period|quarter|fiscal\s+year)\b|\bin\s+which\s+(year|period)\b/i.test(text),
    asksForProse: readsAsProse(text),
    // "In which year was X, as presented, less than 150 million?" asks which period qualifies, not which periods the table has.
    asksStructure: comparison || threshold ? null : structureOf(text),
  };
}

/** The question's periods, oldest first, ranges kept whole. */
export function periodsOldestFirst(q: TableQuestion): Period[] {
  return [...q.periods].sort((a, b) => periodOrder(a) - periodOrder(b));
}

/** The question's periods with each range as its two ends ("2018 to 2019" → 2018, 2019), oldest first: the operands of a change. */
export function periodEnds(q: TableQuestion): Period[] {
  return periodsOldestFirst(q).flatMap((p) =>
    p.to === null
      ? [p]
      : [
          { ...p, to: null, text: String(p.year) },
          { ...p, year: p.to, to: null, month: null, day: null, quarter: null, text: String(p.to) },
        ],
  );
}

/**
 * Words that end a coordinated item when read outwards from its "and": the question's verb and
 * article, "respective(ly)", and the prepositions that attach a period or a context ("sales and
 * purchases for 2018", "the balances of Application Software and Process Technologies on …").
 */
const CONJUNCT_BOUNDARY = new Set(
  "what which who how is are was were the a an respective respectively of for in at as on during that did does do has have had company's group's its their our".split(
    " ",
  ),
);

/** At most this many words on either side of "and" make one item: a longer run is a clause, not a label. */
const MAX_CONJUNCT_WORDS = 5;

/**
 * The two items a question coordinates ("the respective sales and purchases for 2018" → "sales",
 * "purchases"; "the values … less than one year and between 2-5 years" → "less than one year",
 * "between 2-5 years"), read outwards from each "and" up to a boundary word or punctuation. Pairs of
 * bare periods ("2019 and 2018") are the period reading's job and are left out.
 */
export function coordinatedItems(question: string): [string, string][] {
  const tokens = question.replace(/\s+/g, " ").trim().split(" ");
  const out: [string, string][] = [];
  const bare = (w: string) => w.replace(/^[("“'‘]+|[)"”'’?.!:;]+$/g, "");
  const isPeriodOnly = (words: string[]) => words.every((w) => /^(?:fy|fiscal|year|years)?['’]?\d{2,4}$/i.test(w));
  tokens.forEach((token, i) => {
    if (token.toLowerCase() !== "and") return;
    const left: string[] = [];
    for (let j = i - 1; j >= 0 && left.length < MAX_CONJUNCT_WORDS; j--) {
      const raw = tokens[j];
      if (/[,;:?]$/.test(raw)) break;
      const w = bare(raw);
      if (!w || CONJUNCT_BOUNDARY.has(w.toLowerCase())) break;
      left.unshift(w);
    }
    const right: string[] = [];
    for (let j = i + 1; j < tokens.length && right.length < MAX_CONJUNCT_WORDS; j++) {
      const raw = tokens[j];
      const w = bare(raw);
      if (!w || CONJUNCT_BOUNDARY.has(w.toLowerCase())) break;
      right.push(w);
      if (/[,;:?]$/.test(raw)) break;
    }
    if (left.length === 0 || right.length === 0 || isPeriodOnly(left) || isPeriodOnly(right)) return;
    out.push([left.join(" "), right.join(" ")]);
  });
  return out;
}
