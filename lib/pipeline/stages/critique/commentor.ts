import { queryOutcomeInWords, strategyInWords } from "../../strategy-words";
import { normalizeLabel } from "../../text";
import type { ExecutedQuery, Feedback, FeedbackType } from "../../contracts";
import { queryNamesEntity } from "../answer/classical";
import { type RoundAnalysis, kbName, relationPresence } from "./analysis";
import { CHECKS } from "./checks";
import { type Check } from "./types";
import { constructFeedback } from "./construct-checks";
import { count } from "../../../format/count";

/**
 * HybGRAG's commentor: when the validator fails, ONE corrective feedback of a fixed type, chosen by the
 * first rule below that applies and has not been given before with the same target. The order goes
 * from the most basic failure to the most specific, so the next round fixes what blocks everything else
 * first:
 *
 * 1. empty_result     every query came back empty, refused, timed out or failed;
 *    missing_filter / missing_negation / missing_grouping
 *                     the answer query leaves out a value the question names, its "not", or its "for each"
 *                     (construct-checks.ts);
 * 2. no_intersection  a query over several linked entities together found nothing while single-entity
 *                     queries (ego-graphs) did;
 * 3. missing_entity   a question entity has no link into any source;
 * 4. wrong_entity     a linked entity appears in no evidence although its KB answered: the link is wrong;
 * 5. wrong_source     the evidence came only from sources that do not know the question's entities (the
 *                     distractors answered): checked before the relation, which cannot match in the wrong source;
 * 6. missing_relation the relation words matched no column, predicate or relationship, in evidence or queries;
 *    wrong_relation   the relation was matched, but the answer has the wrong type / is not connected to the
 *                     question's entities (or the matched relation brought no evidence);
 * 7. wrong_source     an aggregate/superlative asked of documents only (passages cannot count or rank);
 * 8. wrong_module     structured queries failed while document search found passages;
 * 9. next_batch       the question's entity was found but the answer is absent from the top pieces, and more
 *                     results exist (a truncated result or a search): fetch the next page.
 *
 * Targets are what the next round acts on: the entity's mention, the relation phrase, the KB's name,
 * the retrieval strategy, or for next_batch the page index ("1" = the second page), as formulate's
 * feedback.ts reads them.
 */

type Rule = (a: RoundAnalysis, failed: Set<string>) => Feedback[];

function feedback(type: FeedbackType, target: string | null, detail: string): Feedback {
  return { type, target, detail };
}

function statusSummary(queries: ExecutedQuery[]): string {
  return queries
    .map((q) => `the ${strategyInWords(q.strategy)} on ${q.kbName} ${q.status === "ok" ? "returned nothing" : queryOutcomeInWords(q)}`)
    .join("; ");
}

const emptyResult: Rule = (a) => {
  const executed = a.input.executed;
  if (a.productive.length > 0 || (executed.length === 0 && a.pieces.length > 0)) return [];
  const kbs = [...new Set(executed.map((q) => q.kbName))];
  const detail = executed.length === 0 ? "No query was run, so nothing came back." : `No query returned rows (${statusSummary(executed)}).`;
  return [feedback("empty_result", kbs.length > 0 ? kbs.join(", ") : null, detail)];
};

const noIntersection: Rule = (a) => {
  const linked = a.focus.entities.filter((e) => e.linked);
  if (linked.length < 2) return [];
  const named = (q: ExecutedQuery) => {
    const text = `${q.query.text} ${JSON.stringify(q.query.params ?? {})}`;
    return linked.filter((e) => queryNamesEntity(text, e)).length;
  };
  const intersections = a.input.executed.filter((q) => /intersect/i.test(q.explanation) || named(q) >= 2);
  const intersectionEmpty = intersections.length > 0 && intersections.every((q) => q.status !== "ok" || q.rows === 0);
  const singlesFound =
    a.productive.some((q) => named(q) === 1) || linked.every((e) => a.entities.find((x) => x.entity === e)!.pieces.length > 0);
  if (!intersectionEmpty || !singlesFound) return [];
  const mentions = linked.map((e) => e.mention);
  return [
    feedback(
      "no_intersection",
      mentions.join(" & "),
      `Nothing found connects ${mentions.map((m) => `'${m}'`).join(" and ")}, though each has facts of its own: the next round looks them up separately.`,
    ),
  ];
};

const missingEntity: Rule = (a) =>
  a.entities
    .filter((e) => !e.entity.linked)
    .map((e) =>
      feedback(
        "missing_entity",
        e.entity.mention,
        e.pieces.length > 0
          ? `No source holds '${e.entity.mention}' as a name it knows; it appears only in ${count(e.pieces.length, "passage")} of text.`
          : `No source holds '${e.entity.mention}', and nothing found mentions it.`,
      ),
    );

const wrongEntity: Rule = (a) => {
  const answeringKbs = new Set(a.pieces.map((p) => p.provenance.kb));
  return a.entities
    .filter((e) => e.entity.linked && e.pieces.length === 0)
    .filter((e) => {
      const linkKbs =
        a.input.intent.entities
          .find((x) => x.mention === e.entity.mention)
          ?.links.slice(0, 1)
          .map((l) => l.kbId) ?? [];
      return linkKbs.some((kb) => answeringKbs.has(kb));
    })
    .map((e) =>
      feedback(
        "wrong_entity",
        e.entity.mention,
        `'${e.entity.mention}' was read as '${e.entity.forms.at(-1)}', but nothing found in that source mentions it: the next round tries the next closest match.`,
      ),
    );
};

const relationRules: Rule = (a, failed) => {
  const { relation, inEvidence, inQueries } = relationPresence(a);
  if (!relation) return [];
  if (!inEvidence && !inQueries) {
    return [feedback("missing_relation", relation, `No field of the sources matched '${relation}', and nothing found mentions it.`)];
  }
  const answered = a.value !== null;
  if (answered && failed.has(CHECKS.answerType)) {
    return [
      feedback(
        "wrong_relation",
        relation,
        `The values found for '${relation}' are not the kind of answer the question asks for: the field used probably means something else.`,
      ),
    ];
  }
  if (answered && failed.has(CHECKS.connection)) {
    return [
      feedback(
        "wrong_relation",
        relation,
        `'${a.value}' is not tied to what the question names through '${relation}': the next round tries another field.`,
      ),
    ];
  }
  if (!answered && inQueries && !inEvidence) {
    return [
      feedback(
        "wrong_relation",
        relation,
        `The queries used '${relation}', but nothing found carries it: the next round tries another field.`,
      ),
    ];
  }
  return [];
};

/** Evidence only from distractors: no linked entity appears anywhere, and none of their sources answered. */
const distractorSource: Rule = (a) => {
  const top = a.pieces[0];
  const linked = a.entities.filter((e) => e.entity.linked);
  if (!top || linked.length === 0 || linked.some((e) => e.pieces.length > 0)) return [];
  const evidenceKbs = new Set(a.pieces.map((p) => p.provenance.kb));
  const linkKbs = new Set(a.input.intent.entities.flatMap((e) => e.links.slice(0, 1).map((l) => l.kbId)));
  if ([...linkKbs].some((kb) => evidenceKbs.has(kb))) return [];
  const sources = [...new Set(a.pieces.map((p) => p.provenance.kbName))].join(", ");
  const where = [...linkKbs].map((kb) => kbName(a, kb)).join(", ");
  return [
    feedback(
      "wrong_source",
      top.provenance.kbName,
      `The evidence came only from ${sources}, which never mention ${linked.map((e) => `'${e.entity.mention}'`).join(", ")}; they are known in ${where}.`,
    ),
  ];
};

/** An aggregate or superlative asked of documents only: passages state numbers, they cannot count or rank. */
const kindCannotExpress: Rule = (a) => {
  const top = a.pieces[0];
  const intent = a.input.intent;
  if (!top || (intent.aggregate === null && intent.superlative === null) || !a.pieces.every((p) => p.kind === "passage")) return [];
  const kb = top.provenance.kbName;
  const asked = intent.aggregate ? `a ${intent.aggregate}` : "a superlative";
  return [
    feedback("wrong_source", kb, `The question asks for ${asked}, which passages of ${kb} cannot compute; a database or graph source can.`),
  ];
};

const wrongModule: Rule = (a) => {
  const searchFound = a.productive.some((q) => q.query.language === "search") || a.pieces.some((p) => p.kind === "passage");
  if (!searchFound) return [];
  return a.unproductive
    .filter((q) => q.query.language !== "search")
    .map((q) =>
      feedback(
        "wrong_module",
        q.strategy,
        `The ${strategyInWords(q.strategy)} on ${q.kbName} ${q.status === "ok" ? "returned nothing" : queryOutcomeInWords(q)} while the document search found passages: answer from those.`,
      ),
    );
};

const nextBatch: Rule = (a, failed) => {
  if (a.value !== null && !failed.has(CHECKS.connection)) return [];
  // Paging a ranked or aggregated result changes its meaning ("the most expensive" → the second most).
  if (a.input.intent.superlative || a.input.intent.aggregate) return [];
  const found = a.focus.entities.length === 0 ? a.pieces.length > 0 : a.entities.some((e) => e.pieces.length > 0);
  const moreExist = a.input.executed.some((q) => q.status === "ok" && (q.truncated || q.query.language === "search"));
  if (!found || !moreExist) return [];
  const page = 1 + a.input.previousFeedback.filter((f) => f.type === "next_batch").length;
  return [
    feedback(
      "next_batch",
      String(page),
      `What the question names was found, but the answer is not among the first results: the next round reads result page ${page + 1}.`,
    ),
  ];
};

/** The decision order (see the comment at the top). */
export const RULES: Rule[] = [
  emptyResult,
  constructFeedback,
  noIntersection,
  missingEntity,
  wrongEntity,
  distractorSource,
  relationRules,
  kindCannotExpress,
  wrongModule,
  nextBatch,
];

function sameTarget(a: string | null, b: string | null): boolean {
  return normalizeLabel(a ?? "") === normalizeLabel(b ?? "");
}

export function alreadyGiven(f: Feedback, previous: Feedback[]): boolean {
  return previous.some((p) => p.type === f.type && sameTarget(p.target, f.target));
}

/** The first applicable feedback not already given, and the ones skipped because they were. */
export function comment(a: RoundAnalysis, checks: Check[]): { feedback: Feedback | null; skipped: Feedback[] } {
  const failed = new Set(checks.filter((c) => !c.passed).map((c) => c.name));
  const skipped: Feedback[] = [];
  for (const rule of RULES) {
    for (const f of rule(a, failed)) {
      if (!alreadyGiven(f, a.input.previousFeedback)) return { feedback: f, skipped };
      skipped.push(f);
    }
  }
  return { feedback: null, skipped };
}
