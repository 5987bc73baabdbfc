/**
 * Figures written back the way reports write them: thousands separators, at most two decimals (as
 * the result was rounded), an ASCII minus in answers (so any reader, person or parser, takes it as a
 * number) and the typographic minus "−" in displayed expressions.
 */

export function formatFigure(
  value: number,
  options: { maxDecimals?: number; minDecimals?: number; typographicMinus?: boolean } = {},
): string {
  const maxDecimals = options.maxDecimals ?? 2;
  const minDecimals = Math.min(options.minDecimals ?? 0, maxDecimals);
  const abs = Math.abs(value);
  const text = abs.toLocaleString("en-US", { minimumFractionDigits: minDecimals, maximumFractionDigits: maxDecimals, useGrouping: true });
  const negative = value < 0 && Number(text.replace(/,/g, "")) !== 0;
  return negative ? `${options.typographicMinus ? "−" : "-"}${text}` : text;
}
