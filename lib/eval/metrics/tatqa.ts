import type { TatQaGold } from "../types";
import { maxAssignment } from "./assignment";

/**
 * TAT-QA's official exact match and F1 (Zhu et al. 2021, tatqa_metric.py and tatqa_utils.py), ported
 * rule for rule. Numbers are compared after their scale is applied: the gold "1,496.5" with scale
 * "million" is 1496500000, so an answer of "1,496.5" without its scale is wrong, "1,496.5 million" is
 * right; "5.2%" matches 5.2 with scale "percent". Multi-span answers are sorted and joined into one
 * string, then compared DROP-style (token bags, numbers must agree). For arithmetic and count answers F1
 * is the exact match. Python's int/float distinction in `str(to_number(x))` is kept, so "2019" and
 * "2019.0" differ as they do in the official script.
 */

type Scale = TatQaGold["scale"];

const PY_PUNCT = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
const EXCLUDE_IN_NUM = new Set("'\"\\$€£¥%(),[]");

/** A Python number: its value and whether Python would print it as a float. */
interface PyNum {
  value: number;
  float: boolean;
}

function pyStr(n: PyNum): string {
  if (!n.float) return String(n.value);
  if (Number.isInteger(n.value) && Math.abs(n.value) < 1e16) return `${n.value}.0`;
  return String(n.value);
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

/** Python float(): digits with optional sign, decimals and exponent, or inf/nan words. */
function pyFloat(word: string): number | null {
  const w = word.trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(w)) return Number(w);
  if (/^[+-]?(inf|infinity)$/i.test(w)) return w.startsWith("-") ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(w)) return NaN;
  return null;
}

export function isNumber(text: string): boolean {
  const words = text
    .split(/\s+/)
    .filter(Boolean)
    .map(cleanNum)
    .join(" ")
    .split(/\s+/)
    .filter(Boolean);
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

/** Python's round(x, 4) for the magnitudes found in financial reports. */
function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

export function toNumber(text: string): PyNum | null {
  const num = extractOneNum(text);
  if (!num) return null;
  const scale = wordScale(text);
  const pct = percentFlag(text);
  const value = round(num.value * scale * negativeFlag(text) * pct, 4);
  return { value, float: num.float || pct !== 1 || !Number.isInteger(scale) };
}

function removePunc(text: string): string {
  return isNumber(text) ? text : [...text].filter((ch) => !PY_PUNCT.has(ch)).join("");
}

function normalizeNumber(text: string): string {
  if (!isNumber(text)) return text;
  const n = toNumber(text);
  return n ? pyStr(n) : "None";
}

export function normalizeTatQaAnswer(text: string): string {
  const parts = text.split(" ").map((token) => {
    const t = normalizeNumber(removePunc(token.toLowerCase()));
    return t.replace(/\b(a|an|the)\b/g, " ").split(/\s+/).filter(Boolean).join(" ");
  });
  return parts.filter((p) => p.trim()).join(" ").trim();
}

function bag(text: string): Set<string> {
  return new Set(normalizeTatQaAnswer(text).split(/\s+/).filter(Boolean));
}

function bagF1(pred: Set<string>, gold: Set<string>): number {
  let inter = 0;
  for (const t of gold) if (pred.has(t)) inter++;
  const precision = pred.size ? inter / pred.size : 1;
  const recall = gold.size ? inter / gold.size : 1;
  return precision === 0 && recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

function matchNumbersIfPresent(gold: Set<string>, pred: Set<string>): boolean {
  const goldNumbers = [...gold].filter(isNumber);
  if (!goldNumbers.length) return true;
  return goldNumbers.some((g) => pred.has(g));
}

/** DROP's get_metrics on two answer strings: exact match of the normalized spans, and the aligned bag F1 (rounded to 2 places). */
function getMetrics(predicted: string, gold: string): [number, number] {
  const p = normalizeTatQaAnswer(predicted);
  const g = normalizeTatQaAnswer(gold);
  const em = p === g ? 1 : 0;
  const pb = [bag(predicted)];
  const gb = [bag(gold)];
  const scores = gb.map((gi) => pb.map((pi) => (matchNumbersIfPresent(gi, pi) ? bagF1(pi, gi) : 0)));
  const match = maxAssignment(scores);
  const perBag = new Array<number>(Math.max(gb.length, pb.length)).fill(0);
  match.forEach((j, i) => {
    if (j >= 0) perBag[i] = Math.max(perBag[i], scores[i][j]);
  });
  const f1 = perBag.reduce((a, b) => a + b, 0) / perBag.length;
  return [em, Math.round(f1 * 100) / 100];
}

/** Python's sorted() for the gold answers: numbers and strings never mix in one TAT-QA answer. */
function pySorted(values: (string | number)[]): (string | number)[] {
  return [...values].sort((a, b) => (typeof a === "number" && typeof b === "number" ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
}

function pyValueStr(v: string | number): string {
  if (typeof v === "string") return v;
  return Number.isInteger(v) ? String(v) : String(v);
}

export function getAnswerStr(answers: (string | number)[], scale: string): string[] {
  const parts = pySorted(answers).map((ans) => {
    let s = pyValueStr(ans);
    if (isNumber(s)) {
      const n = toNumber(s);
      if (!n) {
        if (scale) s = `${s} ${scale}`;
      } else if (s.includes("%")) {
        s = n.value.toFixed(4);
      } else {
        s = (round(n.value, 2) * scaleToNum(scale)).toFixed(4);
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
    if (n) strings.push(n.value.toFixed(4));
  }
  return strings;
}

function goldAnswers(gold: TatQaGold): (string | number)[] {
  if (gold.answerType === "span" || gold.answerType === "multi-span") return Array.isArray(gold.answer) ? gold.answer : [String(gold.answer)];
  if (gold.answerType === "count") return [String(Math.trunc(Number(Array.isArray(gold.answer) ? gold.answer[0] : gold.answer)))];
  // arithmetic: Python's str() of the number (an int prints without ".0").
  const a = Array.isArray(gold.answer) ? gold.answer[0] : gold.answer;
  return [typeof a === "number" ? pyStr({ value: a, float: !Number.isInteger(a) }) : String(a)];
}

/**
 * Splits a free-text answer into TAT-QA's (prediction, scale): "1,496.5 million" → ("1,496.5", "million"),
 * "5.2%" → ("5.2%", "percent"). The scale word is taken off the number so it is not applied twice.
 */
export function splitScale(answer: string): { text: string; scale: Scale } {
  const t = answer.trim();
  const word = /\s*\b(thousand|million|billion)s?\b/i.exec(t);
  if (word && /\d/.test(t)) return { text: t.replace(word[0], "").trim(), scale: word[1].toLowerCase() as Scale };
  if (/\d\s*%|\d\s*percent\b/i.test(t)) return { text: t.replace(/\s*percent\b/i, "%").trim(), scale: "percent" };
  return { text: t, scale: "" };
}

export interface TatQaScore {
  em: number;
  f1: number;
}

/** Scores one prediction (free text, scale read from it) against a TAT-QA gold answer. */
export function scoreTatQa(prediction: string | string[] | null, gold: TatQaGold, predScale?: Scale): TatQaScore {
  if (prediction === null || (Array.isArray(prediction) ? !prediction.length : !prediction.trim())) return { em: 0, f1: 0 };
  const answers = goldAnswers(gold);
  if (!answers.length) return { em: 0, f1: 0 };
  let pred = Array.isArray(prediction) ? prediction : [prediction];
  let scale: Scale = predScale ?? "";
  if (predScale === undefined && pred.length === 1) {
    const split = splitScale(pred[0]);
    pred = [split.text];
    scale = split.scale;
  }
  const goldStrings = getAnswerStr(answers, gold.scale);
  const predStrings = addPercentPred(getAnswerStr(pred, scale), scale, pred);
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

/** The gold answer as a person reads it: "1,496.5 million", "fixed-price type; cost-plus type". */
export function tatQaAnswerText(gold: TatQaGold): string[] {
  const answers = goldAnswers(gold).map(String);
  const suffix = gold.scale === "percent" ? "%" : gold.scale ? ` ${gold.scale}` : "";
  return answers.map((a) => (isNumber(a) ? `${a}${suffix}` : a));
}
