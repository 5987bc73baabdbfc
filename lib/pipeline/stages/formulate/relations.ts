import { lemmaBag, lemmaTerms } from "../../lemma";
import type { Intent } from "../../contracts";
import { coverage, dice, questionTerms } from "./lexicon";

/**
 * Relation linking for graphs: which relationship types (Neo4j) or predicates (RDF) the question's
 * relation phrase names ("acted in" → ACTED_IN, "chief executive of" → ex:ceoOf labelled so).
 */
export interface RelationCandidate {
  /** Relationship type or predicate IRI. */
  id: string;
  /** Readable label ("acted in", "chief executive of"). */
  label: string;
  score: number;
}

/** A relation must share at least half its words with the phrase to be a filter. */
export const MIN_RELATION_SCORE = 0.5;
/** Words of the question outside the relation phrase are weaker evidence of the relation. */
const QUESTION_WEIGHT = 0.8;

export function rankRelations(
  intent: Intent,
  items: { id: string; label: string; count: number }[],
  kbId: string,
  linkKind: string,
): RelationCandidate[] {
  // Lemmas, so "makes" / "maker" meet "made by" (see lemma.ts); the question bag keeps plain stems too.
  const phrase = lemmaTerms(intent.relation ?? "");
  const question = new Set([...questionTerms(intent), ...lemmaBag(`${intent.completed} ${intent.relation ?? ""}`)]);
  const linked = new Map<string, number>();
  for (const l of intent.entities.flatMap((e) => e.links)) {
    if (l.kbId === kbId && l.kind === linkKind) linked.set(l.ref, Math.max(linked.get(l.ref) ?? 0, l.score));
  }
  return items
    .map((item) => {
      const label = lemmaTerms(item.label);
      const score = Math.max(
        phrase.length > 0 ? dice(label, phrase) : 0,
        QUESTION_WEIGHT * coverage(label, question),
        linked.get(item.id) ?? 0,
      );
      return { id: item.id, label: item.label, score, count: item.count };
    })
    .filter((r) => r.score >= MIN_RELATION_SCORE)
    .sort((a, b) => b.score - a.score || b.count - a.count)
    .map(({ id, label, score }) => ({ id, label, score }));
}
