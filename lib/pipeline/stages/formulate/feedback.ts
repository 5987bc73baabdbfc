import { normalizeLabel } from "../../text";
import type { Feedback, Intent } from "../../contracts";

/**
 * How the critic's corrective feedback (HybGRAG's commentor) changes the next formulation. One place
 * decides it for every KB kind; each formulator reads the resulting adjustments:
 *
 * | feedback          | adjustment                                                                                   |
 * | ----------------- | -------------------------------------------------------------------------------------------- |
 * | wrong_entity      | the target mention's link is skipped: its next-best link is used (dropped when none is left) |
 * | missing_entity    | the target mention is looked up by its surface text where it has no link (SQL LIKE on name columns, graph names, RDF labels); a linked one is dropped as a constraint |
 * | wrong_relation    | the next relation candidate: next predicate / relationship type / column                     |
 * | missing_relation  | no relation constraint: all predicates, all relationship types, no relation words in search  |
 * | empty_result      | relax: value filters become contains-matches, time filters go, neighbourhoods widen to 2 hops, search text without the relation |
 * | no_intersection   | several entities are retrieved as separate ego-graphs instead of their intersection          |
 * | next_batch        | the next page (a numeric target names it): OFFSET / SKIP by the page size; searches also run per entity |
 * | missing_filter    | the named value is looked up by its text (a contains-match on the answer table's name) instead of its link |
 * | missing_negation  | negation is read over a wider window: values, comparisons and related rows after "not" are excluded |
 * | missing_grouping  | the grouping words are matched to a column more loosely, so the aggregate is broken down         |
 * | wrong_source      | nothing here: source selection drops the KB                                                  |
 * | wrong_module      | nothing here: source selection changes the module                                            |
 */
export interface Adjustments {
  /** Normalized mention → how many of its best links to skip. */
  skipLinks: Map<string, number>;
  /** Normalized mentions no query may constrain on. */
  dropEntities: Set<string>;
  /** Normalized mentions to look up by their surface text. */
  lookUpByName: Set<string>;
  /** 0 = best relation candidate, 1 = the next one… */
  relationRank: number;
  dropRelation: boolean;
  relax: boolean;
  separateEntities: boolean;
  /** Page index for next_batch (0 = first page). */
  page: number;
  /** missing_negation: read "not" over a wider span of words before a condition. */
  widerNegation: boolean;
  /** missing_grouping: match the grouping words to a column more loosely. */
  looserGrouping: boolean;
  /** In words, for explanations: "feedback wrong_entity: next-best link for 'Paris'". */
  notes: string[];
}

export function noAdjustments(): Adjustments {
  return {
    skipLinks: new Map(),
    dropEntities: new Set(),
    lookUpByName: new Set(),
    relationRank: 0,
    dropRelation: false,
    relax: false,
    separateEntities: false,
    page: 0,
    widerNegation: false,
    looserGrouping: false,
    notes: [],
  };
}

/** The mention a feedback target names: by normalized text, containment either way, else the first entity. */
export function targetMention(intent: Intent, target: string | null): string | null {
  const mentions = intent.entities.map((e) => normalizeLabel(e.mention));
  if (mentions.length === 0) return null;
  if (target) {
    const t = normalizeLabel(target);
    const exact = mentions.find((m) => m === t);
    if (exact) return exact;
    const linked = intent.entities.find((e) => e.links.some((l) => normalizeLabel(l.label) === t || l.ref === target));
    if (linked) return normalizeLabel(linked.mention);
    const partial = mentions.find((m) => m.includes(t) || t.includes(m));
    if (partial) return partial;
  }
  return mentions[0];
}

export function adjustmentsFor(intent: Intent, feedback: Feedback | null | undefined): Adjustments {
  const adj = noAdjustments();
  if (!feedback) return adj;
  const mention = targetMention(intent, feedback.target);
  switch (feedback.type) {
    case "wrong_entity":
      if (mention) {
        adj.skipLinks.set(mention, 1);
        adj.notes.push(`feedback wrong_entity: next-best link for "${mention}"`);
      }
      break;
    case "missing_entity": {
      const entity = mention ? intent.entities.find((e) => normalizeLabel(e.mention) === mention) : undefined;
      if (mention && entity && entity.links.length === 0) {
        adj.lookUpByName.add(mention);
        adj.notes.push(`feedback missing_entity: "${mention}" looked up by name`);
      } else if (mention) {
        adj.dropEntities.add(mention);
        adj.lookUpByName.add(mention);
        adj.notes.push(`feedback missing_entity: "${mention}" no longer constrains the query`);
      }
      break;
    }
    case "wrong_relation":
      adj.relationRank = 1;
      adj.notes.push("feedback wrong_relation: next relation candidate");
      break;
    case "missing_relation":
      adj.dropRelation = true;
      adj.notes.push("feedback missing_relation: no relation constraint");
      break;
    case "empty_result":
      adj.relax = true;
      adj.notes.push("feedback empty_result: relaxed filters, wider neighbourhoods");
      break;
    case "no_intersection":
      adj.separateEntities = true;
      adj.notes.push("feedback no_intersection: separate ego-graphs");
      break;
    case "next_batch": {
      // A numeric target names the page (the critic counts rounds); otherwise the one after the first.
      const page = Number(feedback.target);
      adj.page = Number.isInteger(page) && page >= 1 ? page : 1;
      adj.notes.push(`feedback next_batch: page ${adj.page + 1} of the results`);
      break;
    }
    case "missing_filter":
      if (mention) {
        adj.dropEntities.add(mention);
        adj.lookUpByName.add(mention);
        adj.notes.push(`feedback missing_filter: "${mention}" looked up by name`);
      }
      break;
    case "missing_negation":
      adj.widerNegation = true;
      adj.notes.push("feedback missing_negation: negation read over a wider span");
      break;
    case "missing_grouping":
      adj.looserGrouping = true;
      adj.notes.push("feedback missing_grouping: grouping words matched more loosely");
      break;
    case "wrong_source":
    case "wrong_module":
      // Source selection acts on these; the formulation of a KB that stays selected is unchanged.
      break;
  }
  return adj;
}
