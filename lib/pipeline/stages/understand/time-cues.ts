import * as chrono from "chrono-node";
import type { TimeCue } from "../../contracts";
import { NUMBER_WORDS, ORDINAL_WORDS } from "./lexicon";

/** Time cues from question text: periods (absolute, relative to `now`, ranges) and ordinals. */
export interface TimeAnalysis {
  cues: TimeCue[];
  /** Character ranges the cues cover (comparator words included), for the other analyses to skip. */
  spans: [number, number][];
}

type Granularity = "day" | "week" | "month" | "quarter" | "year" | "decade";
interface Period {
  start: Date;
  end: Date;
}
interface RawCue {
  start: number;
  end: number;
  kind: TimeCue["kind"];
  period: Period | null;
  ordinal: number | null;
}

/** Past this many characters the question is not scanned for time cues. */
const MAX_TIME_CHARS = 1_000;
const YEAR = "(1[5-9]\\d\\d|2[01]\\d\\d)";
const NUMBER_WORD = Object.keys(NUMBER_WORDS).join("|");
const RELATIVE_WORDS = /\b(last|this|next|past|previous|prior|ago|yesterday|today|tomorrow|tonight|recent|coming|current|now)\b/i;
const MEASURE_UNITS =
  /^\s*(?:%|percent|units?|km|kg|g|grams?|m|cm|mm|metres?|meters?|eur|usd|sek|gbp|dollars?|euros?|calories|pounds?|feet|miles?)\b/i;

const utc = (y: number, m = 1, d = 1) => new Date(Date.UTC(y, m - 1, d));
const iso = (d: Date) => d.toISOString().slice(0, 10);

function addUnits(d: Date, n: number, unit: Granularity): Date {
  const r = new Date(d);
  if (unit === "day") r.setUTCDate(r.getUTCDate() + n);
  else if (unit === "week") r.setUTCDate(r.getUTCDate() + 7 * n);
  else if (unit === "month") r.setUTCMonth(r.getUTCMonth() + n);
  else if (unit === "quarter") r.setUTCMonth(r.getUTCMonth() + 3 * n);
  else if (unit === "decade") r.setUTCFullYear(r.getUTCFullYear() + 10 * n);
  else r.setUTCFullYear(r.getUTCFullYear() + n);
  return r;
}

/** The calendar period of the given unit that contains the date (weeks start on Monday). */
function periodOf(y: number, m: number, d: number, unit: Granularity): Period {
  let start: Date;
  if (unit === "year") start = utc(y);
  else if (unit === "month") start = utc(y, m);
  else if (unit === "quarter") start = utc(y, Math.floor((m - 1) / 3) * 3 + 1);
  else if (unit === "decade") start = utc(y - (y % 10));
  else if (unit === "week") {
    const day = utc(y, m, d);
    start = addUnits(day, -((day.getUTCDay() + 6) % 7), "day");
  } else start = utc(y, m, d);
  return { start, end: addUnits(start, 1, unit) };
}

const today = (now: Date) => utc(now.getUTCFullYear(), now.getUTCMonth() + 1, now.getUTCDate());
const unitOf = (word: string): Granularity => word.toLowerCase().replace(/s$/, "") as Granularity;

/** Rules in priority order; a later rule never takes text an earlier one matched. */
function explicitCues(text: string, now: Date, taken: (s: number, e: number) => boolean): RawCue[] {
  const out: RawCue[] = [];
  const scan = (re: RegExp, build: (m: RegExpExecArray) => Omit<RawCue, "start" | "end"> | null) => {
    for (const m of text.matchAll(re)) {
      const start = m.index ?? 0;
      const end = start + m[0].length;
      if (taken(start, end)) continue;
      const cue = build(m as RegExpExecArray);
      if (cue) out.push({ ...cue, start, end });
    }
  };
  // The last part of a named year: "the last quarter of 2025" is its fourth, "the final half of 2024" its second
  // (without a year, "last quarter" is the one before this one: a trailing window below).
  scan(new RegExp(`\\b(?:last|final)\\s+(quarter|half)\\s+of\\s+(?:(?:FY|fiscal(?:\\s+year)?)\\s*)?${YEAR}\\b`, "gi"), (m) => {
    const quarter = m[1].toLowerCase() === "quarter";
    const start = utc(Number(m[2]), quarter ? 10 : 7);
    return { kind: "absolute", period: { start, end: addUnits(start, quarter ? 1 : 2, "quarter") }, ordinal: null };
  });
  // Quarters and halves: "Q1 2024", "the first quarter of 2024", "H2 2023".
  const QUARTER = new RegExp(
    `\\b(?:Q([1-4])|(first|second|third|fourth|1st|2nd|3rd|4th)\\s+quarter|H([12])|(first|second|1st|2nd)\\s+half)(?:\\s+(?:of\\s+)?(?:(?:FY|fiscal(?:\\s+year)?)\\s*)?${YEAR})?\\b`,
    "gi",
  );
  scan(QUARTER, (m) => {
    const year = m[5] ? Number(m[5]) : now.getUTCFullYear();
    const q = m[1] ? Number(m[1]) : m[2] ? ORDINAL_WORDS[m[2].toLowerCase()] : null;
    const h = m[3] ? Number(m[3]) : m[4] ? ORDINAL_WORDS[m[4].toLowerCase()] : null;
    const start = q ? utc(year, (q - 1) * 3 + 1) : utc(year, ((h ?? 1) - 1) * 6 + 1);
    return { kind: m[5] ? "absolute" : "relative", period: { start, end: addUnits(start, q ? 1 : 2, "quarter") }, ordinal: null };
  });
  // Decades: "the 1990s".
  scan(/\b((?:1[5-9]|20)\d)0s\b/g, (m) => ({ kind: "absolute", period: periodOf(Number(m[1]) * 10, 1, 1, "decade"), ordinal: null }));
  // Trailing windows: "the last 3 months", "past two years" → from then until today (inclusive).
  scan(
    new RegExp(`\\b(?:last|past|previous|prior)\\s+(\\d{1,3}|${NUMBER_WORD})\\s+(days?|weeks?|months?|quarters?|years?)\\b`, "gi"),
    (m) => {
      const n = /^\d+$/.test(m[1]) ? Number(m[1]) : NUMBER_WORDS[m[1].toLowerCase()];
      const end = addUnits(today(now), 1, "day");
      return { kind: "relative", period: { start: addUnits(today(now), -n, unitOf(m[2])), end }, ordinal: null };
    },
  );
  // Fiscal years: "FY2024", "fiscal 2023".
  scan(new RegExp(`\\b(?:FY|fiscal(?:\\s+year)?)\\s*'?${YEAR}\\b`, "gi"), (m) => ({
    kind: "absolute",
    period: periodOf(Number(m[1]), 1, 1, "year"),
    ordinal: null,
  }));
  return out;
}

const MONTH_OR_DAY =
  /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:today|yesterday|tomorrow|tonight)\b/i;

function chronoCues(text: string, now: Date, taken: (s: number, e: number) => boolean): RawCue[] {
  let results: chrono.ParsedResult[];
  try {
    results = chrono.parse(text, now);
  } catch {
    return [];
  }
  const out: RawCue[] = [];
  for (const r of results) {
    const start = r.index;
    const end = start + r.text.length;
    if (taken(start, end)) continue;
    const c = r.start;
    if (!c.isCertain("day") && !c.isCertain("month") && !c.isCertain("year") && !c.isCertain("weekday")) continue; // "at 5 pm"
    // A lone lower-case month word is usually a verb ("may", "march").
    if (/^(may|march|august)$/.test(r.text.trim())) continue;
    const relative = RELATIVE_WORDS.test(r.text);
    // "in the years of both 2014 and 2015": a bare "the year(s)" names no period.
    if (!/\d/.test(r.text) && !relative && !MONTH_OR_DAY.test(r.text)) continue;
    const unit: Granularity =
      /\bweek\b/i.test(r.text) && !c.isCertain("weekday")
        ? "week"
        : c.isCertain("day") || c.isCertain("weekday")
          ? "day"
          : c.isCertain("month")
            ? "month"
            : "year";
    const from = periodOf(c.get("year") ?? now.getUTCFullYear(), c.get("month") ?? 1, c.get("day") ?? 1, unit);
    if (r.end) {
      const e = r.end;
      const eUnit: Granularity = e.isCertain("day") ? "day" : e.isCertain("month") ? "month" : "year";
      const to = periodOf(e.get("year") ?? now.getUTCFullYear(), e.get("month") ?? 1, e.get("day") ?? 1, eUnit);
      out.push({ start, end, kind: "range", period: { start: from.start, end: to.end }, ordinal: null });
    } else out.push({ start, end, kind: relative ? "relative" : "absolute", period: from, ordinal: null });
  }
  return out;
}

function yearCues(text: string, taken: (s: number, e: number) => boolean): RawCue[] {
  const out: RawCue[] = [];
  for (const m of text.matchAll(new RegExp(`(?<![\\p{L}\\p{N}$€£.,])${YEAR}(?![\\p{L}\\p{N}]|[.,]\\d)`, "gu"))) {
    const start = m.index ?? 0;
    const end = start + m[0].length;
    if (taken(start, end) || MEASURE_UNITS.test(text.slice(end))) continue;
    out.push({ start, end, kind: "absolute", period: periodOf(Number(m[1]), 1, 1, "year"), ordinal: null });
  }
  return out;
}

const ORDINAL_RE =
  /\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|1st|2nd|3rd|4th|5th|6th|7th|8th|9th|10th|last|latest|newest|earliest|most\s+recent)\b/gi;

function ordinalCues(text: string, taken: (s: number, e: number) => boolean): RawCue[] {
  const out: RawCue[] = [];
  for (const m of text.matchAll(ORDINAL_RE)) {
    const start = m.index ?? 0;
    const end = start + m[0].length;
    const word = m[1].toLowerCase();
    const before = text.slice(Math.max(0, start - 12), start).toLowerCase();
    const after = text.slice(end, end + 10).toLowerCase();
    if (taken(start, end)) continue;
    if (/^\s+names?\b/.test(after)) continue; // "first name" is a field, not an ordinal
    if (/\bat\s+$/.test(before)) continue; // "at last", "at first"
    if (word === "second" && (/(?:\d|\bper|\ba|\bevery)\s+$/.test(before) || /^s\b/.test(after))) continue; // a unit of time
    const ordinal = word.startsWith("most") ? -1 : ORDINAL_WORDS[word];
    if (ordinal === undefined) continue;
    out.push({ start, end, kind: "ordinal", period: null, ordinal });
  }
  return out;
}

const COMPARATORS: [TimeCue["comparator"], RegExp][] = [
  ["before", /\b(?:before|prior\s+to|earlier\s+than|ahead\s+of)\s+(?:the\s+)?$/i],
  ["until", /\b(?:until|till|up\s+(?:to|until)|through|by\s+the\s+end\s+of|as\s+of|no\s+later\s+than)\s+(?:the\s+)?$/i],
  ["after", /\b(?:after|later\s+than|following)\s+(?:the\s+)?$/i],
  ["since", /\b(?:since|starting(?:\s+(?:in|from|on))?|beginning(?:\s+(?:in|from|on))?)\s+(?:the\s+)?$/i],
  // "movies from 1999", "revenue from 2024": a bare "from" names the period itself ("from A to B" is a range).
  ["in", /\b(?:in|during|on|for|of|from|within|throughout|at|over)\s+(?:the\s+)?$/i],
];

/** "between A and B", "from A to B", "2019–2021": two periods joined into one range. */
function mergeRanges(text: string, cues: RawCue[]): RawCue[] {
  const out: RawCue[] = [];
  for (let i = 0; i < cues.length; i++) {
    const a = cues[i];
    const b = cues[i + 1];
    if (a.period && b?.period && a.kind !== "range" && b.kind !== "range") {
      const gap = text.slice(a.end, b.start);
      const lead = /\b(between|from)\s+(?:the\s+)?$/i.exec(text.slice(0, a.start));
      if (/^\s*[-–]\s*$/.test(gap) || (lead && /^\s*(?:and|to|until|till|through|[-–])\s*$/i.test(gap))) {
        out.push({
          start: lead ? lead.index : a.start,
          end: b.end,
          kind: "range",
          period: { start: a.period.start, end: b.period.end },
          ordinal: null,
        });
        i++;
        continue;
      }
    }
    out.push(a);
  }
  return out;
}

function toTimeCue(text: string, raw: RawCue, inherited: TimeCue["comparator"]): { cue: TimeCue; span: [number, number] } {
  let start = raw.start;
  let comparator: TimeCue["comparator"] = raw.kind === "range" ? "between" : null;
  if (raw.period && raw.kind !== "range") {
    const before = text.slice(Math.max(0, raw.start - 30), raw.start);
    for (const [name, re] of COMPARATORS) {
      const m = re.exec(before);
      if (m) {
        comparator = name;
        start = raw.start - (before.length - m.index) + (/^\s/.test(m[0]) ? 1 : 0);
        break;
      }
    }
    // "in 2024 and 2025": the second period shares the first one's comparator.
    comparator ??= inherited;
  }
  const p = raw.period;
  let range: [string | null, string | null] = [null, null];
  if (p) {
    if (comparator === "before") range = [null, iso(p.start)];
    else if (comparator === "until") range = [null, iso(p.end)];
    else if (comparator === "after") range = [iso(p.end), null];
    else if (comparator === "since") range = [iso(p.start), null];
    else range = [iso(p.start), iso(p.end)];
  }
  return {
    cue: { text: text.slice(start, raw.end).trim(), kind: raw.kind, start: range[0], end: range[1], comparator, ordinal: raw.ordinal },
    span: [start, raw.end],
  };
}

export function extractTimeCues(question: string, now: Date = new Date()): TimeAnalysis {
  const text = question.slice(0, MAX_TIME_CHARS);
  const found: RawCue[] = [];
  const taken = (s: number, e: number) => found.some((c) => s < c.end && e > c.start);
  const take = (cues: RawCue[]) => {
    for (const c of cues) if (!taken(c.start, c.end)) found.push(c);
  };
  take(explicitCues(text, now, taken));
  take(chronoCues(text, now, taken));
  take(yearCues(text, taken));
  take(ordinalCues(text, taken));
  found.sort((a, b) => a.start - b.start);
  const converted: { cue: TimeCue; span: [number, number] }[] = [];
  for (const raw of mergeRanges(text, found)) {
    const prev = converted.at(-1);
    const joined = prev && prev.cue.kind !== "ordinal" && /^\s*(?:,|and|or|,\s*and|,\s*or)\s*$/i.test(text.slice(prev.span[1], raw.start));
    converted.push(toTimeCue(text, raw, joined && prev.cue.comparator !== "between" ? prev.cue.comparator : null));
  }
  return { cues: converted.map((c) => c.cue), spans: converted.map((c) => c.span) };
}
