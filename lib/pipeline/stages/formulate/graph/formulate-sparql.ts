import { checkSparqlSafety } from "../../../../backends/sparql";
import { isSafeIri, LABEL_PREDICATES, RDF_TYPE, XSD } from "../../../../backends/sparql/rdf-terms";
import { terms } from "../../../text";
import type { Candidate, FormulatedQuery, Intent } from "../../../contracts";
import { resolveEntities } from "../entities";
import type { Adjustments } from "../feedback";
import { chooseSuperlativeAttribute, coverage, questionTerms, requestedAggregates } from "../lexicon";
import { rankRelations } from "../relations";
import { sparqlAnswerQuery } from "./sparql-answer";
import { SparqlWriter, sparqlString } from "./sparql-writer";
import type { RdfStructure } from "./types";

/**
 * RDF formulation: SPARQL patterns over the linked resources. All facts of a resource (as subject
 * and as object), the facts along the predicate the relation phrase names, members of a class the
 * question names, counts, superlatives over a numeric predicate, and for several resources the
 * facts that connect them (directly or through a shared neighbour). Results are ?s ?p ?o so every
 * row verbalizes as a triple; the backend adds the labels.
 */

/** Triples per query. */
export const RDF_TRIPLE_LIMIT = 100;

const SCHEMA_NAMESPACES = [
  "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
  "http://www.w3.org/2000/01/rdf-schema#",
  "http://www.w3.org/2002/07/owl#",
];
const MEASURABLE_DATATYPES = [
  "integer",
  "decimal",
  "double",
  "float",
  "int",
  "long",
  "short",
  "nonNegativeInteger",
  "positiveInteger",
  "gYear",
  "date",
  "dateTime",
].map((t) => `${XSD}${t}`);

interface Resource {
  iri: string;
  mention: string;
  label: string;
  cls: string | null;
}

interface LiteralAnchor {
  predicate: string;
  value: string;
  mention: string;
}

interface NameLookup {
  mention: string;
}

/** An RDF entity-index value ref: `<predicate> "value"` (sparql/entity-index.ts). */
function parseValueRef(ref: string): { predicate: string; value: string } | null {
  const m = /^<([^>]*)> (".*")$/s.exec(ref);
  if (!m) return null;
  try {
    const value = JSON.parse(m[2]) as unknown;
    return typeof value === "string" && isSafeIri(m[1]) ? { predicate: m[1], value } : null;
  } catch {
    return null;
  }
}

function isSchemaIri(iri: string): boolean {
  return SCHEMA_NAMESPACES.some((ns) => iri.startsWith(ns));
}

function anchorsOf(intent: Intent, kbId: string, adj: Adjustments) {
  const resources: Resource[] = [];
  const literals: LiteralAnchor[] = [];
  const lookups: NameLookup[] = [];
  for (const e of resolveEntities(intent, kbId, adj)) {
    const link = e.link;
    if (link?.kind === "label" && isSafeIri(link.ref))
      resources.push({ iri: link.ref, mention: e.mention, label: link.label, cls: link.sourceObject });
    else if (link?.kind === "value") {
      const v = parseValueRef(link.ref);
      if (v) literals.push({ ...v, mention: e.mention });
    } else if (!link && e.byName) lookups.push({ mention: e.mention });
  }
  return { resources, literals, lookups };
}

/** A class the question names that is not the class of a linked resource ("Which products…" → ex:Product). */
function targetClass(intent: Intent, structure: RdfStructure, kbId: string, exclude: Set<string>): RdfStructure["classes"][number] | null {
  const classes = structure.classes.filter((c) => !isSchemaIri(c.iri) && !exclude.has(c.iri) && isSafeIri(c.iri));
  const linked = intent.entities
    .flatMap((e) => e.links)
    .find((l) => l.kbId === kbId && l.kind === "class" && classes.some((c) => c.iri === l.ref));
  if (linked) return classes.find((c) => c.iri === linked.ref)!;
  const bag = questionTerms(intent);
  return classes.filter((c) => coverage(terms(c.label), bag) === 1).sort((a, b) => b.instances - a.instances)[0] ?? null;
}

interface Draft {
  text: string;
  why: string;
  sourceObject: string | null;
}

function limitClause(page: number): string {
  return `LIMIT ${RDF_TRIPLE_LIMIT}${page > 0 ? ` OFFSET ${page * RDF_TRIPLE_LIMIT}` : ""}`;
}

/** Facts of `iris` as subject or object, along `predicates` when given; the other end in `cls` when given. */
function factsQuery(structure: RdfStructure, iris: string[], predicates: string[], cls: string | null, page: number): string {
  const w = new SparqlWriter(structure.prefixes);
  const values = (v: string, xs: string[]) => `VALUES ?${v} { ${xs.map((x) => w.iri(x)).join(" ")} }`;
  const p = predicates.length > 0 ? ` ${values("p", predicates)}` : "";
  const classOf = (v: string) => (cls ? ` ?${v} a ${w.iri(cls)} .` : "");
  return w.render(
    [
      "SELECT ?s ?p ?o WHERE {",
      `  { ${values("s", iris)}${p} ?s ?p ?o .${classOf("o")} }`,
      "  UNION",
      `  { ${values("o", iris)}${p} ?s ?p ?o .${classOf("s")} }`,
      `} ${limitClause(page)}`,
    ].join("\n"),
  );
}

/**
 * Facts linking one resource to another, or to a node adjacent to another (a shared neighbour other
 * than a class: two organisations are not related by both being organisations).
 */
function intersectionQuery(structure: RdfStructure, iris: string[], page: number): string {
  const w = new SparqlWriter(structure.prefixes);
  const list = iris.map((x) => w.iri(x));
  const type = w.iri(RDF_TYPE);
  return w.render(
    [
      "SELECT DISTINCT ?s ?p ?o WHERE {",
      `  { VALUES ?s { ${list.join(" ")} } ?s ?p ?o . BIND(?o AS ?n) }`,
      "  UNION",
      `  { VALUES ?o { ${list.join(" ")} } ?s ?p ?o . BIND(?s AS ?n) }`,
      `  FILTER(?p != ${type})`,
      `  FILTER(?n IN (${list.join(", ")}) || EXISTS { VALUES ?e { ${list.join(" ")} } { ?e ?q ?n } UNION { ?n ?q ?e } FILTER(?q != ${type} && ?e != ?s && ?e != ?o) })`,
      `} ${limitClause(page)}`,
    ].join("\n"),
  );
}

/** Both predicates must be named this clearly for a 2-hop chain along them (as for Neo4j). */
const CHAIN_SCORE = 0.8;

/**
 * A 2-hop walk from the linked resources along two predicates the question names, in either direction
 * per hop ("the city of the company that makes the jacket": jacket -made by-> company -located in->
 * city), ending in `cls` when the question names the class of the answer. Path-shaped variables
 * (?n0 ?p1 ?n1 ?p2 ?n2 with directions ?d1 ?d2) verbalize as one path piece per walk.
 */
function chainQuery(structure: RdfStructure, iris: string[], predicates: string[], cls: string | null, page: number): string {
  const w = new SparqlWriter(structure.prefixes);
  const ps = predicates.map((p) => w.iri(p)).join(" ");
  const hop = (i: number) =>
    `{ ?n${i - 1} ?p${i} ?n${i} . BIND("out" AS ?d${i}) } UNION { ?n${i} ?p${i} ?n${i - 1} . BIND("in" AS ?d${i}) }`;
  return w.render(
    [
      "SELECT ?n0 ?p1 ?d1 ?n1 ?p2 ?d2 ?n2 WHERE {",
      `  VALUES ?n0 { ${iris.map((x) => w.iri(x)).join(" ")} }`,
      `  VALUES ?p1 { ${ps} }`,
      `  VALUES ?p2 { ${ps} }`,
      `  ${hop(1)}`,
      `  ${hop(2)}`,
      `  FILTER(?p1 != ?p2 && ?n2 != ?n0 && isIRI(?n1))${cls ? `\n  ?n2 a ${w.iri(cls)} .` : ""}`,
      `} ${limitClause(page)}`,
    ].join("\n"),
  );
}

export function formulateSparql(
  intent: Intent,
  candidate: Candidate,
  structure: RdfStructure,
  adj: Adjustments,
  max: number,
  page: number,
): { queries: FormulatedQuery[]; notes: string[] } {
  const notes: string[] = [];
  // The answer query first (not paged: the answer row cap bounds it), then the evidence patterns below.
  const answer = page === 0 ? sparqlAnswerQuery(intent, candidate, structure, adj) : { query: null, notes: [] };
  notes.push(...answer.notes);
  const { resources, literals, lookups } = anchorsOf(intent, candidate.kbId, adj);
  const iris = [...new Set(resources.map((r) => r.iri))];
  const contentPredicates = structure.predicates.filter(
    (p) => p.iri !== RDF_TYPE && !LABEL_PREDICATES.includes(p.iri) && !isSchemaIri(p.iri) && isSafeIri(p.iri),
  );
  const relations = rankRelations(
    intent,
    contentPredicates.map((p) => ({ id: p.iri, label: p.label, count: p.count })),
    candidate.kbId,
    "predicate",
  );
  const relation = adj.dropRelation || adj.relax ? null : (relations[adj.relationRank] ?? null);
  const cls = adj.relax ? null : targetClass(intent, structure, candidate.kbId, new Set(resources.flatMap((r) => (r.cls ? [r.cls] : []))));
  const described = [
    ...resources.map((r) => `"${r.mention}" → ${r.label}`),
    ...literals.map((l) => `"${l.mention}" → value "${l.value}"`),
  ].join(", ");
  const relationText = relation ? ` along "${relation.label}"` : "";
  const classText = cls ? ` of class ${cls.label}` : "";
  const sourceObject = resources[0]?.cls ?? cls?.iri ?? null;
  const drafts: Draft[] = [];
  const w = () => new SparqlWriter(structure.prefixes);

  const literalPatterns = (writer: SparqlWriter, subject: string) =>
    literals.map((l, i) => `${subject} ${writer.iri(l.predicate)} ?lit${i} . FILTER(STR(?lit${i}) = ${sparqlString(l.value)})`).join(" ");

  if (requestedAggregates(intent).includes("count")) {
    const writer = w();
    const parts: string[] = [];
    if (iris.length > 0 && relation) {
      const r = writer.iri(relation.id);
      parts.push(`{ VALUES ?a { ${iris.map((x) => writer.iri(x)).join(" ")} } { ?x ${r} ?a } UNION { ?a ${r} ?x } }`);
    } else if (relation) parts.push(`?x ${writer.iri(relation.id)} ?any .`);
    if (cls) parts.push(`?x a ${writer.iri(cls.iri)} .`);
    if (literals.length > 0) parts.push(literalPatterns(writer, "?x"));
    if (parts.length > 0 && (cls || iris.length > 0 || literals.length > 0)) {
      drafts.push({
        text: writer.render(`SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { ${parts.join(" ")} }`),
        why: `count of resources${classText}${relationText}${described ? ` for ${described}` : ""}`,
        sourceObject: cls?.iri ?? sourceObject,
      });
    }
  }

  if (intent.superlative) {
    const scope = cls?.iri ?? resources[0]?.cls ?? null;
    const measurable = contentPredicates.filter(
      (p) =>
        p.literal &&
        p.ranges.some((r) => MEASURABLE_DATATYPES.includes(r)) &&
        (!scope || p.domains.length === 0 || p.domains.includes(scope)),
    );
    const choice = chooseSuperlativeAttribute(
      intent.superlative,
      measurable.map((p) => ({ item: p, terms: terms(p.label) })),
      questionTerms(intent),
      intent.completed,
    );
    if (choice && cls) {
      const writer = w();
      const text = writer.render(
        `SELECT ?s ?p ?o WHERE { VALUES ?p { ${writer.iri(choice.item.iri)} } ?s ?p ?o . ?s a ${writer.iri(cls.iri)} . ${literalPatterns(writer, "?s")} } ORDER BY ${choice.direction === "max" ? "DESC" : "ASC"}(?o) LIMIT ${intent.superlative.limit}`,
      );
      drafts.push({ text, why: `superlative on "${choice.item.label}" (${choice.reason})${classText}`, sourceObject: cls.iri });
    }
  }

  const chain = !adj.dropRelation && !adj.relax && adj.relationRank === 0 && relations.length >= 2 && relations[1].score >= CHAIN_SCORE;
  if (iris.length > 0 && chain) {
    const pair = relations.slice(0, 2);
    drafts.push({
      text: chainQuery(
        structure,
        iris,
        pair.map((r) => r.id),
        cls?.iri ?? null,
        page,
      ),
      why: `2-hop paths from ${described} along "${pair[0].label}" and "${pair[1].label}"${classText}`,
      sourceObject,
    });
  }
  if (iris.length > 0 && relation) {
    drafts.push({
      text: factsQuery(structure, iris, [relation.id], cls?.iri ?? null, page),
      why: `facts of ${described}${relationText}${classText}`,
      sourceObject,
    });
  }
  if (iris.length >= 2 && !adj.separateEntities) {
    drafts.push({
      text: intersectionQuery(structure, iris, page),
      why: `facts connecting ${described} (directly or through a shared neighbour)`,
      sourceObject,
    });
  }
  if (iris.length > 0) {
    drafts.push({ text: factsQuery(structure, iris, [], null, page), why: `all facts of ${described}`, sourceObject });
  }
  if (iris.length === 0 && (literals.length > 0 || cls)) {
    const writer = w();
    const patterns: string[] = [];
    if (literals.length > 0) {
      // The first value is the fact shown; further values only narrow the subjects.
      const [first, ...rest] = literals;
      patterns.push(`VALUES ?p { ${writer.iri(first.predicate)} } ?s ?p ?o . FILTER(STR(?o) = ${sparqlString(first.value)})`);
      rest.forEach((l, i) => patterns.push(`?s ${writer.iri(l.predicate)} ?lit${i} . FILTER(STR(?lit${i}) = ${sparqlString(l.value)})`));
    } else if (relation) {
      patterns.push(`VALUES ?p { ${writer.iri(relation.id)} } ?s ?p ?o .`);
    } else {
      patterns.push(`VALUES ?p { ${writer.iri(RDF_TYPE)} } VALUES ?o { ${writer.iri(cls!.iri)} } ?s ?p ?o .`);
    }
    if (cls && (literals.length > 0 || relation)) patterns.push(`?s a ${writer.iri(cls.iri)} .`);
    drafts.push({
      text: writer.render(`SELECT ?s ?p ?o WHERE { ${patterns.join(" ")} } ${limitClause(page)}`),
      why: literals.length > 0 ? `resources with ${described}${classText}` : `resources${classText}${relationText}`,
      sourceObject: cls?.iri ?? null,
    });
  }
  for (const l of lookups) {
    const writer = w();
    const labels = (structure.labelPredicates.length > 0 ? structure.labelPredicates : LABEL_PREDICATES)
      .map((p) => writer.iri(p))
      .join("|");
    drafts.push({
      text: writer.render(
        `SELECT ?s ?p ?o WHERE { ?s ${labels} ?l . FILTER(LCASE(STR(?l)) = ${sparqlString(l.mention.toLowerCase())}) ?s ?p ?o . } ${limitClause(page)}`,
      ),
      why: `facts of resources labelled "${l.mention}"`,
      sourceObject: null,
    });
  }
  if (drafts.length === 0) notes.push(`${candidate.kbName}: no resource, value or class of the question is linked to this graph`);

  const queries: FormulatedQuery[] = answer.query ? [answer.query] : [];
  const seen = new Set<string>();
  for (const d of drafts) {
    if (queries.length >= max || seen.has(d.text)) continue;
    seen.add(d.text);
    try {
      checkSparqlSafety(d.text);
    } catch (e) {
      notes.push(`a formulated SPARQL query was dropped: ${(e as Error).message}`);
      continue;
    }
    queries.push({
      kbId: candidate.kbId,
      kbName: candidate.kbName,
      kind: candidate.kind,
      query: { language: "sparql", text: d.text },
      strategy: "sparql-pattern",
      sourceObject: d.sourceObject,
      explanation: `SPARQL pattern: ${d.why}${adj.notes.length > 0 ? `; ${adj.notes.join("; ")}` : ""}.`,
    });
  }
  return { queries, notes };
}
