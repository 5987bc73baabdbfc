import { splitListAnswer } from "./normalize";
import type { TatQaGold } from "../types";

/**
 * TAT-QA's official exact match and F1 (Zhu et al. 2021; NExTplusplus/TAT-QA tatqa_metric.py and
 * tatqa_utils.py, `TaTQAEmAndF1`), rule for rule:
 * - the gold answer and the prediction become one string each (`get_answer_str`): the answers sorted and
 *   joined; a number has its scale applied and is written with four decimals (gold "1,496.5" with scale
 *   "million" is "1496500000.0000"), text gets the scale word appended; a prediction without scale that
 *   is a bare number is also read as a fraction of a percentage (`add_percent_pred`);
 * - EM is equality after DROP's normalisation (lower case, ASCII punctuation out of words that are not
 *   numbers, articles out, numbers as Python prints `to_number`), F1 is the token-bag F1 rounded to two
 *   places (TAT-QA drops DROP's "numbers must match" rule); for arithmetic and count answers F1 = EM;
 * - Python's arithmetic is kept where it shows: round() and '%.4f' round half to even on the exact
 *   binary value, str() tells int from float ("2019" vs "2019.0") and writes 1e+16 in exponent form.
 * What the script takes as given, the model's (answer, scale) pair, is read here off the pipeline's free
 * text (`readTatQaPrediction`): the scale word or percent sign becomes the scale, and an answer that
 * reads as a list ("A, B and C") is also tried as a list of spans; the best reading counts, as the
 * script takes the best of its own readings.
 */

type Scale = TatQaGold["scale"];

const PY_PUNCT = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
const EXCLUDE_IN_NUM = new Set("'\"\\$€£¥%(),[]");

/** A Python number: its value and whether Python would print it as a float. */
interface PyNum {
  value: number;
  float: boolean;
}

/**
 * Rounds the exact binary value of x to `digits` places, ties to even, as Python's round() and
 * '%.Nf' do (JavaScript's toFixed rounds ties away from zero): the digits as text, with sign.
 */
function roundedDigits(x: number, digits: number): { negative: boolean; int: string; frac: string } {
  const negative = x < 0 || Object.is(x, -0);
  // toFixed(100) is the exact decimal expansion of any double this metric meets (|x| < 1e21).
  const [int, frac = ""] = Math.abs(x).toFixed(100).split(".");
  const kept = frac.slice(0, digits);
  const rest = frac.slice(digits);
  let n = BigInt(int + kept);
  const tie = /^50*$/.test(rest);
  if ((rest[0] ?? "0") > "5" || (rest[0] === "5" && !tie) || (tie && n % 2n === 1n)) n += 1n;
  const text = n.toString().padStart(digits + 1, "0");
  return { negative, int: text.slice(0, text.length - digits), frac: text.slice(text.length - digits) };
}

/** Python's round(x, digits) for a float. */
export function pyRound(x: number, digits: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 1e21) return x;
  const r = roundedDigits(x, digits);
  return Number(`${r.negative ? "-" : ""}${r.int}${digits ? `.${r.frac}` : ""}`);
}

/** Python's '%.<digits>f' % x. */
export function pyFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  if (Math.abs(x) >= 1e21) return x.toFixed(digits);
  const r = roundedDigits(x, digits);
  return `${r.negative ? "-" : ""}${r.int}${digits ? `.${r.frac}` : ""}`;
}

/** Python's str() of an int or a float (repr: shortest digits, exponent form below 1e-4 and from 1e16). */
export function pyStr(n: PyNum): string {
  const v = n.value;
  if (!n.float) return String(v);
  if (!Number.isFinite(v)) return Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
  const [mantissa, e] = v.toExponential().split("e");
  const exp = Number(e);
  if (v !== 0 && (exp < -4 || exp >= 16)) return `${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  const fixed = Object.is(v, -0) ? "-0" : String(v);
  return fixed.includes(".") ? fixed : `${fixed}.0`;
}

export function scaleToNum(scale: string): number {
  const s = scale.toLowerCase();
  if (s.includes("hundred")) return 100;
  if (s.includes("thousand")) return 1000;
  if (s.includes("million")) return 1_000_000;
  if (s.includes("billion")) return 1_000_000_000;
  if (s.includes("percent")) return 0.01;
  return 1;
}

function cleanNum(text: string): string {
  return [...text].filter((ch) => !EXCLUDE_IN_NUM.has(ch)).join("");
}

function extractOneNum(s: string): PyNum | null {
  const m = /([+-]?\d+(\.\d+)?)|([+-]?\.\d+)/.exec(cleanNum(s));
  // Python's findall()[0][0] is the first group: empty when only the ".5" alternative matched.
  if (!m || !m[1]) return null;
  return { value: Number(m[1]), float: m[1].includes(".") };
}

/** Python float(): digits (underscores between them allowed) with optional sign, decimals and exponent, or inf/nan words. */
function pyFloat(word: string): number | null {
  const w = word.trim();
  const digits = "\\d(?:_?\\d)*";
  if (new RegExp(`^[+-]?(${digits}\\.?(${digits})?|\\.${digits})(e[+-]?${digits})?$`, "i").test(w)) return Number(w.replace(/_/g, ""));
  if (/^[+-]?(inf|infinity)$/i.test(w)) return w.startsWith("-") ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(w)) return NaN;
  return null;
}

export function isNumber(text: string): boolean {
  const words = text.split(/\s+/).filter(Boolean).map(cleanNum).join(" ").split(/\s+/).filter(Boolean);
  if (!words.length) return false;
  const num = pyFloat(words[0]);
  if (num === null || Number.isNaN(num)) return false;
  if (words.length >= 2 && scaleToNum(words[1]) === 1) return false;
  return true;
}

function negativeFlag(x: string): number {
  return /\([\d.\s]+\)/.test(x.trim()) ? -1 : 1;
}

function percentFlag(x: string): number {
  return /[\d.\s]+%/.test(x.trim()) ? 0.01 : 1;
}

function wordScale(x: string): number {
  const m = /[\d.]+\s?[a-zA-Z]+/.exec(x);
  return m ? scaleToNum(m[0].toLowerCase()) : 1;
}

export function toNumber(text: string): PyNum | null {
  const num = extractOneNum(text);
  if (!num) return null;
  const scale = wordScale(text);
  const pct = percentFlag(text);
  const float = num.float || pct !== 1 || !Number.isInteger(scale);
  const value = pyRound(num.value * scale * negativeFlag(text) * pct, 4);
  // Python's ints have no negative zero: int("-0") * -1 is 0; only a float keeps -0.0.
  return { value: float ? value : value + 0, float };
}

function removePunc(text: string): string {
  return isNumber(text) ? text : [...text].filter((ch) => !PY_PUNCT.has(ch)).join("");
}

function normalizeNumber(text: string): string {
  if (!isNumber(text)) return text;
  const n = toNumber(text);
  return n ? pyStr(n) : "None";
}

/** Python's re.UNICODE \b(a|an|the)\b: word characters are letters, digits and the underscore of any script. */
const ARTICLES = /(?<![\p{L}\p{N}_])(a|an|the)(?![\p{L}\p{N}_])/gu;

export function normalizeTatQaAnswer(text: string): string {
  const parts = text.split(" ").map((token) => {
    const t = normalizeNumber(removePunc(token.toLowerCase()));
    return t.replace(ARTICLES, " ").split(/\s+/).filter(Boolean).join(" ");
  });
  return parts
    .filter((p) => p.trim())
    .join(" ")
    .trim();
}

function bag(normalized: string): Set<string> {
  return new Set(normalized.split(/\s+/).filter(Boolean));
}

/** _compute_f1: token-bag F1, an empty bag counting as full precision or recall. */
function bagF1(pred: Set<string>, gold: Set<string>): number {
  let inter = 0;
  for (const t of gold) if (pred.has(t)) inter++;
  const precision = pred.size ? inter / pred.size : 1;
  const recall = gold.size ? inter / gold.size : 1;
  return precision === 0 && recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

/**
 * get_metrics on two answer strings: exact match of the normalized strings and the bag F1 rounded to two
 * places. Each side is one string (get_answer_str joins the spans), so the script's one-to-one alignment
 * of bags pairs one bag with one bag, and its number check is commented out there.
 */
function getMetrics(predicted: string, gold: string): [number, number] {
  const p = normalizeTatQaAnswer(predicted);
  const g = normalizeTatQaAnswer(gold);
  return [p === g ? 1 : 0, pyRound(bagF1(bag(p), bag(g)), 2)];
}

/** Python's string order: by code point (JavaScript's < compares UTF-16 units, which differs beyond the BMP). */
function codePointCompare(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d) return d;
  }
  return x.length - y.length;
}

/** Python's sorted() for the answers: numbers and strings never mix in one TAT-QA answer. */
function pySorted(values: (string | number)[]): (string | number)[] {
  return [...values].sort((a, b) => (typeof a === "number" && typeof b === "number" ? a - b : codePointCompare(String(a), String(b))));
}

function pyValueStr(v: string | number): string {
  return typeof v === "string" ? v : pyStr({ value: v, float: !Number.isInteger(v) });
}

export function getAnswerStr(answers: (string | number)[], scale: string): string[] {
  const parts = pySorted(answers).map((ans) => {
    let s = pyValueStr(ans);
    if (isNumber(s)) {
      const n = toNumber(s);
      if (!n) {
        if (scale) s = `${s} ${scale}`;
      } else if (s.includes("%")) {
        s = pyFixed(n.value, 4);
      } else {
        s = pyFixed(pyRound(n.value, 2) * scaleToNum(scale), 4);
      }
    } else if (scale) {
      s = `${s} ${scale}`;
    }
    return s;
  });
  return [parts.join(" ")];
}

function addPercentPred(strings: string[], predScale: string, pred: string[]): string[] {
  if (pred.length > 1) return strings;
  const s = pred[0];
  if (!predScale && !s.includes("%") && isNumber(s)) {
    const n = toNumber(s);
    if (n) strings.push(pyFixed(n.value, 4));
  }
  return strings;
}

function goldAnswers(gold: TatQaGold): (string | number)[] {
  if (gold.answerType === "span" || gold.answerType === "multi-span")
    return Array.isArray(gold.answer) ? gold.answer : [String(gold.answer)];
  if (gold.answerType === "count") return [String(Math.trunc(Number(Array.isArray(gold.answer) ? gold.answer[0] : gold.answer)))];
  // arithmetic: Python's str() of the number (an int prints without ".0").
  const a = Array.isArray(gold.answer) ? gold.answer[0] : gold.answer;
  return [typeof a === "number" ? pyStr({ value: a, float: !Number.isInteger(a) }) : String(a)];
}

const SCALE_WORD = /\s*\b(thousand|million|billion)s?\b/i;

/**
 * Reads TAT-QA's (prediction, scale) off a free-text answer: "1,496.5 million" → ("1,496.5", "million"),
 * "5.2%" and "5.2 percent" → ("5.2%", "percent"). The scale word is taken off every number it follows,
 * so it is not applied twice.
 */
export function splitScale(answer: string): { text: string; scale: Scale } {
  const t = answer.trim();
  const word = SCALE_WORD.exec(t);
  if (word && /\d/.test(t)) {
    const scale = word[1].toLowerCase() as Scale;
    return { text: t.replace(new RegExp(`\\s*\\b${scale}s?\\b`, "gi"), "").trim(), scale };
  }
  if (/\d\s*%|\d\s*percent\b/i.test(t)) return { text: t.replace(/\s*percent\b/gi, "%").trim(), scale: "percent" };
  return { text: t, scale: "" };
}

export interface TatQaReading {
  prediction: string | string[];
  scale: Scale;
}

/**
 * The model outputs TAT-QA's evaluator expects, read off a free-text answer: the whole answer as one
 * span, and, when it reads as a list ("A, B and C", "A; B"), the list of spans (the script sorts them).
 */
export function readTatQaPrediction(answer: string): TatQaReading[] {
  const { text, scale } = splitScale(answer);
  const readings: TatQaReading[] = [{ prediction: text, scale }];
  const items = splitListAnswer(text);
  if (items.length > 1) readings.push({ prediction: items, scale });
  return readings;
}

export interface TatQaScore {
  em: number;
  f1: number;
}

/** TaTQAEmAndF1.__call__ for one question: the model's answer (a string or a list of spans) and its scale. */
export function tatqaEmF1(prediction: string | string[] | null, predScale: Scale, gold: TatQaGold): TatQaScore {
  if (prediction === null || !prediction.length) return { em: 0, f1: 0 };
  const answers = goldAnswers(gold);
  if (!answers.length) return { em: 0, f1: 0 };
  const pred = Array.isArray(prediction) ? prediction : [prediction];
  const goldStrings = getAnswerStr(answers, gold.scale);
  const predStrings = addPercentPred(getAnswerStr(pred, predScale), predScale, pred);
  // metric_max_over_ground_truths: the largest (em, f1) pair, compared as Python compares tuples.
  let best: [number, number] = [0, 0];
  for (const p of predStrings) {
    for (const g of goldStrings) {
      const m = getMetrics(p, g);
      if (m[0] > best[0] || (m[0] === best[0] && m[1] > best[1])) best = m;
    }
  }
  const [em, f1] = best;
  return { em, f1: gold.answerType === "arithmetic" || gold.answerType === "count" ? em : f1 };
}

/**
 * Scores a prediction against a TAT-QA gold answer. With a scale given, the prediction is taken as the
 * model's output as is; without, a free-text answer is read (`readTatQaPrediction`) and its best reading counts.
 */
export function scoreTatQa(prediction: string | string[] | null, gold: TatQaGold, predScale?: Scale): TatQaScore {
  if (prediction === null || (Array.isArray(prediction) ? !prediction.length : !prediction.trim())) return { em: 0, f1: 0 };
  if (predScale !== undefined || Array.isArray(prediction)) return tatqaEmF1(prediction, predScale ?? "", gold);
  let best: TatQaScore = { em: 0, f1: 0 };
  for (const r of readTatQaPrediction(prediction)) {
    const s = tatqaEmF1(r.prediction, r.scale, gold);
    if (s.em > best.em || (s.em === best.em && s.f1 > best.f1)) best = s;
  }
  return best;
}

/** The gold answer as a person reads it: "1,496.5 million", "fixed-price type; cost-plus type". */
export function tatQaAnswerText(gold: TatQaGold): string[] {
  const answers = goldAnswers(gold).map(String);
  const suffix = gold.scale === "percent" ? "%" : gold.scale ? ` ${gold.scale}` : "";
  return answers.map((a) => (isNumber(a) ? `${a}${suffix}` : a));
}
