import type { Scalar } from "../types";
import type { JsonValue } from "./values";

/**
 * What to call a node in evidence text, previews and the entity index. Graphs name things in different
 * properties (movies: name/title; Northwind: productName, companyName; orders only have an orderID), so
 * one rule picks the property for every use and the same node always reads the same way.
 */

export interface CaptionChoice {
  key: string;
  /** "name": the value is the caption; "id": the caption is "<Label> <value>" (an order has no name). */
  kind: "name" | "id";
}

const EXACT_NAME_KEYS = ["name", "title", "label"];
/** Names that describe the node itself whatever its label (a Customer's companyName, a User's displayName). */
const GENERIC_NAME_KEYS = ["companyname", "fullname", "displayname", "display_name", "username", "user_name"];
const NAME_SUFFIX = /(?:[a-z0-9]Name|_name|[a-z0-9]Title|_title)$/;
const MAX_CAPTION_CHARS = 80;

/** Picks the caption property among the keys a node (or a label's sample) has. */
export function chooseCaptionKey(labels: string[], keys: string[]): CaptionChoice | null {
  const sorted = [...keys].sort();
  for (const exact of EXACT_NAME_KEYS) {
    const key = sorted.find((k) => k.toLowerCase() === exact);
    if (key) return { key, kind: "name" };
  }
  const lowerLabels = labels.map((l) => l.toLowerCase());
  const named = sorted.filter((k) => NAME_SUFFIX.test(k));
  // A Product's productName; then names of the node itself; then its own id, because other *Name keys
  // usually name something else (an Order's shipName is the consignee, not the order).
  const own = named.find((k) => lowerLabels.some((l) => k.toLowerCase().startsWith(l)));
  if (own) return { key: own, kind: "name" };
  for (const generic of GENERIC_NAME_KEYS) {
    const key = sorted.find((k) => k.toLowerCase() === generic);
    if (key) return { key, kind: "name" };
  }
  const idKey = sorted.find((k) => {
    const lower = k.toLowerCase();
    return lowerLabels.some((l) => lower === `${l}id` || lower === `${l}_id`);
  });
  if (idKey) return { key: idKey, kind: "id" };
  if (named[0]) return { key: named[0], kind: "name" };
  const plainId = sorted.find((k) => k.toLowerCase() === "id");
  return plainId ? { key: plainId, kind: "id" } : null;
}

function shorten(text: string): string {
  const clean = text.replace(/\s+/g, " ").trim();
  return clean.length > MAX_CAPTION_CHARS ? `${clean.slice(0, MAX_CAPTION_CHARS - 1)}…` : clean;
}

function captionText(value: JsonValue | undefined): string | null {
  if (typeof value === "string") return value.trim() ? shorten(value) : null;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

/** The caption of one node: the chosen property, else its first string property, else its element id. */
export function nodeCaption(node: { id: string; labels: string[]; properties: Record<string, JsonValue> }): string {
  const choice = chooseCaptionKey(node.labels, Object.keys(node.properties));
  if (choice) {
    const text = captionText(node.properties[choice.key]);
    if (text) return choice.kind === "id" ? `${node.labels[0] ?? "Node"} ${text}` : text;
  }
  for (const key of Object.keys(node.properties).sort()) {
    const value = node.properties[key];
    if (typeof value === "string" && value.trim()) return shorten(value);
  }
  return node.id;
}

/** Property values as PathNode/PathEdge want them: scalars and lists of scalars; maps become JSON text. */
export function scalarProperties(properties: Record<string, JsonValue>, maxChars = 500): Record<string, Scalar | Scalar[]> {
  const out: Record<string, Scalar | Scalar[]> = {};
  for (const key of Object.keys(properties).sort()) {
    const value = properties[key];
    out[key] = Array.isArray(value) ? value.map((v) => toScalar(v, maxChars)) : toScalar(value, maxChars);
  }
  return out;
}

/** One value as a table cell: long text is cut (a Northwind picture is 10 kB of hex), structures become JSON. */
export function toScalar(value: JsonValue | undefined, maxChars = 500): Scalar {
  if (value === undefined || value === null) return null;
  if (typeof value === "number" || typeof value === "boolean") return value;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
