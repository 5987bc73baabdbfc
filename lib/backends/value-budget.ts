import { ResultTooLargeError } from "./errors";

/**
 * Byte budgets for results that arrive as JSON-like values (Neo4j records, remote SPARQL answers): every
 * string longer than the per-value budget is cut with a visible mark, and the whole result is counted
 * as it streams, so it can be stopped past the result budget. Engines that can measure before sending
 * do so themselves (PostgreSQL, the SQLite and Oxigraph processes) and use the same mark.
 */
export interface ResultBudget {
  maxValueBytes: number;
  maxResultBytes: number;
  /** Bytes counted so far. */
  used: number;
}

export function resultBudget(limits: { maxValueBytes: number; maxResultBytes: number }): ResultBudget {
  return { maxValueBytes: limits.maxValueBytes, maxResultBytes: limits.maxResultBytes, used: 0 };
}

/** The mark a cut value ends with, the same for every engine. */
export function cutMark(head: string, bytes: number, maxValueBytes: number): string {
  return `${head}… [cut: the value is ${bytes.toLocaleString("en")} bytes long; values are kept up to ${maxValueBytes.toLocaleString("en")} bytes]`;
}

/** A string within the per-value budget, cut (at a character boundary) and marked when longer. */
export function boundedString(value: string, maxValueBytes: number): string {
  if (value.length * 3 <= maxValueBytes) return value;
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes <= maxValueBytes) return value;
  const head = Buffer.from(value.slice(0, maxValueBytes), "utf8")
    .subarray(0, maxValueBytes)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  return cutMark(head, bytes, maxValueBytes);
}

/**
 * Cuts long strings inside a JSON value (objects and arrays, however nested, walked without recursion)
 * and charges its size to the budget; throws ResultTooLargeError once the result is over budget.
 * Returns the value, with its strings replaced where they were cut.
 */
export function chargeValue<T>(value: T, budget: ResultBudget, query: string): T {
  const charge = (bytes: number) => {
    budget.used += bytes;
    if (budget.used > budget.maxResultBytes) throw new ResultTooLargeError(budget.maxResultBytes, query);
  };
  if (typeof value === "string") {
    const bounded = boundedString(value, budget.maxValueBytes);
    charge(bounded.length);
    return bounded as T;
  }
  if (typeof value !== "object" || value === null) {
    charge(8);
    return value;
  }
  const stack: (Record<string, unknown> | unknown[])[] = [value as Record<string, unknown>];
  while (stack.length > 0) {
    const container = stack.pop()!;
    const keys: (string | number)[] = Array.isArray(container) ? container.map((_, i) => i) : Object.keys(container);
    for (const key of keys) {
      const v = (container as Record<string | number, unknown>)[key];
      if (typeof v === "string") {
        const bounded = boundedString(v, budget.maxValueBytes);
        (container as Record<string | number, unknown>)[key] = bounded;
        charge(bounded.length + String(key).length);
      } else if (typeof v === "object" && v !== null) {
        charge(String(key).length + 2);
        stack.push(v as Record<string, unknown>);
      } else {
        charge(8 + String(key).length);
      }
    }
  }
  return value;
}
