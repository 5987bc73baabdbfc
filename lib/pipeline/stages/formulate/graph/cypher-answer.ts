import type { Candidate, FormulatedQuery, Intent } from "../../../contracts";
import type { Adjustments } from "../feedback";
import { viewIntent } from "../plan/relational-view";
import { fitOf, tautological } from "../sql/formulate-sql";
import { withStatedConditions } from "../sql/stated-conditions";
import { linkSchema } from "../sql/schema-linking";
import { type SchemaLinking } from "../sql/types";
import { tablesOf } from "../sql/render-sql";
import { pickSql } from "../sql/sql-picks";
import { type GraphStructure, isNameKey } from "./types";
import { graphAnswerShape } from "./answer-shape";
import { type GraphView, graphLinkInView, graphView } from "./graph-view";
import { renderCypher } from "./render-cypher";

/**
 * "Who wrote the most papers?", "Who are the first 3 authors of papers published in the 1990s?": "who"
 * asks for the doer of the verb, the start of the relationship the question names, though the question
 * names only the nodes at its end. The root stays when it already starts a named relationship.
 */
function whoAnswers(intent: Intent, view: GraphView, linking: SchemaLinking, root: string): string {
  // understand reads the opening "who" as the question's wh-word (both strategies).
  if (!/^who\b/i.test(intent.wh ?? "")) return root;
  const named = [...view.relationships.entries()]
    .filter(([t]) => linking.tableCoverage(t) > 0)
    .sort((a, b) => linking.tableCoverage(b[0]) - linking.tableCoverage(a[0]));
  if (named.length === 0 || named.some(([, r]) => r.from === root)) return root;
  const doer = named.find(([, r]) => r.to === root);
  return doer ? doer[1].from : root;
}

/**
 * The Cypher answer query: the question plan the SQL formulator makes, over the graph seen as tables
 * (graph-view.ts), written as Cypher (render-cypher.ts). An entity asked for by name only ("Which
 * movies …") is returned as the node itself, as graph answers are. Null when the plan only repeats what
 * the question names. Read-only is checked by the backend's EXPLAIN when the query runs.
 */
export function cypherAnswerQuery(
  intent: Intent,
  candidate: Candidate,
  structure: GraphStructure,
  adj: Adjustments,
): { query: FormulatedQuery | null; notes: string[] } {
  const view = graphView(structure);
  if (view.structure.tables.length === 0) return { query: null, notes: [] };
  const inView = viewIntent(intent, candidate.kbId, (l) => graphLinkInView(view, structure, l));
  const linked = linkSchema(view.structure, inView, candidate, adj);
  // A relationship is how the answer's nodes are reached, not what is asked for: its end the question names (else its start) answers.
  const rel = view.relationships.get(linked.root);
  const root = whoAnswers(
    intent,
    view,
    linked,
    rel ? ((linked.tableScores.get(rel.to) ?? 0) > (linked.tableScores.get(rel.from) ?? 0) ? rel.to : rel.from) : linked.root,
  );
  const linking = { ...linked, root, rootTiedWith: rel ? [] : linked.rootTiedWith, entityIdentity: true };
  // The relationship the question's verb names ("produced by", "directed") is the way between the nodes, not the first one found.
  const planned = pickSql(inView, linking, adj);
  const ends = new Set(tablesOf(planned));
  const via = [...view.relationships.entries()]
    // A relationship the answers must lack ("never acted in any") is not the way between them.
    .filter(([t, r]) => linking.tableCoverage(t) > 0 && ends.has(r.from) && ends.has(r.to) && !planned.negations.some((n) => n.table === t))
    .sort((a, b) => linking.tableCoverage(b[0]) - linking.tableCoverage(a[0]))
    .map(([t]) => t);
  const picks = graphAnswerShape(intent, { ...planned, via }, linking, structure, view);
  if (tautological(picks)) return { query: null, notes: [] };

  let rendered;
  try {
    rendered = renderCypher(view, picks);
  } catch (e) {
    return { query: null, notes: [`the Cypher answer query was dropped: ${(e as Error).message}`] };
  }
  // "When was The Matrix released?": a plan that returns the very node the question names (filtered on its
  // name alone) repeats the question; the node's neighbourhood (its properties and relationships) holds the
  // answer. A filter on another property ("which suppliers have the contact title X") selects the nodes
  // asked for: they are the answer.
  const returnsOneNode = /\nRETURN (?:DISTINCT )?(\w+) AS `[^`]+`$/.exec(rendered.text);
  const namesItsAnswer =
    returnsOneNode !== null &&
    !picks.setOp &&
    picks.aggregates.length === 0 &&
    picks.values.length > 0 &&
    picks.values.every((v) => !v.negated && v.column.table === picks.root && isNameKey(structure, v.column.table, v.column.name));
  if (namesItsAnswer) return { query: null, notes: [] };
  const fit = withStatedConditions(fitOf(inView, candidate, linking, picks, rendered.tables), picks, rendered.tables, linking);
  // Graph answers are nodes or their properties: a plan whose answer is a relationship lost its way.
  if (view.relationships.has(picks.root))
    return {
      query: null,
      notes: [`the Cypher answer query was dropped: it would return relationships (${picks.root}), not the nodes asked for`],
    };
  // A name the question gives that the query does not filter on would answer for the whole graph; the
  // neighbourhood queries below start from the names instead.
  const unfiltered = intent.entities.filter(
    (e) =>
      !e.fromContext &&
      /^\p{Lu}/u.test(e.mention) &&
      !fit.valuesUsed.some((v) => v.toLowerCase() === e.mention.toLowerCase()) &&
      !e.links.some((l) => l.kbId === candidate.kbId && l.kind !== "node" && l.kind !== "value" && l.kind !== "label"),
  );
  if (unfiltered.length > 0)
    return {
      query: null,
      notes: [`the Cypher answer query was dropped: it does not filter on ${unfiltered.map((e) => `'${e.mention}'`).join(", ")}`],
    };
  return {
    query: {
      kbId: candidate.kbId,
      kbName: candidate.kbName,
      kind: candidate.kind,
      query: { language: "cypher", text: rendered.text, params: rendered.params },
      strategy: "neighborhood",
      sourceObject: picks.root,
      explanation: `Cypher over the labels and relationships as tables, on (:${picks.root}) (the question as asked)${picks.notes.length > 0 ? `: ${picks.notes.join("; ")}` : ""}${adj.notes.length > 0 ? `; ${adj.notes.join("; ")}` : ""}.`,
      role: "answer",
      fit,
      grouped: rendered.grouped,
    },
    notes: [],
  };
}
