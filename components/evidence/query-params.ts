import type { Scalar } from "@/lib/backends/types";

export interface QueryParamLine {
  /** The parameter as the query writes it: "$p0" in Cypher and SQL, "?p0" in SPARQL. */
  name: string;
  /** Its value as a literal: strings quoted, numbers and booleans as written, null as null. */
  value: string;
}

/**
 * The values a parameterised query was run with, in the order they were bound. The query's text says
 * only "WHERE c.name = $p0"; without these a reader cannot see what it filtered on, nor re-run it.
 */
export function queryParamLines(params: Record<string, Scalar> | undefined, language: string): QueryParamLine[] {
  const sigil = language === "sparql" ? "?" : "$";
  return Object.entries(params ?? {}).map(([name, value]) => ({
    name: `${sigil}${name}`,
    value: typeof value === "string" ? JSON.stringify(value) : String(value),
  }));
}
