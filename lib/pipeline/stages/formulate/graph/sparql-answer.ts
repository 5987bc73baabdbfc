import { checkSparqlSafety } from "../../../../backends/sparql";
import type { Candidate, FormulatedQuery, Intent } from "../../../contracts";
import type { Adjustments } from "../feedback";
import { viewIntent } from "../plan/relational-view";
import { fitOf, tautological } from "../sql/formulate-sql";
import { withStatedConditions } from "../sql/stated-conditions";
import { pickSql } from "../sql/sql-picks";
import { linkSchema } from "../sql/schema-linking";
import type { RdfStructure } from "./types";
import { rdfLinkInView, rdfView } from "./rdf-view";
import { renderSparql } from "./render-sparql";

/**
 * The SPARQL answer query: the same question plan the SQL formulator makes, over the graph seen as
 * tables (rdf-view.ts), written as SPARQL (render-sparql.ts). Null when the plan only repeats what the
 * question names, or the graph has no class to read.
 */
export function sparqlAnswerQuery(
  intent: Intent,
  candidate: Candidate,
  structure: RdfStructure,
  adj: Adjustments,
): { query: FormulatedQuery | null; notes: string[] } {
  const view = rdfView(structure);
  if (view.structure.tables.length === 0) return { query: null, notes: [] };
  const inView = viewIntent(intent, candidate.kbId, (l) => rdfLinkInView(view, l));
  const viewCandidate = { ...candidate, sourceObjects: candidate.sourceObjects.map((s) => view.byClass.get(s) ?? s) };
  const linking = linkSchema(view.structure, inView, viewCandidate, adj);
  const picks = pickSql(inView, linking, adj);
  if (tautological(picks)) return { query: null, notes: [] };
  let rendered;
  try {
    rendered = renderSparql(view, linking, picks, structure.prefixes);
    checkSparqlSafety(rendered.text);
  } catch (e) {
    return { query: null, notes: [`the SPARQL answer query was dropped: ${(e as Error).message}`] };
  }
  const fit = withStatedConditions(fitOf(inView, candidate, linking, picks, rendered.tables), picks, rendered.tables, linking);
  return {
    query: {
      kbId: candidate.kbId,
      kbName: candidate.kbName,
      kind: candidate.kind,
      query: { language: "sparql", text: rendered.text },
      strategy: "sparql-pattern",
      sourceObject: view.tables.get(picks.root) ?? null,
      explanation: `SPARQL over the classes as tables, on ${picks.root} (the question as asked)${picks.notes.length > 0 ? `: ${picks.notes.join("; ")}` : ""}${adj.notes.length > 0 ? `; ${adj.notes.join("; ")}` : ""}.`,
      role: "answer",
      fit,
      grouped: rendered.grouped,
    },
    notes: [],
  };
}
