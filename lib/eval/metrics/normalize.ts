/**
 * Answer normalisation (SQuAD: lower case, no punctuation, no articles, single spaces), with one
 * change that matters for business questions: numbers survive it. SQuAD's rule turns "1,496.5" into
 * "14965" and "-12.6" into "126"; here a token that reads as a number becomes its canonical form
 * ("1,496.5" → "1496.5", "$12.00" → "12", "(134)" → "-134") and a percent sign becomes the word
 * "percent", so "68%" and "68 percent" agree.
 */

const ARTICLES = new Set(["a", "an", "the"]);
/** Everything Unicode calls punctuation or a symbol (SQuAD strips string.punctuation). */
const PUNCT = /[\p{P}\p{S}]/gu;

/** A token read as a number: optional sign, currency, thousands separators, decimals, accounting parentheses. */
const NUMBER_TOKEN = /^[(]?[-+−]?[$€£¥]?[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?[)]?%?$/;

export function parseNumberToken(token: string): { value: number; percent: boolean } | null {
  const t = token.trim().replace(/[.,;:!?]+$/, "");
  if (!t || !/\d/.test(t) || !NUMBER_TOKEN.test(t)) return null;
  const negative = /^\(.*\)$/.test(t) || /[-−]/.test(t);
  const digits = t.replace(/[()$€£¥%+\-−,]/g, "");
  const value = Number(digits);
  if (!Number.isFinite(value)) return null;
  return { value: negative ? -value : value, percent: t.endsWith("%") };
}

/** The canonical text of a number: at most 10 significant digits, no trailing zeros ("12.50" → "12.5"). */
export function canonicalNumber(value: number): string {
  if (Object.is(value, -0)) return "0";
  return String(Number(value.toPrecision(10)));
}

/** Normalized tokens of an answer or a piece of evidence. */
export function answerTokens(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().normalize("NFKC").split(/\s+/)) {
    if (!raw) continue;
    const num = parseNumberToken(raw);
    if (num) {
      out.push(canonicalNumber(num.value));
      if (num.percent) out.push("percent");
      continue;
    }
    // "12%," or "(2019)" around a number inside a longer token: split on punctuation first.
    for (const part of raw.split(/(?<=\d)%|[/–—]/)) {
      const inner = parseNumberToken(part);
      if (inner) {
        out.push(canonicalNumber(inner.value));
        if (raw.includes("%")) out.push("percent");
        continue;
      }
      const word = part.replace(PUNCT, "");
      if (word && !ARTICLES.has(word)) out.push(word);
    }
  }
  return out;
}

export function normalizeAnswer(text: string): string {
  return answerTokens(text).join(" ");
}

export function isNumberText(text: string): boolean {
  const tokens = answerTokens(text);
  return tokens.length === 1 && Number.isFinite(Number(tokens[0]));
}

/** Decimal places a number was written with ("76.67" → 2, "1,200" → 0): the precision it claims. */
export function shownDecimals(text: string): number {
  const m = /\.(\d+)/.exec(text.replace(/,/g, ""));
  return m ? m[1].length : 0;
}

/** Decimal places needed to write a value exactly (at most 10): 6 → 0, 2.4 → 1, 76.666… → 10. */
export function exactDecimals(value: number): number {
  for (let d = 0; d < 10; d++) if (Math.abs(Number(value.toFixed(d)) - value) <= Math.abs(value) * 1e-12) return d;
  return 10;
}

/**
 * Does a number written with `decimals` places state `gold`? It must equal the gold value rounded to
 * that precision, and be written precisely enough: at least as many places as the gold value needs, up
 * to two. So "76.67" states 76.666…, "77" does not; "2" does not state 2.4; "6.0" states 6.
 */
export function numberStates(shown: number, decimals: number, gold: number): boolean {
  if (decimals < Math.min(2, exactDecimals(gold))) return false;
  const tolerance = Math.max(0.5 * 10 ** -decimals + 1e-9, Math.abs(gold) * 1e-9);
  return Math.abs(shown - gold) <= tolerance;
}

/** SQuAD token F1 between two normalized token lists. */
export function tokenF1(pred: string[], gold: string[]): number {
  if (!pred.length && !gold.length) return 1;
  if (!pred.length || !gold.length) return 0;
  const counts = new Map<string, number>();
  for (const t of gold) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of pred) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      common++;
      counts.set(t, c - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / pred.length;
  const recall = common / gold.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Splits a list answer ("A, B and C", "A; B") into items; thousands separators are not separators. */
export function splitListAnswer(text: string): string[] {
  return text
    .split(/\s*(?:;|\n|,(?!\d{3}\b)|\band\b|\s&\s)\s*/i)
    .map((s) => s.trim())
    .filter(Boolean);
}
