import { maxAssignment } from "./assignment";
import { answerTokens, normalizeAnswer, numberStates, parseNumberToken, shownDecimals, splitListAnswer, tokenF1 } from "./normalize";

/**
 * Answer accuracy for every suite but TAT-QA (which has its own rules, tatqa.ts):
 * - exact match and F1 as SQuAD defines them (normalized strings; token-overlap F1, best over the
 *   accepted answers), and for list answers as DROP does (the answer split into items, items aligned
 *   one-to-one by the assignment that maximises F1, items with numbers only matching items holding one
 *   of those numbers);
 * - P@1 (Quasar): the top answer is correct. It is judged as a person would: a number counts when it
 *   states the gold value at the precision it was written with ("76.67" for 76.666…), "6 singers" states
 *   6, and a list counts when it names exactly the gold items in any order.
 */

export interface AnswerGold {
  answers: string[];
  /** The answer is a set of items (several result rows). */
  list: boolean;
  /** The question, so a numeric answer may restate its words ("6 singers"). */
  question?: string;
}

export interface AnswerScore {
  p1: boolean;
  em: number;
  f1: number;
}

const NONE: AnswerScore = { p1: false, em: 0, f1: 0 };
/** Beyond this many items a list answer is scored on its first items only (a bounded cost per question). */
const MAX_ITEMS = 200;

/** Numbers written in a text, with the precision each was written with. */
function numbersIn(text: string): { value: number; decimals: number }[] {
  const out: { value: number; decimals: number }[] = [];
  for (const raw of text.split(/\s+/)) {
    const n = parseNumberToken(raw);
    if (n) out.push({ value: n.value, decimals: shownDecimals(raw) });
  }
  return out;
}

/** Words a numeric answer may carry besides its number and the question's own words. */
const UNIT_WORDS = new Set([
  "percent",
  "eur",
  "euro",
  "euros",
  "usd",
  "dollar",
  "dollars",
  "gbp",
  "sek",
  "nok",
  "million",
  "millions",
  "thousand",
  "thousands",
  "billion",
  "billions",
  "about",
  "approximately",
  "around",
]);

/**
 * Lenient single-value correctness: normalized equality; or, for a numeric gold, the one number the
 * answer states equals it at the precision it was written with, and every other word of the answer is a
 * unit or restates the question ("6 singers" for "How many singers…?" states 6; "2 years" for "How many
 * products…?" does not).
 */
export function statesValue(pred: string, gold: string, question = ""): boolean {
  const p = normalizeAnswer(pred);
  const g = normalizeAnswer(gold);
  if (p && p === g) return true;
  const goldNumbers = numbersIn(gold);
  if (goldNumbers.length !== 1 || answerTokens(gold).filter((t) => t !== "percent").length !== 1) return false;
  const predNumbers = numbersIn(pred);
  if (predNumbers.length !== 1 || !numberStates(predNumbers[0].value, predNumbers[0].decimals, goldNumbers[0].value)) return false;
  const asked = new Set(answerTokens(question));
  const stem = (w: string) => w.replace(/(es|s)$/, "");
  const askedStems = new Set([...asked].map(stem));
  return answerTokens(pred).every((t) => Number.isFinite(Number(t)) || UNIT_WORDS.has(t) || asked.has(t) || askedStems.has(stem(t)));
}

function numbersMatchIfPresent(goldTokens: string[], predTokens: string[]): boolean {
  const isNum = (t: string) => t !== "" && Number.isFinite(Number(t));
  const gold = goldTokens.filter(isNum);
  if (!gold.length) return true;
  const pred = new Set(predTokens.filter(isNum));
  return gold.some((g) => pred.has(g));
}

/** DROP's multi-span F1: items aligned one-to-one, mean of the aligned F1 over the larger list. */
export function alignedListF1(predItems: string[][], goldItems: string[][]): number {
  if (!predItems.length && !goldItems.length) return 1;
  if (!predItems.length || !goldItems.length) return 0;
  const scores = goldItems.map((g) => predItems.map((p) => (numbersMatchIfPresent(g, p) ? tokenF1(p, g) : 0)));
  const match = maxAssignment(scores);
  let sum = 0;
  match.forEach((j, i) => {
    if (j >= 0) sum += scores[i][j];
  });
  return sum / Math.max(goldItems.length, predItems.length);
}

function distinct(items: string[]): string[] {
  return [...new Set(items)];
}

export function scoreAnswer(pred: string | null, gold: AnswerGold): AnswerScore {
  if (pred === null || !pred.trim() || !gold.answers.length) return NONE;
  if (!gold.list) {
    let em = 0;
    let f1 = 0;
    let p1 = false;
    const p = answerTokens(pred);
    for (const g of gold.answers) {
      const gt = answerTokens(g);
      if (p.join(" ") === gt.join(" ")) em = 1;
      f1 = Math.max(f1, tokenF1(p, gt));
      if (statesValue(pred, g, gold.question)) p1 = true;
    }
    return { p1: p1 || em === 1, em, f1 };
  }
  const goldRaw = gold.answers
    .slice(0, MAX_ITEMS)
    .filter((g, i, all) => normalizeAnswer(g) && all.findIndex((x) => normalizeAnswer(x) === normalizeAnswer(g)) === i);
  const goldItems = goldRaw.map(normalizeAnswer);
  const rawPred = splitListAnswer(pred).slice(0, MAX_ITEMS);
  const predItems = distinct(rawPred.map(normalizeAnswer)).filter(Boolean);
  const em = predItems.length === goldItems.length && predItems.every((p) => goldItems.includes(p)) ? 1 : 0;
  const f1 = alignedListF1(
    predItems.map((p) => p.split(" ")),
    goldItems.map((g) => g.split(" ")),
  );
  // P@1 for a list: every gold item stated by exactly one answer item, and nothing else.
  let p1 = em === 1;
  if (!p1 && rawPred.length === goldRaw.length) {
    const used = new Set<number>();
    p1 = goldRaw.every((g) => {
      const i = rawPred.findIndex((p, idx) => !used.has(idx) && statesValue(p, g, gold.question));
      if (i < 0) return false;
      used.add(i);
      return true;
    });
  }
  return { p1, em, f1 };
}

/**
 * Does an answer say that nothing matched ("No sales are recorded for 2023.", "There are no customers in
 * Berlin.", "None.")? For questions whose true answer is that nothing is recorded (Gold
 * `unanswerable.nothingRecorded`): such an answer is right, as refraining is; an answer that names a
 * value is wrong. It must say so up front: "No. 1 is the Trail Runner 2" or a value followed by "none
 * other" does not count.
 */
export function statesNothing(text: string | null): boolean {
  if (text === null) return false;
  const t = text.trim().toLowerCase();
  return (
    /^(no|none|nothing|zero)\b(?!\.\s*\d)/.test(t) ||
    /^there (is|are|was|were) (no|none|nothing)\b/.test(t) ||
    /^(the|this) (query|search) (returned|found) (no|nothing|0|zero)\b/.test(t)
  );
}
