import { evidenceId, labelFromIri, linearizePath, linearizeRow, linearizeTriple } from "../evidence";
import {
  COMPUTED_ROWS_TABLE,
  type EvidencePiece,
  type PathData,
  provenanceParams,
  type RawResult,
  type RowData,
  type Scalar,
  type TermData,
  type TripleData,
} from "../types";
import { type RdfTerm, isNumericLiteral } from "./rdf-terms";
import { type Slot, type TripleTemplate, resultShape } from "./triple-template";

/**
 * Quasar's verbalization of SPARQL results: triples as "subject predicate object" with labels, other
 * bindings as a table row "Query result / var: value, …". Pure: labels were attached to the records by
 * execute(), and constants of the query come from the backend's label cache.
 */

export const RESULT_TABLE = COMPUTED_ROWS_TABLE;
const TRIPLE_COLUMNS = ["subject", "predicate", "object"];

export interface VerbalizeContext {
  kbId: string;
  kbName: string;
  /** Labels known for IRIs that the records do not carry (constants written in the query). */
  knownLabel(iri: string): string | undefined;
}

function isTerm(v: unknown): v is RdfTerm {
  return !!v && typeof v === "object" && typeof (v as RdfTerm).value === "string" && typeof (v as RdfTerm).termType === "string";
}

function labelOf(t: RdfTerm, ctx: VerbalizeContext): string {
  if (t.label) return t.label;
  if (t.termType === "NamedNode") return ctx.knownLabel(t.value) ?? (labelFromIri(t.value) || t.value);
  if (t.termType === "BlankNode") return `_:${t.value}`;
  return t.value;
}

function termData(t: RdfTerm, ctx: VerbalizeContext): TermData {
  const d: TermData = { value: t.value, label: labelOf(t, ctx), termType: t.termType };
  if (t.datatype) d.datatype = t.datatype;
  if (t.language) d.language = t.language;
  if (t.class) d.classLabel = ctx.knownLabel(t.class) ?? labelFromIri(t.class);
  return d;
}

/** Numbers stay numbers in rows so answer scoring can compare them; everything else is its label. */
function scalarOf(t: RdfTerm | null, ctx: VerbalizeContext): Scalar {
  if (!t) return null;
  if (isNumericLiteral(t)) {
    const n = Number(t.value);
    if (Number.isFinite(n) && (Number.isSafeInteger(n) || !Number.isInteger(n))) return n;
  }
  if (t.termType === "Literal" && t.datatype?.endsWith("#boolean")) return t.value === "true" || t.value === "1";
  return labelOf(t, ctx);
}

function fill(slot: Slot, record: Record<string, unknown>): RdfTerm | null {
  if ("term" in slot) return slot.term;
  const v = record[slot.variable];
  return isTerm(v) ? v : null;
}

function entityNames(terms: (RdfTerm | null)[], ctx: VerbalizeContext): string[] {
  const names = terms
    .filter((t): t is RdfTerm => !!t && !isNumericLiteral(t) && t.termType !== "BlankNode")
    .map((t) => labelOf(t, ctx))
    .filter((s) => s.length > 0 && s.length <= 200);
  return [...new Set(names)];
}

export function verbalizeSparqlResult(
  result: RawResult,
  ctx: VerbalizeContext,
  options: { sourceObject?: string | null } = {},
): EvidencePiece[] {
  const shape = resultShape(result.query.text, result.columns);
  const graphForm =
    shape.form === "CONSTRUCT" || shape.form === "DESCRIBE" || (shape.form === null && result.columns.join() === TRIPLE_COLUMNS.join());
  const template: TripleTemplate | null = graphForm
    ? { subject: { variable: "subject" }, predicate: { variable: "predicate" }, object: { variable: "object" } }
    : shape.template;

  const provenanceBase = {
    kb: ctx.kbId,
    kbName: ctx.kbName,
    query: result.query.text,
    ...provenanceParams(result.query),
    language: "sparql" as const,
  };
  const pieces: EvidencePiece[] = [];
  const hops = pathHops(result.columns);
  result.records.forEach((record, rowIndex) => {
    if (hops > 0) {
      const path = pathPiece(record, hops, ctx, options, provenanceBase);
      if (path) {
        pieces.push(path);
        return;
      }
    }
    if (template) {
      const [s, p, o] = [fill(template.subject, record), fill(template.predicate, record), fill(template.object, record)];
      if (s && p && o && s.termType !== "Literal" && p.termType === "NamedNode") {
        const data: TripleData = { subject: termData(s, ctx), predicate: termData(p, ctx), object: termData(o, ctx) };
        const location = { subject: s.value, predicate: p.value, object: o.value };
        pieces.push({
          id: evidenceId(ctx.kbId, "triple", location),
          kind: "triple",
          text: linearizeTriple(data.subject.label, data.predicate.label, data.object.label),
          provenance: {
            ...provenanceBase,
            sourceObject: options.sourceObject !== undefined ? options.sourceObject : (s.class ?? null),
            location,
          },
          entities: entityNames([s, o], ctx),
          data,
        });
        return;
      }
    }
    pieces.push(rowPiece(result, record, rowIndex, ctx, options, provenanceBase));
  });
  return pieces;
}

function rowPiece(
  result: RawResult,
  record: Record<string, unknown>,
  rowIndex: number,
  ctx: VerbalizeContext,
  options: { sourceObject?: string | null },
  provenanceBase: { kb: string; kbName: string; query: string; language: "sparql" },
): EvidencePiece {
  const columns = result.columns;
  const terms = columns.map((c) => {
    const v = record[c];
    return isTerm(v) ? v : null;
  });
  // ASK answers and other plain values (not RDF terms) are shown as they are.
  const values: Scalar[] = columns.map((c, i) => {
    const v = record[c];
    if (terms[i]) return scalarOf(terms[i], ctx);
    return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : null;
  });
  const data: RowData = { table: RESULT_TABLE, columns, values, rowIndex };
  // The id depends on what the row says, not on where it came out in this result, so the same fact
  // cited from two queries is one piece.
  const content = JSON.stringify(columns.map((c, i) => [c, terms[i]?.value ?? values[i]]));
  const firstClass = terms.find((t) => t?.class)?.class ?? null;
  return {
    id: evidenceId(ctx.kbId, "row", { content }),
    kind: "row",
    text: linearizeRow(RESULT_TABLE, undefined, columns, values),
    provenance: {
      ...provenanceBase,
      sourceObject: options.sourceObject !== undefined ? options.sourceObject : firstClass,
      location: { row: rowIndex },
    },
    entities: entityNames(terms, ctx),
    data,
  };
}

// ---------------------------------------------------------------------------------------------
// Paths: a SELECT whose variables are ?n0 ?p1 ?n1 [?p2 ?n2 …] (and optionally ?d1 ?d2 … = "out"/"in",
// the direction of each hop) is a walk through the graph. Each result row becomes one path piece, as
// Neo4j paths do, so a chain "Fjord Down Jacket -made by-> Fjelltex Textiles -located in-> Oslo" is one
// piece of evidence that shows how the answer connects to the question's entity.

/** The number of hops when the columns spell a path (n0, p1, n1, …), else 0. */
export function pathHops(columns: string[]): number {
  const set = new Set(columns);
  if (!set.has("n0") || !set.has("p1") || !set.has("n1")) return 0;
  let hops = 1;
  while (set.has(`p${hops + 1}`) && set.has(`n${hops + 1}`)) hops++;
  return hops;
}

function pathPiece(
  record: Record<string, unknown>,
  hops: number,
  ctx: VerbalizeContext,
  options: { sourceObject?: string | null },
  provenanceBase: { kb: string; kbName: string; query: string; language: "sparql" },
): EvidencePiece | null {
  const nodes: RdfTerm[] = [];
  for (let i = 0; i <= hops; i++) {
    const t = record[`n${i}`];
    if (!isTerm(t)) return null;
    nodes.push(t);
  }
  const predicates: RdfTerm[] = [];
  const forward: boolean[] = [];
  for (let i = 1; i <= hops; i++) {
    const p = record[`p${i}`];
    if (!isTerm(p) || p.termType !== "NamedNode") return null;
    predicates.push(p);
    const d = record[`d${i}`];
    forward.push(!(isTerm(d) && d.value === "in"));
  }
  const data: PathData = {
    nodes: nodes.map((n) => ({
      id: n.value,
      labels: n.class ? [ctx.knownLabel(n.class) ?? labelFromIri(n.class)] : [],
      caption: labelOf(n, ctx),
      properties: (n.termType === "Literal" ? { value: scalarOf(n, ctx) } : {}) as Record<string, Scalar>,
    })),
    edges: predicates.map((p, i) => {
      const [from, to] = forward[i] ? [nodes[i].value, nodes[i + 1].value] : [nodes[i + 1].value, nodes[i].value];
      return { from, to, type: labelOf(p, ctx), properties: {} };
    }),
  };
  const location = {
    path: [nodes[0].value, ...predicates.flatMap((p, i) => [`${forward[i] ? "" : "^"}${p.value}`, nodes[i + 1].value])].join(" "),
  };
  return {
    id: evidenceId(ctx.kbId, "path", location),
    kind: "path",
    text: linearizePath(
      data.nodes,
      data.edges.map((e, i) => ({ type: e.type, forward: forward[i] })),
    ),
    provenance: {
      ...provenanceBase,
      sourceObject: options.sourceObject !== undefined ? options.sourceObject : (nodes[0].class ?? null),
      location,
    },
    entities: entityNames(nodes, ctx),
    data,
  };
}
