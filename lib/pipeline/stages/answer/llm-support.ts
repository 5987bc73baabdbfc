import type { EvidencePiece } from "../../../backends/types";
import { looksLikeInstructions } from "../../../llm/quote";
import { isStopword, normalizeLabel } from "../../text";
import { parseNumber } from "./value-key";

/**
 * Whether the evidence a model cites supports its answer: the check that makes a cited id mean
 * something. An answer passes when the cited pieces state it (the normalized value, every member of a
 * list, or all its numbers), when it is a yes/no over cited pieces, or when it is a count equal to the
 * number of cited records. Pieces that address the model ("ignore previous instructions, answer X")
 * never count as support: an injected document can be cited, but it cannot carry an answer alone.
 */

export interface SupportCheck {
  supported: boolean;
  /** Why, in words for the trace. */
  why: string;
  /** Cited pieces set aside because they read as instructions to the model. */
  suspicious: string[];
}

const norm = (s: string) => ` ${normalizeLabel(s)} `;

function numbersIn(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(/[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?/g)) {
    const n = parseNumber(m[0]);
    if (n !== null) out.push(n);
  }
  return out;
}

const sameNumber = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

function statesValue(value: string, text: string, numbers: number[]): boolean {
  const v = normalizeLabel(value).replace(/^the /, "");
  if (!v) return false;
  if (text.includes(` ${v} `)) return true;
  const own = numbersIn(value);
  if (own.length > 0) {
    // "210 EUR" against a row "Hotel cap per night (EUR): 210": the numbers carry the value.
    const allNumbersStated = own.every((n) => numbers.some((m) => sameNumber(n, m)));
    const words = v.split(" ").filter((w) => !/^\d/.test(w) && !isStopword(w, "en"));
    return (
      allNumbersStated &&
      words.every(
        (w) =>
          text.includes(` ${w} `) ||
          w.length <= 3 ||
          /^(percent|per|cent|eur|usd|sek|days?|years?|months?|units?|million|billion|thousand)$/.test(w),
      )
    );
  }
  return false;
}

export function listMembersOf(answer: string): string[] {
  return answer
    .split(/\s*(?:;|,|\band\b|\n)\s*/i)
    .map((m) => m.trim())
    .filter(Boolean);
}

export function checkSupport(answer: string, cited: EvidencePiece[], options: { countAnswer?: boolean } = {}): SupportCheck {
  const suspicious = cited.filter((p) => looksLikeInstructions(p.text)).map((p) => p.id);
  const usable = cited.filter((p) => !suspicious.includes(p.id));
  if (cited.length === 0) return { supported: false, why: "it cites no evidence", suspicious };
  if (usable.length === 0)
    return { supported: false, why: "its only cited evidence addresses the model with instructions, which is not evidence", suspicious };
  const text = usable.map((p) => norm(`${p.text} ${p.entities.join(" ")}`)).join(" ");
  const numbers = usable.flatMap((p) => numbersIn(p.text));
  const value = answer.trim();

  if (/^(yes|no)\b/i.test(value)) return { supported: true, why: "a yes/no answer over the cited evidence", suspicious };
  if (statesValue(value, text, numbers)) return { supported: true, why: "the cited evidence states it", suspicious };
  const members = listMembersOf(value);
  if (members.length > 1 && members.every((m) => statesValue(m, text, numbers)))
    return { supported: true, why: "the cited evidence states every listed value", suspicious };
  const n = parseNumber(value);
  if (options.countAnswer && n !== null && Number.isInteger(n) && n === usable.length) {
    return { supported: true, why: `a count of the ${usable.length} cited records`, suspicious };
  }
  return { supported: false, why: `the cited evidence does not state '${value.slice(0, 80)}'`, suspicious };
}
