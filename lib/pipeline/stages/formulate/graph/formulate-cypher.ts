import { neighborhoodQuery } from "../../../../backends/cypher";
import { readableName } from "../../../../backends/cypher/entity-index";
import { quoteName } from "../../../../backends/cypher/schema";
import type { NativeQuery } from "../../../../backends/types";
import { terms } from "../../../text";
import type { Candidate, FormulatedQuery, Intent } from "../../../contracts";
import { type ResolvedEntity, resolveEntities } from "../entities";
import { cypherAnswerQuery } from "./cypher-answer";
import type { Adjustments } from "../feedback";
import { chooseSuperlativeAttribute, coverage, questionTerms, requestedAggregates } from "../lexicon";
import { rankRelations } from "../relations";
import { type GraphStructure, graphNameKeys } from "./types";

/**
 * Neo4j formulation (HybGRAG's hybrid module): ego-graphs of the linked entities, 1 hop (2 when the
 * relation is a chain of two relationship types or an empty result asks for more), along the
 * relationship types the relation phrase names; for several entities, the paths connecting them (the
 * intersection of their ego-graphs); counts and superlatives as aggregate/ordered queries. Paths are
 * returned so verbalize makes path evidence. Entity references travel as parameters, never as text.
 */

/** Both relationship types must be named this clearly for a 2-hop chain along them. */
const CHAIN_SCORE = 0.8;

/** Paths per neighbourhood query: enough for a node's facts, bounded for hubs. */
export const GRAPH_PATH_LIMIT = 100;

interface Anchors {
  ids: string[];
  names: string[];
  nameKeys: string[];
  /** Labels of the anchors, for explanations and to tell a target label from the anchors' own. */
  labels: Set<string>;
  described: string[];
}

/** Splits "Label.key=value" (cypher/entity-index.ts value refs) against the known labels. */
function parseValueRef(ref: string, structure: GraphStructure): { label: string; key: string; value: string } | null {
  const eq = ref.indexOf("=");
  if (eq < 0) return null;
  const left = ref.slice(0, eq);
  for (const l of [...structure.labels].sort((a, b) => b.label.length - a.label.length)) {
    if (!left.startsWith(`${l.label}.`)) continue;
    const key = left.slice(l.label.length + 1);
    if (l.properties.some((p) => p.name === key)) return { label: l.label, key, value: ref.slice(eq + 1) };
  }
  return null;
}

const SCHEMA_LINK_KINDS = new Set(["label", "predicate", "column", "class", "table"]);

function anchorsOf(entities: ResolvedEntity[], structure: GraphStructure): Anchors {
  const defaultKeys = graphNameKeys(structure);
  const a: Anchors = { ids: [], names: [], nameKeys: [], labels: new Set(), described: [] };
  const keys = new Set<string>();
  for (const e of entities) {
    const link = e.link;
    if (link && SCHEMA_LINK_KINDS.has(link.kind)) continue; // a word of the schema, not a thing in the graph
    if (link?.kind === "node") {
      a.ids.push(link.ref);
      if (link.sourceObject) a.labels.add(link.sourceObject);
      a.described.push(`"${e.mention}" → (:${link.sourceObject ?? "node"} ${link.label})`);
      continue;
    }
    const value = link?.kind === "value" ? parseValueRef(link.ref, structure) : null;
    if (value) {
      a.names.push(value.value);
      keys.add(value.key);
      a.labels.add(value.label);
      a.described.push(`"${e.mention}" → ${value.label}.${value.key} = "${value.value}"`);
      continue;
    }
    a.names.push(e.mention);
    for (const k of defaultKeys) keys.add(k);
    a.described.push(`"${e.mention}" by name`);
  }
  a.nameKeys = [...keys];
  return a;
}

function anchorCount(a: Anchors): number {
  return a.ids.length + a.names.length;
}

/** `elementId(v) IN $ids OR any(k IN $nameKeys WHERE v[k] IN $names)`, with only the parts the anchors use. */
function anchorCondition(v: string, a: Anchors): string {
  const parts: string[] = [];
  if (a.ids.length > 0) parts.push(`elementId(${v}) IN $ids`);
  if (a.names.length > 0) parts.push(`any(k IN $nameKeys WHERE ${v}[k] IN $names)`);
  return parts.length > 1 ? `(${parts.join(" OR ")})` : parts[0];
}

function anchorParams(a: Anchors): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  if (a.ids.length > 0) params.ids = a.ids;
  if (a.names.length > 0) {
    params.names = a.names;
    params.nameKeys = a.nameKeys;
  }
  return params;
}

/** Labels the question names that the anchors are not ("movies" in "Which movies did Tom Hanks act in?"). */
function targetLabel(intent: Intent, structure: GraphStructure, anchors: Anchors, kbId: string): string | null {
  const linked = intent.entities.flatMap((e) => e.links).find((l) => l.kbId === kbId && l.kind === "label" && !anchors.labels.has(l.ref));
  if (linked && structure.labels.some((l) => l.label === linked.ref)) return linked.ref;
  const bag = questionTerms(intent);
  const named = structure.labels.filter((l) => !anchors.labels.has(l.label) && coverage(terms(readableName(l.label)), bag) === 1);
  return named.sort((a, b) => b.count - a.count)[0]?.label ?? null;
}

function relTypes(types: string[]): string {
  return types.length > 0 ? `:${types.map(quoteName).join("|")}` : "";
}

function withSkip(query: NativeQuery, skip: number): NativeQuery {
  if (skip <= 0) return query;
  // neighborhoodQuery ends with "RETURN p LIMIT $limit"; paging inserts SKIP before it.
  if (!/RETURN p LIMIT \$limit$/.test(query.text)) return query;
  return {
    ...query,
    text: query.text.replace(/RETURN p LIMIT \$limit$/, "RETURN p SKIP $skip LIMIT $limit"),
    params: { ...query.params, skip },
  };
}

export function formulateCypher(
  intent: Intent,
  candidate: Candidate,
  structure: GraphStructure,
  adj: Adjustments,
  max: number,
  page: number,
): { queries: FormulatedQuery[]; notes: string[] } {
  const notes: string[] = [];
  // The answer query first (not paged: the answer row cap bounds it), then the neighbourhoods below.
  const answer = page === 0 ? cypherAnswerQuery(intent, candidate, structure, adj) : { query: null, notes: [] };
  notes.push(...answer.notes);
  const anchors = anchorsOf(resolveEntities(intent, candidate.kbId, adj), structure);
  const relations = rankRelations(
    intent,
    structure.relationships.map((r) => ({ id: r.type, label: readableName(r.type), count: r.count })),
    candidate.kbId,
    "predicate",
  );
  const chosen = adj.dropRelation || adj.relax ? [] : relations.slice(adj.relationRank, adj.relationRank + 1);
  // A relation phrase naming two relationship types ("directed movies … acted in") walks both: 2 hops.
  const chain = !adj.dropRelation && !adj.relax && adj.relationRank === 0 && relations.length >= 2 && relations[1].score >= CHAIN_SCORE;
  const types = chain ? relations.slice(0, 2).map((r) => r.id) : chosen.map((r) => r.id);
  const hops: 1 | 2 = chain || adj.relax ? 2 : 1;
  const target = targetLabel(intent, structure, anchors, candidate.kbId);
  const skip = page * GRAPH_PATH_LIMIT;
  const out: { query: NativeQuery; strategy: FormulatedQuery["strategy"]; why: string; sourceObject: string | null }[] = [];
  const anchorText = anchors.described.join(", ");
  const typeText = types.length > 0 ? ` along ${types.join(", ")}` : "";
  const sourceObject = [...anchors.labels][0] ?? target;

  const aggregates = requestedAggregates(intent);
  if (aggregates.includes("count")) {
    if (anchorCount(anchors) > 0) {
      const text = [
        `MATCH (s) WHERE ${anchorCondition("s", anchors)}`,
        `MATCH (s)-[r${relTypes(types)}]-(x${target ? `:${quoteName(target)}` : ""})`,
        "RETURN s AS entity, type(r) AS relationship, count(DISTINCT x) AS count",
        "LIMIT $limit",
      ].join("\n");
      out.push({
        query: { language: "cypher", text, params: { ...anchorParams(anchors), limit: GRAPH_PATH_LIMIT } },
        strategy: "neighborhood",
        why: `count of ${target ?? "neighbours"} of ${anchorText}${typeText}`,
        sourceObject,
      });
    } else if (target) {
      const text =
        types.length > 0
          ? `MATCH (x:${quoteName(target)})-[${relTypes(types)}]-()\nRETURN count(DISTINCT x) AS count`
          : `MATCH (x:${quoteName(target)})\nRETURN count(x) AS count`;
      out.push({
        query: { language: "cypher", text, params: {} },
        strategy: "neighborhood",
        why: `count of (:${target}) nodes${typeText}`,
        sourceObject: target,
      });
    }
  }

  if (intent.superlative && target) {
    const label = structure.labels.find((l) => l.label === target)!;
    const measurable = label.properties.filter((p) => p.types.some((t) => /INTEGER|FLOAT|DATE|TIME|DURATION/.test(t)));
    const choice = chooseSuperlativeAttribute(
      intent.superlative,
      measurable.map((p) => ({ item: p, terms: terms(readableName(p.name)) })),
      questionTerms(intent),
      intent.completed,
    );
    if (choice) {
      const prop = `x.${quoteName(choice.item.name)}`;
      const dir = choice.direction === "max" ? "DESC" : "ASC";
      const anchored = anchorCount(anchors) > 0;
      const text = anchored
        ? [
            `MATCH (s) WHERE ${anchorCondition("s", anchors)}`,
            `MATCH p = (s)-[${relTypes(types)}]-(x:${quoteName(target)})`,
            `WHERE ${prop} IS NOT NULL`,
            `RETURN p ORDER BY ${prop} ${dir} LIMIT $limit`,
          ].join("\n")
        : [`MATCH (x:${quoteName(target)})`, `WHERE ${prop} IS NOT NULL`, `RETURN x ORDER BY ${prop} ${dir} LIMIT $limit`].join("\n");
      out.push({
        query: { language: "cypher", text, params: { ...(anchored ? anchorParams(anchors) : {}), limit: intent.superlative.limit } },
        strategy: "neighborhood",
        why: `superlative on (:${target}).${choice.item.name} ${dir} (${choice.reason})`,
        sourceObject: target,
      });
    }
  }

  const several = anchors.ids.length + anchors.names.length >= 2;
  if (several && !adj.separateEntities) {
    const span = adj.relax ? 3 : 2;
    const text = [
      `MATCH (a) WHERE ${anchorCondition("a", anchors)}`,
      `MATCH (b) WHERE ${anchorCondition("b", anchors)} AND elementId(a) < elementId(b)`,
      `MATCH p = (a)-[*1..${span}]-(b)`,
      "RETURN p SKIP $skip LIMIT $limit",
    ].join("\n");
    out.push({
      query: { language: "cypher", text, params: { ...anchorParams(anchors), skip, limit: GRAPH_PATH_LIMIT } },
      strategy: "neighborhood",
      why: `paths of up to ${span} hops connecting ${anchorText} (intersection of their ego-graphs)`,
      sourceObject,
    });
  }

  if (anchorCount(anchors) > 0) {
    const ego = (relationshipTypes: string[], h: 1 | 2) =>
      withSkip(
        neighborhoodQuery({
          elementIds: anchors.ids.length > 0 ? anchors.ids : undefined,
          names: anchors.names.length > 0 ? anchors.names : undefined,
          nameKeys: anchors.names.length > 0 ? anchors.nameKeys : undefined,
          hops: h,
          relationshipTypes: relationshipTypes.length > 0 ? relationshipTypes : undefined,
          limit: GRAPH_PATH_LIMIT,
        }),
        skip,
      );
    const separately = several ? " (each entity's own ego-graph)" : "";
    out.push({
      query: ego(types, hops),
      strategy: "neighborhood",
      why: `${hops}-hop neighbourhood of ${anchorText}${typeText}${separately}`,
      sourceObject,
    });
    if (types.length > 0)
      out.push({
        query: ego([], 1),
        strategy: "neighborhood",
        why: `1-hop neighbourhood of ${anchorText}, every relationship type`,
        sourceObject,
      });
  } else if (target && types.length > 0 && out.length === 0) {
    const text = `MATCH p = (x:${quoteName(target)})-[${relTypes(types)}]-()\nRETURN p SKIP $skip LIMIT $limit`;
    out.push({
      query: { language: "cypher", text, params: { skip, limit: GRAPH_PATH_LIMIT } },
      strategy: "neighborhood",
      why: `(:${target}) nodes${typeText}`,
      sourceObject: target,
    });
  }
  if (out.length === 0)
    notes.push(`${candidate.kbName}: no entity of the question is linked to this graph and no label or relationship type is named`);

  const seen = new Set<string>();
  const queries: FormulatedQuery[] = answer.query ? [answer.query] : [];
  for (const q of out) {
    const key = `${q.query.text}\u0000${JSON.stringify(q.query.params)}`;
    if (seen.has(key) || queries.length >= max) continue;
    seen.add(key);
    queries.push({
      kbId: candidate.kbId,
      kbName: candidate.kbName,
      kind: candidate.kind,
      query: q.query,
      strategy: q.strategy,
      sourceObject: q.sourceObject,
      explanation: `Graph retrieval: ${q.why}${adj.notes.length > 0 ? `; ${adj.notes.join("; ")}` : ""}.`,
    });
  }
  return { queries, notes };
}
