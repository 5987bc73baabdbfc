import { normalizeLabel } from "../../text";
import type { ExecutedQuery, Feedback } from "../../contracts";
import { constructsOf } from "../understand/constructs";
import type { RoundAnalysis } from "./analysis";
import type { Check } from "./types";

/**
 * The critic's construct checks: the answer query must express what the question's wording asks. A
 * question with "not" / "without" / "except" needs a negation in the query; "for each" / "per" (or a
 * closing "by X" with an aggregate) needs grouping; a value the question names needs a filter on it.
 * A failed check gives corrective feedback of its own type (HybGRAG's commentor), which formulation
 * reads (formulate/feedback.ts) to try harder on that construct.
 */

export const CONSTRUCT_CHECKS = {
  negation: "negation in the answer query",
  grouping: "grouping in the answer query",
  filters: "named values filtered in the answer query",
} as const;

/** The query whose result is the answer: the answer query behind the first citation, or the winning source's. */
export function answerQueryOf(a: RoundAnalysis): ExecutedQuery | null {
  // The analyst's guide query is the answer as they wrote it: the construct rules check generated queries.
  const answerQueries = a.input.executed.filter((q) => q.role === "answer" && q.strategy !== "guide");
  if (answerQueries.length === 0 || a.input.answer.refrained) return null;
  const first = a.input.answer.citations[0];
  return answerQueries.find((q) => first !== undefined && q.evidenceIds.includes(first)) ?? null;
}

const NEGATED_QUERY = /\bNOT\b|<>|!=|\bEXCEPT\b|\bMINUS\b|=\s*false\b/i;
const GROUPED_QUERY = /\bGROUP\s+BY\b|\bWITH\b[^\n]*\b(?:count|sum|avg|min|max)\s*\(/i;
const AGGREGATED = /\b(?:COUNT|SUM|AVG|MIN|MAX)\s*\(/i;

function queryText(q: ExecutedQuery): string {
  return `${q.query.text} ${JSON.stringify(q.query.params ?? {})}`;
}

/** Negation cues that negate something to filter (not bounds like "no more than", not "not only"). */
function negationCues(a: RoundAnalysis) {
  const constructs = constructsOf(a.input.intent);
  return constructs.negations.filter((n) => n.scope.trim() !== "" && !/^(?:only|just|even)\b/i.test(n.scope.trim()));
}

export function checkNegation(a: RoundAnalysis): Check {
  const name = CONSTRUCT_CHECKS.negation;
  const q = answerQueryOf(a);
  const cues = negationCues(a);
  if (!q || cues.length === 0) return { name, passed: true, detail: q ? "The question negates nothing." : "No answer query to check." };
  if (NEGATED_QUERY.test(q.query.text))
    return { name, passed: true, detail: `The question says '${cues[0].cue} ${cues[0].scope}' and the answer query negates.` };
  return {
    name,
    passed: false,
    detail: `The question says '${cues[0].cue} ${cues[0].scope}', but the answer query on ${q.kbName} has no negation.`,
  };
}

export function checkGrouping(a: RoundAnalysis): Check {
  const name = CONSTRUCT_CHECKS.grouping;
  const q = answerQueryOf(a);
  const g = constructsOf(a.input.intent).grouping;
  if (!q || !g) return { name, passed: true, detail: q ? "The question asks for no breakdown." : "No answer query to check." };
  // "… by region" groups only what is aggregated; "for each X" of plain rows lists them (no aggregate to group).
  if (!AGGREGATED.test(q.query.text)) return { name, passed: true, detail: "Nothing is aggregated, so there is nothing to group." };
  if (GROUPED_QUERY.test(q.query.text)) return { name, passed: true, detail: `The answer is grouped, as '${g.text}' asks.` };
  return {
    name,
    passed: false,
    detail: `The question asks per '${g.text}', but the answer query on ${q.kbName} aggregates without grouping.`,
  };
}

/** Values the question names that the answer query's source knows (linked there, or quoted). */
function namedValues(a: RoundAnalysis, q: ExecutedQuery): { mention: string; forms: string[] }[] {
  const out: { mention: string; forms: string[] }[] = [];
  for (const e of a.input.intent.entities) {
    const here = e.links.filter((l) => l.kbId === q.kbId && l.score >= 0.5);
    const best = here[0];
    if (!best || !["value", "label", "node"].includes(best.kind) || !/\p{Lu}|\d|['"]/u.test(e.mention)) continue;
    out.push({ mention: e.mention, forms: [e.mention, best.label] });
  }
  return out;
}

export function checkFilters(a: RoundAnalysis): Check {
  const name = CONSTRUCT_CHECKS.filters;
  const q = answerQueryOf(a);
  if (!q) return { name, passed: true, detail: "No answer query to check." };
  const text = normalizeLabel(queryText(q));
  const missing = namedValues(a, q).filter((v) => !v.forms.some((f) => text.includes(normalizeLabel(f))));
  if (missing.length === 0) return { name, passed: true, detail: "Every value the question names is filtered on." };
  return {
    name,
    passed: false,
    detail: `The question names ${missing.map((m) => `'${m.mention}'`).join(", ")}, but the answer query on ${q.kbName} does not filter on ${missing.length === 1 ? "it" : "them"}.`,
  };
}

export function constructChecks(a: RoundAnalysis): Check[] {
  return [checkNegation(a), checkGrouping(a), checkFilters(a)];
}

/** The commentor's rule for failed construct checks: one feedback per failed construct, the named value first. */
export function constructFeedback(a: RoundAnalysis, failed: Set<string>): Feedback[] {
  const q = answerQueryOf(a);
  if (!q) return [];
  const out: Feedback[] = [];
  if (failed.has(CONSTRUCT_CHECKS.filters)) {
    const text = normalizeLabel(queryText(q));
    for (const v of namedValues(a, q).filter((v) => !v.forms.some((f) => text.includes(normalizeLabel(f))))) {
      out.push({
        type: "missing_filter",
        target: v.mention,
        detail: `'${v.mention}' is named in the question, but the answer query does not filter on it: look it up by name.`,
      });
    }
  }
  if (failed.has(CONSTRUCT_CHECKS.negation)) {
    const cue = negationCues(a)[0];
    if (cue)
      out.push({
        type: "missing_negation",
        target: cue.scope,
        detail: `The question says '${cue.cue} ${cue.scope}', but the answer query keeps those rows: exclude them.`,
      });
  }
  if (failed.has(CONSTRUCT_CHECKS.grouping)) {
    const g = constructsOf(a.input.intent).grouping;
    if (g)
      out.push({
        type: "missing_grouping",
        target: g.text,
        detail: `The question asks per '${g.text}', but the answer is one figure: break it down.`,
      });
  }
  return out;
}
