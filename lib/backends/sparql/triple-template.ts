import { Parser } from "sparqljs";
import type { RdfTerm } from "./rdf-terms";

/**
 * Which SELECT results are really triples. A row binds a triple when one triple pattern of the query
 * uses exactly the projected variables (and constants): `SELECT ?price WHERE { item:anvil shop:price ?price }`
 * gives (item:anvil, shop:price, ?price) per row. Results named ?s ?p ?o count too when the query
 * cannot be read. Everything else is a table row.
 */

export type Slot = { variable: string } | { term: RdfTerm };

export interface TripleTemplate {
  subject: Slot;
  predicate: Slot;
  object: Slot;
}

export type ResultShape = { form: "SELECT" | "ASK" | "CONSTRUCT" | "DESCRIBE" | null; template: TripleTemplate | null };

interface QueryTerm {
  termType?: string;
  value?: string;
  language?: string;
  datatype?: { value: string };
}

function slotOf(t: QueryTerm | { type: string }): Slot | null {
  const term = t as QueryTerm;
  if (term.termType === "Variable" && term.value) return { variable: term.value };
  if (term.termType === "NamedNode" && term.value) return { term: { termType: "NamedNode", value: term.value } };
  if (term.termType === "Literal" && term.value !== undefined) {
    return term.language
      ? { term: { termType: "Literal", value: term.value, language: term.language } }
      : { term: { termType: "Literal", value: term.value, datatype: term.datatype?.value } };
  }
  // Blank nodes and property paths (`a/b`, `a*`) do not name one triple.
  return null;
}

/** Triple patterns of the query's own WHERE (OPTIONAL, UNION, GRAPH included; sub-queries and filters not). */
function collectPatterns(node: unknown, out: { subject: unknown; predicate: unknown; object: unknown }[]): void {
  if (Array.isArray(node)) {
    for (const n of node) collectPatterns(n, out);
    return;
  }
  if (!node || typeof node !== "object") return;
  const o = node as { type?: string; triples?: unknown[]; patterns?: unknown[] };
  if (o.type === "bgp" && Array.isArray(o.triples)) {
    out.push(...(o.triples as { subject: unknown; predicate: unknown; object: unknown }[]));
    return;
  }
  if (o.type && ["group", "optional", "union", "graph"].includes(o.type)) collectPatterns(o.patterns, out);
}

const SUBJECT_NAMES = ["s", "subject", "sub"];
const PREDICATE_NAMES = ["p", "predicate", "pred", "property", "prop", "relation", "rel"];
const OBJECT_NAMES = ["o", "object", "obj", "value"];

function byName(columns: string[]): TripleTemplate | null {
  if (columns.length !== 3) return null;
  const find = (names: string[]) => columns.find((c) => names.includes(c.toLowerCase()));
  const [s, p, o] = [find(SUBJECT_NAMES), find(PREDICATE_NAMES), find(OBJECT_NAMES)];
  return s && p && o ? { subject: { variable: s }, predicate: { variable: p }, object: { variable: o } } : null;
}

export function resultShape(queryText: string, columns: string[]): ResultShape {
  let parsed: { type?: string; queryType?: string; where?: unknown };
  try {
    parsed = new Parser().parse(queryText) as typeof parsed;
  } catch {
    return { form: null, template: byName(columns) };
  }
  const form = (parsed.queryType as ResultShape["form"]) ?? null;
  if (form !== "SELECT") return { form, template: null };
  const patterns: { subject: unknown; predicate: unknown; object: unknown }[] = [];
  collectPatterns(parsed.where, patterns);
  const wanted = new Set(columns);
  for (const p of patterns) {
    const slots = [slotOf(p.subject as QueryTerm), slotOf(p.predicate as QueryTerm), slotOf(p.object as QueryTerm)];
    if (slots.some((s) => s === null)) continue;
    const vars = new Set(slots.flatMap((s) => (s && "variable" in s ? [s.variable] : [])));
    if (vars.size === 0 || vars.size !== wanted.size || ![...vars].every((v) => wanted.has(v))) continue;
    return { form, template: { subject: slots[0]!, predicate: slots[1]!, object: slots[2]! } };
  }
  return { form, template: byName(columns) };
}

/** The constant IRIs of a template, whose labels the records cannot carry. */
export function templateConstants(template: TripleTemplate | null): string[] {
  if (!template) return [];
  return [template.subject, template.predicate, template.object].flatMap((s) =>
    "term" in s && s.term.termType === "NamedNode" ? [s.term.value] : [],
  );
}
