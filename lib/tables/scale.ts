/**
 * The scale a report states for its figures: "(in thousands)", "$'000", "€m", "USDm", "(Dollars in
 * Millions)", "$ billion". Tables state it in a header, a caption or a unit row; prose around the
 * table states it as "(in thousands, except per share data)". TAT-QA's scale field has the same
 * values: thousand, million, billion (percent is a property of the figure itself, see report-number.ts).
 */

export const SCALES = ["thousand", "million", "billion"] as const;
export type Scale = (typeof SCALES)[number];

export const SCALE_FACTOR: Record<Scale, number> = { thousand: 1e3, million: 1e6, billion: 1e9 };

export interface ScaleNote {
  scale: Scale;
  /** The words that stated it, as written ("in thousands", "€m"). */
  text: string;
  /** "except per share", "except percentages": figures of those kinds are not scaled. */
  except: string[];
}

/** Unit markers a header or caption uses: any of them states the table's scale. */
const HEADER_MARKERS: [Scale, RegExp][] = [
  ["thousand", /\bthousands?\b|(?:^|[\s($€£¥])['’‘]?000['’]?s?\b|\$\s?['’‘]?000\b|\b000['’]?s\b|\b(?:k|tsd|tkr|teur|tusd)\b(?!\w)/i],
  [
    "million",
    /\bmillions?\b|\bmn\b|\bmln\b|\bmio\b|(?:[$€£¥]|\b(?:usd|eur|gbp|sek|nok|dkk|chf|rmb|cny|aud|cad|hkd|inr|jpy|zar|nzd|sgd))\s?m\b|\bm(?:usd|eur|gbp|sek)\b|\b(?:usd|eur|gbp|sek|nok|rmb|aud|cad)m\b|^\s*\(?m\)?\s*$/i,
  ],
  ["billion", /\bbillions?\b|\bbn\b|\bbln\b|(?:[$€£¥]|\b(?:usd|eur|gbp))\s?b\b|\b(?:usd|eur|gbp)bn?\b/i],
];

/** In prose only an explicit statement counts: "(in thousands)", "amounts in millions", "expressed in thousands of euros". */
const PROSE_MARKERS: [Scale, RegExp][] = [
  [
    "thousand",
    /\b(?:in|of)\s+(?:[a-z$€£¥.]+\s+){0,2}thousands\b|\(\s*thousands?\b|[$€£¥]\s?['’‘]?000\b|\bin\s+['’‘]?000['’]?s\b|thousands of (?:dollars|euros|pounds|u\.s\. dollars)/i,
  ],
  ["million", /\b(?:in|of)\s+(?:[a-z$€£¥.]+\s+){0,2}millions\b|\(\s*millions?\b|millions of (?:dollars|euros|pounds|u\.s\. dollars)/i],
  ["billion", /\b(?:in|of)\s+(?:[a-z$€£¥.]+\s+){0,2}billions\b|\(\s*billions?\b|billions of (?:dollars|euros|pounds)/i],
];

const EXCEPT = /\bexcept(?:\s+for)?\s+([^)]{3,80})/i;

function exceptionsOf(text: string): string[] {
  const m = EXCEPT.exec(text);
  if (!m) return [];
  const out: string[] = [];
  if (/per[\s-]share|per unit|eps/i.test(m[1])) out.push("per share");
  if (/percent|ratio|%/i.test(m[1])) out.push("percent");
  if (/share(?!\s*data)|shares|number of/i.test(m[1]) && !/per[\s-]share/i.test(m[1])) out.push("shares");
  if (/share and per share|share data|shares and per share/i.test(m[1])) out.push("shares", "per share");
  return [...new Set(out)];
}

function find(text: string, markers: [Scale, RegExp][]): ScaleNote | null {
  let best: { scale: Scale; index: number; text: string } | null = null;
  for (const [scale, re] of markers) {
    const m = re.exec(text);
    if (m && (!best || m.index < best.index)) best = { scale, index: m.index, text: m[0].trim() };
  }
  return best ? { scale: best.scale, text: best.text, except: exceptionsOf(text) } : null;
}

/** The scale a header cell, column name or caption states ("2019 €m", "(In thousands)", "USDm"), or null. */
export function scaleInHeader(text: string): ScaleNote | null {
  return find(text, HEADER_MARKERS);
}

/** The scale a sentence of prose states explicitly for a report's figures, or null. */
export function scaleInProse(text: string): ScaleNote | null {
  return find(text, PROSE_MARKERS);
}

/** The scale word a figure carries itself ("4.2 million", "$1.3bn"), or null. */
export function scaleOfFigure(text: string): Scale | null {
  const m = /\d\s*(thousand|million|billion|bn|mn|m|k)\b/i.exec(text);
  if (!m) return null;
  const w = m[1].toLowerCase();
  return w.startsWith("th") || w === "k" ? "thousand" : w.startsWith("mi") || w === "mn" || w === "m" ? "million" : "billion";
}

/** Whether a note's exceptions exclude a row ("Net income per share" under "except per share data"). */
export function exceptedRow(note: ScaleNote, rowLabel: string, percent: boolean): boolean {
  if (percent) return true;
  const l = rowLabel.toLowerCase();
  if (note.except.includes("per share") && /per (diluted |basic |common |ordinary )?share|\beps\b/.test(l)) return true;
  if (
    note.except.includes("shares") &&
    /\b(number of shares|shares outstanding|share count|shares)\b/.test(l) &&
    !/per share|\bvalue\b|\bprice\b|amount/.test(l)
  )
    return true;
  return /per (diluted |basic |common |ordinary )?share|\beps\b|\bratio\b|\(%\)|\bin %|\bpercent/.test(l);
}
