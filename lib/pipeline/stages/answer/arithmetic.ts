import type { Operation } from "./table-question";

/**
 * TagOp's operators (Zhu et al. 2021) over located figures. Pure: operands in, a result or the reason
 * it cannot be computed out. Difference and change ratio take their operands in the order "new, old"
 * (the later period first, or the first-named item first): difference = new − old, change ratio =
 * (new − old) / old × 100. Division is a / b (× 100 when a percentage is asked for). Results keep two
 * decimals, as reports (and TAT-QA's answers) do.
 */

export type Computation = { ok: true; value: number } | { ok: false; problem: string };

/** How many operands each operator needs: [at least, at most]. */
export const ARITY: Record<Operation, [number, number]> = {
  sum: [2, 50],
  difference: [2, 2],
  average: [2, 50],
  multiplication: [2, 2],
  division: [2, 2],
  "change-ratio": [2, 2],
  count: [0, 1000],
};

export function round2(x: number): number {
  const r = Math.round((x + Number.EPSILON * Math.sign(x)) * 100) / 100;
  return Object.is(r, -0) ? 0 : r;
}

/**
 * Applies an operator. `names` say what each operand is ("2018", "Berlin"), so a problem names what
 * is missing or zero in the user's terms.
 */
export function compute(operation: Operation, values: number[], options: { percent?: boolean; names?: string[] } = {}): Computation {
  const [min, max] = ARITY[operation];
  if (values.length < min) {
    return {
      ok: false,
      problem: `it needs ${min === 2 && max === 2 ? "two figures" : `at least ${min} figures`} and the evidence gives ${values.length === 0 ? "none" : values.length === 1 ? "only one" : values.length}`,
    };
  }
  if (values.length > max) return { ok: false, problem: `it takes ${max} figures and the question names ${values.length}` };
  if (values.some((v) => !Number.isFinite(v))) return { ok: false, problem: "one of the figures is not a number" };
  const name = (i: number) => options.names?.[i] ?? `figure ${i + 1}`;
  switch (operation) {
    case "sum":
      return { ok: true, value: round2(values.reduce((a, b) => a + b, 0)) };
    case "average":
      return { ok: true, value: round2(values.reduce((a, b) => a + b, 0) / values.length) };
    case "difference":
      return { ok: true, value: round2(values[0] - values[1]) };
    case "multiplication":
      return { ok: true, value: round2(values[0] * values[1]) };
    case "division":
      if (values[1] === 0) return { ok: false, problem: `it would divide by zero (${name(1)} is 0)` };
      return { ok: true, value: round2((values[0] / values[1]) * (options.percent ? 100 : 1)) };
    case "change-ratio":
      if (values[1] === 0) return { ok: false, problem: `the change cannot be a percentage of zero (${name(1)} is 0)` };
      // TagOp's (new − old) / old as written: from a negative base ("(1,200)" to "(600)") the ratio's sign follows the base's, as in the reports' own tables.
      return { ok: true, value: round2(((values[0] - values[1]) / values[1]) * 100) };
    case "count":
      return { ok: true, value: values.length };
  }
}
