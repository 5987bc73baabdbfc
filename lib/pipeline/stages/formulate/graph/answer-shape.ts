import { type Intent, answerFormOf } from "../../../contracts";
import { VIEW_ID } from "../plan/relational-view";
import type { SchemaLinking, SelectItem, SqlAggregate, SqlPicks } from "../sql/types";
import type { ColumnFacts } from "../sql/sql-structure";
import type { GraphStructure } from "./types";
import type { GraphView } from "./graph-view";

/**
 * How a ranked graph answer is shown. A plain list of nodes ("Which movies …") is the nodes
 * themselves, but a ranking is read with its measure: "the top 3 categories by average unit price"
 * is each category's name beside its average, "the 5 youngest producers" each producer's name beside
 * the birth year that ranks them. A node is not comparable to a number, so the ranked node is shown by
 * its caption (name, title) and the value it is ranked by follows it. "Who …" asks for names.
 */

function captionColumn(linking: SchemaLinking, structure: GraphStructure, label: string): ColumnFacts | null {
  const key = structure.captionKeys[label];
  if (!key) return null;
  return (linking.columns.get(label) ?? []).find((c) => c.name === key) ?? null;
}

/** The node the answer lists, when the SELECT list is that node alone. */
function listedNode(p: SqlPicks): ColumnFacts | null {
  if (!p.select || p.select.length !== 1) return null;
  const only = p.select[0];
  return only.kind === "column" && only.column.name === VIEW_ID ? only.column : null;
}

/** The node whose caption alone is the SELECT list ("Who are the top 5 actors by …" → the people's names). */
function listedCaption(p: SqlPicks, linking: SchemaLinking, structure: GraphStructure): ColumnFacts | null {
  if (!p.select || p.select.length !== 1) return null;
  const only = p.select[0];
  if (only.kind !== "column" || only.column !== captionColumn(linking, structure, only.column.table)) return null;
  return (linking.columns.get(only.column.table) ?? []).find((c) => c.name === VIEW_ID) ?? null;
}

/**
 * A relationship is how the answer's nodes are reached, never the answer ("Who acted in movies released
 * before 1990?" lists people, not ACTED_IN relationships): the listed relationship becomes the end the
 * question does not already pin down with its conditions (the movies are the condition, the people the
 * answer), else its start node, the subject of the relationship's verb. The relationship stays the way
 * between them.
 */
function nodeForRelationship(p: SqlPicks, linking: SchemaLinking, view: GraphView): SqlPicks {
  const listed = listedNode(p);
  const rel = listed ? view.relationships.get(listed.table) : undefined;
  if (!rel) return p;
  const conditioned = [...p.values, ...p.lookups, ...p.time, ...p.numeric, ...p.flags, ...p.absent].map((c) => c.column.table);
  const weight = (label: string) => conditioned.filter((t) => t === label).length;
  const end = weight(rel.to) < weight(rel.from) ? rel.to : rel.from;
  const column = (linking.columns.get(end) ?? []).find((c) => c.name === VIEW_ID);
  if (!column) return p;
  // Groups of relationships ("the top 3 producers by the number of movies") are groups of that end's nodes.
  const groupBy = [...new Set(p.groupBy.map((c) => (c === listed ? column : c)))];
  // A relationship the answers must lack ("produced movies but never acted in any") is not their way in.
  const lacked = p.negations.some((n) => n.table === listed!.table);
  const named = [...view.relationships.entries()]
    .filter(
      ([t, r]) =>
        t !== listed!.table && linking.tableCoverage(t) > 0 && (r.from === end || r.to === end) && !p.negations.some((n) => n.table === t),
    )
    .sort((a, b) => linking.tableCoverage(b[0]) - linking.tableCoverage(a[0]))
    .map(([t]) => t);
  const via = lacked
    ? [...new Set([...named.slice(0, 1), ...p.via.filter((t) => t !== listed!.table)])]
    : [listed!.table, ...p.via.filter((t) => t !== listed!.table)];
  return {
    ...p,
    select: [{ kind: "column", column }],
    groupBy,
    via,
    notes: [...p.notes, `the ${rel.type} relationship listed as its (:${end}) nodes`],
  };
}

/** The aggregate groups are ranked by: the one named, else the count (render-cypher.ts reads it the same way). */
function rankingAggregate(p: SqlPicks): SqlAggregate {
  return p.order?.aggregate ?? p.aggregates.find((a) => a.fn === "count") ?? { fn: "count", column: null };
}

export function graphAnswerShape(
  intent: Intent,
  planned: SqlPicks,
  linking: SchemaLinking,
  structure: GraphStructure,
  view: GraphView,
): SqlPicks {
  const p = nodeForRelationship(planned, linking, view);
  const node = listedNode(p) ?? listedCaption(p, linking, structure);
  if (!node || p.setOp) return p;
  const caption = captionColumn(linking, structure, node.table);
  if (!caption) return p;
  // Groups ranked by an aggregate ("top 3 categories by average price", "actors by number of movies").
  if (p.order && p.groupBy.length > 0 && !p.order.column && p.order.limit !== null) {
    const aggregate = rankingAggregate(p);
    const select: SelectItem[] = [
      { kind: "column", column: caption },
      { kind: "aggregate", aggregate },
    ];
    const groupBy = p.groupBy.includes(caption) ? p.groupBy : [...p.groupBy, caption];
    const aggregates = p.aggregates.includes(aggregate) ? p.aggregates : [...p.aggregates, aggregate];
    return {
      ...p,
      select,
      groupBy,
      aggregates,
      order: { ...p.order, aggregate },
      notes: [...p.notes, `ranked groups shown as ${caption.table}.${caption.name} with the ranking ${aggregate.fn}`],
    };
  }
  // Nodes ranked by a property the question's superlative names ("the 3 most expensive products").
  if (
    p.order?.column &&
    p.groupBy.length === 0 &&
    p.order.limit !== null &&
    intent.superlative &&
    p.order.column.name !== VIEW_ID &&
    p.order.column !== caption
  ) {
    const select: SelectItem[] = [
      { kind: "column", column: caption },
      { kind: "column", column: p.order.column },
    ];
    return {
      ...p,
      select,
      notes: [...p.notes, `ranked nodes shown as ${caption.table}.${caption.name} with ${p.order.column.table}.${p.order.column.name}`],
    };
  }
  // "Who …" asks for people by name: the caption of the doer (the plan's root node), not the node
  // ("Who cited this paper?"); for groups ("Who has supervised more than one thesis?") each group's caption.
  if (/^who\b/i.test(intent.wh ?? "")) {
    const doer = view.relationships.has(p.root) ? caption : (captionColumn(linking, structure, p.root) ?? caption);
    if (p.groupBy.length === 0)
      return { ...p, select: [{ kind: "column", column: doer }], notes: [...p.notes, `"who" answered with ${doer.table}.${doer.name}`] };
    if (
      p.groupBy.includes(node) &&
      doer.table === node.table &&
      !p.aggregates.some((a) => p.select?.some((s) => s.kind === "aggregate" && s.aggregate === a))
    ) {
      const groupBy = p.groupBy.includes(doer) ? p.groupBy : [...p.groupBy, doer];
      return {
        ...p,
        select: [{ kind: "column", column: doer }],
        groupBy,
        notes: [...p.notes, `"who" answered with each group's ${doer.table}.${doer.name}`],
      };
    }
  }
  if (answerFormOf(intent).nameRequest && p.groupBy.length === 0) {
    return {
      ...p,
      select: [{ kind: "column", column: caption }],
      notes: [...p.notes, `"name …" answered with ${caption.table}.${caption.name}`],
    };
  }
  return p;
}
