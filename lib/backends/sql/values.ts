import type { Scalar } from "../types";

/**
 * Engine values made JSON-safe for RawResult records: a record travels to the browser and into run
 * traces, so no BigInt, Buffer or Date objects survive. Large integers that a JS number cannot hold
 * exactly stay strings (digits intact) rather than silently rounding.
 */
export function toJsonSafe(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "bigint":
      return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
    default:
      break;
  }
  if (value instanceof Uint8Array) return `<binary ${value.byteLength} bytes>`;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value)) return value.map(toJsonSafe);
  if (typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonSafe(v)]));
  return String(value);
}

/** A JSON-safe value as one table cell (arrays and JSON documents are shown as their JSON text). */
export function toScalar(value: unknown): Scalar {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  return JSON.stringify(value);
}

const NUMERIC = /^[-+]?(\d+([.,]\d+)*|\.\d+)([eE][-+]?\d+)?%?$/;
const DATE_LIKE = /^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Whether a cell value reads like a name a question could mention ("France", "Joe Sharp", "ACME
 * GmbH"): short, with a letter, not a number, date, binary placeholder or sentence.
 */
export function looksLikeName(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const v = value.trim();
  if (v.length < 2 || v.length > 60 || !/\p{L}/u.test(v)) return false;
  if (NUMERIC.test(v) || DATE_LIKE.test(v) || v.startsWith("<binary ") || /^[[{]/.test(v)) return false;
  return v.split(/\s+/).length <= 8;
}

/** "Singer_ID" → "Singer ID", "songReleaseYear" → "song Release Year": column names as words for linking. */
export function identifierWords(name: string): string {
  return name
    .replace(/[_\-.]+/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/\s+/g, " ")
    .trim();
}
