import { formatFigure } from "../../../tables/format";
import type { Derivation, DerivationOperand } from "../../contracts";
import type { Operation } from "./table-question";
import { CURRENCY_SYMBOL_PATTERN } from "../../../data/currencies";

/** A unit that is only a currency symbol ("€", "NZ$"): the figure is written after it. */
const CURRENCY_SYMBOL_ONLY = new RegExp(`^(?:${CURRENCY_SYMBOL_PATTERN})$`);

/**
 * The written form of a computed answer: the expression with the operands as the source writes them
 * ("(2,119 − 1,800) / 1,800 = 17.72%") and the answer text with its scale ("17.72%", "-4,931
 * thousand", "$3,169.5 million"), so a reader sees how the figure was obtained and a scorer reads
 * its scale.
 */

export type ResultScale = Derivation["scale"];

/** An operand in an expression: its figure without currency, negatives in parentheses so signs read unambiguously. */
function operandText(o: DerivationOperand): string {
  const figure = formatFigure(o.value, { maxDecimals: 6, typographicMinus: true });
  return o.value < 0 ? `(${figure})` : figure;
}

function resultText(value: number, scale: ResultScale): string {
  const figure = formatFigure(value, { typographicMinus: true });
  if (scale === "percent") return `${figure}%`;
  return scale ? `${figure} ${scale}` : figure;
}

export function expressionOf(
  operation: Operation,
  operands: DerivationOperand[],
  result: number,
  scale: ResultScale,
  percentDivision = false,
): string {
  const t = operands.map(operandText);
  const rhs = resultText(result, scale);
  switch (operation) {
    case "sum":
      return `${t.join(" + ")} = ${rhs}`;
    case "difference":
      return `${t[0]} − ${t[1]} = ${rhs}`;
    case "average":
      return `(${t.join(" + ")}) / ${t.length} = ${rhs}`;
    case "multiplication":
      return `${t[0]} × ${t[1]} = ${rhs}`;
    case "division":
      return percentDivision ? `${t[0]} / ${t[1]} × 100 = ${rhs}` : `${t[0]} / ${t[1]} = ${rhs}`;
    case "change-ratio":
      return `(${t[0]} − ${t[1]}) / ${t[1]} × 100 = ${rhs}`;
    case "count":
      return `${operands.length} counted = ${rhs}`;
  }
}

/**
 * The answer as stated: the rounded result with a shared currency symbol in front (never for
 * percentages or ratios) and the scale word after ("$3,169.5 million", "-6.75%", "0.59", "12").
 */
export function answerTextOf(result: number, scale: ResultScale, unit: string | null): string {
  const figure = formatFigure(result);
  if (scale === "percent") return `${figure}%`;
  const scaled = (text: string) => (scale ? `${text} ${scale}` : text);
  if (unit && (CURRENCY_SYMBOL_ONLY.test(unit) || /\$$/.test(unit)))
    return scaled(result < 0 ? `-${unit}${figure.slice(1)}` : `${unit}${figure}`);
  return unit ? `${scaled(figure)} ${unit}` : scaled(figure);
}
