import neo4j from "neo4j-driver";
import type { EntityIndexEntry } from "../types";
import { readInternal, type ReadTarget } from "./read";
import { quoteName, type GraphSchema } from "./schema";
import { toJsonValue } from "./values";

/**
 * What a question may name in this graph, for entity linking: the schema's own words (labels,
 * relationship types, property keys, in readable form), the values of low-cardinality text properties
 * ("Germany", "Beverages"), and node captions ("Tom Hanks", "Chai"). Bounded by `limit`, schema
 * words first because they are few and every question uses them.
 */

/** "ACTED_IN" → "acted in", "unitPrice" → "unit price": how a question would say it. */
export function readableName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase();
}

const MAX_VALUE_CHARS = 60;
/** Text properties with at most this many distinct sampled values are categories worth linking. */
const MAX_CATEGORY_VALUES = 30;
/** A category that repeats no value (every node its own) is an identifier column, not a category. */
function looksLikeCategory(distinct: number, sampled: number): boolean {
  return distinct > 0 && distinct <= MAX_CATEGORY_VALUES && distinct < sampled;
}

export async function buildEntityIndex(target: ReadTarget, schema: GraphSchema, limit: number): Promise<EntityIndexEntry[]> {
  const out: EntityIndexEntry[] = [];
  const seen = new Set<string>();
  const push = (e: EntityIndexEntry) => {
    const key = `${e.kind}|${e.ref}|${e.label}`;
    if (out.length < limit && e.label && !seen.has(key)) {
      seen.add(key);
      out.push(e);
    }
  };

  for (const l of schema.labels) push({ label: l.label, kind: "label", ref: l.label, sourceObject: l.label });
  for (const t of schema.relationshipTypes) {
    const from = schema.patterns.find((p) => p.type === t.type)?.from ?? null;
    push({ label: readableName(t.type), kind: "predicate", ref: t.type, sourceObject: from });
  }
  for (const l of schema.labels) {
    for (const p of l.properties) push({ label: readableName(p.key), kind: "column", ref: `${l.label}.${p.key}`, sourceObject: l.label });
  }
  for (const l of schema.labels) {
    for (const p of l.properties) {
      if (p.type !== "STRING" || p.key === l.caption?.key || !looksLikeCategory(p.distinct.length, l.sampled)) continue;
      for (const v of p.distinct) {
        // "NULL" is how CSV imports spell a missing value; no question names it.
        if (v.trim() && v.length <= MAX_VALUE_CHARS && v.toUpperCase() !== "NULL")
          push({ label: v, kind: "value", ref: `${l.label}.${p.key}=${v}`, sourceObject: l.label });
      }
    }
  }

  // Node captions take what is left, shared fairly so one huge label does not crowd out the others.
  const captioned = schema.labels.filter((l) => l.caption);
  for (let i = 0; i < captioned.length && out.length < limit; i++) {
    const l = captioned[i]!;
    const caption = l.caption!;
    const share = Math.max(1, Math.floor((limit - out.length) / (captioned.length - i)));
    const { records } = await readInternal(
      target,
      `MATCH (n:${quoteName(l.label)}) WHERE n.${quoteName(caption.key)} IS NOT NULL RETURN elementId(n) AS id, n.${quoteName(caption.key)} AS caption LIMIT $limit`,
      { limit: neo4j.int(share) },
      { maxRows: share },
    );
    for (const r of records) {
      const value = toJsonValue(r.get("caption"));
      if (typeof value !== "string" && typeof value !== "number") continue;
      const text = String(value).replace(/\s+/g, " ").trim();
      if (!text || text.length > MAX_VALUE_CHARS * 2) continue;
      push({ label: caption.kind === "id" ? `${l.label} ${text}` : text, kind: "node", ref: String(r.get("id")), sourceObject: l.label });
    }
  }
  return out;
}
