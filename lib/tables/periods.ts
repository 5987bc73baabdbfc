/**
 * Reporting periods as tables and questions write them: "2019", "FY2018", "FY19", "fiscal 2019",
 * "F19", "Q4 2019", "December 31, 2019", "30 June 2019", "2 0 1 8", and ranges such as "2017-2019" or
 * "2021-2022". A period is compared by year first; month and day only when both sides give them.
 */

export interface Period {
  year: number;
  /** 1..12 when a date or month is written. */
  month: number | null;
  day: number | null;
  quarter: number | null;
  /** The last year of a range ("2021-2022", "2017 to 2019"); null for a single period. */
  to: number | null;
  /** Offsets of the match in the text. */
  start: number;
  end: number;
  text: string;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH =
  "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?";
const YEAR4 = "((?:19|20)\\d\\d)";

function monthOf(word: string): number {
  return MONTHS.indexOf(word.slice(0, 3).toLowerCase()) + 1;
}

function fullYear(digits: string): number {
  const n = Number(digits);
  return digits.length === 2 ? 2000 + n : n;
}

const QUARTER_WORDS: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4 };

interface Rule {
  re: RegExp;
  read(m: RegExpExecArray): Omit<Period, "start" | "end" | "text">;
}

const one = (year: number, extra: Partial<Period> = {}) => ({ year, month: null, day: null, quarter: null, to: null, ...extra });

/** Earlier rules win where matches overlap: a date before its bare year, a range before its ends. */
const RULES: Rule[] = [
  // "December 31, 2019", "Dec. 28, 2019", "April 27 2019"
  {
    re: new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+${YEAR4}\\b`, "gi"),
    read: (m) => one(Number(m[3]), { month: monthOf(m[1]), day: Number(m[2]) }),
  },
  // "30 June 2019", "1 January 2018"
  {
    re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH},?\\s+${YEAR4}\\b`, "gi"),
    read: (m) => one(Number(m[3]), { month: monthOf(m[2]), day: Number(m[1]) }),
  },
  // "June 2019"
  { re: new RegExp(`\\b${MONTH}\\s+${YEAR4}\\b`, "gi"), read: (m) => one(Number(m[2]), { month: monthOf(m[1]) }) },
  // "Q4 2019", "Q4 FY19", "4Q19"
  { re: /\bq([1-4])\s*(?:fy|f)?\s*'?((?:19|20)\d\d|\d\d)\b/gi, read: (m) => one(fullYear(m[2]), { quarter: Number(m[1]) }) },
  { re: /\b([1-4])q\s*'?((?:19|20)\d\d|\d\d)\b/gi, read: (m) => one(fullYear(m[2]), { quarter: Number(m[1]) }) },
  // "fourth quarter of 2019", "the third quarter of fiscal 2018"
  {
    re: /\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\s+(?:of\s+)?(?:fiscal\s+(?:year\s+)?)?((?:19|20)\d\d)\b/gi,
    read: (m) => one(Number(m[2]), { quarter: QUARTER_WORDS[m[1].toLowerCase()] }),
  },
  // ranges: "2017-2019", "2017 – 2019", "fiscal 2017 to 2019", "FY17-FY19", "2021-2022"
  {
    re: /\b(?:fy|f|fiscal(?:\s+years?)?\s*)?((?:19|20)\d\d)\s*(?:-|–|—|to|through|until)\s*(?:fy|f)?\s*((?:19|20)\d\d)\b/gi,
    read: (m) => one(Number(m[1]), { to: Number(m[2]) }),
  },
  { re: /\bfy\s*'?(\d\d)\s*(?:-|–|to)\s*fy\s*'?(\d\d)\b/gi, read: (m) => one(fullYear(m[1]), { to: fullYear(m[2]) }) },
  // "FY2019", "FY 2019", "FY19", "FY'19", "F19", "fiscal 2019", "fiscal year 2019", "2019 fiscal"
  { re: /\b(?:fy|f)\s*'?((?:19|20)\d\d|\d\d)\b/gi, read: (m) => one(fullYear(m[1])) },
  { re: /\bfiscal\s+(?:year\s+)?'?(\d\d)\b(?!\d)/gi, read: (m) => one(fullYear(m[1])) },
  // "2 0 1 8" (a scanned header)
  { re: /\b([12]) ([09]) (\d) (\d)\b/g, read: (m) => one(Number(`${m[1]}${m[2]}${m[3]}${m[4]}`)) },
  { re: new RegExp(`(?<![\\d.,$€£])${YEAR4}(?![\\d%]|[.,]\\d)`, "g"), read: (m) => one(Number(m[1])) },
];

/** Every period the text names, in order of appearance (overlapping readings resolved by rule order). */
export function periodsIn(text: string): Period[] {
  const found: Period[] = [];
  const taken: [number, number][] = [];
  const overlaps = (s: number, e: number) => taken.some(([a, b]) => s < b && e > a);
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(text); m; m = rule.re.exec(text)) {
      const start = m.index;
      const end = m.index + m[0].length;
      if (overlaps(start, end)) continue;
      const p = rule.read(m);
      if (p.year < 1900 || p.year > 2100 || (p.to !== null && (p.to <= p.year || p.to - p.year > 30))) continue;
      taken.push([start, end]);
      found.push({ ...p, start, end, text: m[0] });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** The years a period covers (a range: every year from its start to its end). */
export function yearsOf(p: Period): number[] {
  if (p.to === null) return [p.year];
  return Array.from({ length: p.to - p.year + 1 }, (_, i) => p.year + i);
}

/**
 * Whether a column's period is the one a question names: same year (or the question's range holds it),
 * and same month/day or quarter where both state one. A range column ("2021-2022") matches only the same range.
 */
export function samePeriod(column: Period, asked: Period): boolean {
  if (column.to !== null || asked.to !== null) return column.year === asked.year && column.to === asked.to;
  if (column.year !== asked.year) return false;
  if (column.quarter !== null && asked.quarter !== null && column.quarter !== asked.quarter) return false;
  if (column.month !== null && asked.month !== null && column.month !== asked.month) return false;
  if (column.day !== null && asked.day !== null && column.day !== asked.day) return false;
  return true;
}

/** A sortable key: year, then quarter/month/day (an unstated part sorts as the end of the year). */
export function periodOrder(p: Period): number {
  const month = p.month ?? (p.quarter !== null ? p.quarter * 3 : 12);
  return p.year * 10_000 + month * 100 + (p.day ?? 31);
}
