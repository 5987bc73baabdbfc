import type { Bm25Index } from "../../bm25";
import { isStopword, normalizeLabel, terms, words } from "../../text";
import type { EntityLink, Intent } from "../../contracts";
import type { CatalogIndex } from "./catalog-index";

/**
 * The evidence that a KB can answer the question, one signal at a time, each scaled to 0..1 so the
 * signals can be mixed with fixed weights (see SELECTION_WEIGHTS in ./index.ts).
 */

/**
 * BM25 of a "perfect" document for the query: every query term once in a document of average length
 * scores its idf, so the sum of the query terms' idf is what full coverage is worth. Dividing by it
 * turns BM25 into an idf-weighted coverage that is comparable across questions and across the two
 * indexes (KB texts, source objects) without normalizing each question's best match to 1, which would
 * make a KB that only shares the word "name" with the question look as good as a real match.
 */
export function queryMass(index: Bm25Index, query: string): number {
  return [...new Set(terms(query))].reduce((sum, t) => sum + index.idf(t), 0);
}

/** The question's own words for matched stems ("countri" → "countries"), for reasons people can read. */
export function surfaceWords(query: string, stems: string[]): string[] {
  const wanted = new Set(stems);
  const out: string[] = [];
  for (const w of words(query)) {
    if (isStopword(w, "en")) continue;
    const [stem] = terms(w);
    if (stem && wanted.has(stem) && !out.includes(w)) out.push(w);
  }
  return out;
}

export interface LexicalSignal {
  /** 0..1 per catalog entry. */
  score: number[];
  /** Matched stems per catalog entry (KB text). */
  matched: (entry: number) => string[];
}

/** BM25 of the query against each KB's name, description and descriptor. */
export function kbTextSignal(index: CatalogIndex, query: string): LexicalSignal {
  const mass = queryMass(index.kbs, query) || 1;
  return {
    score: index.kbs.scores(query).map((s) => Math.min(1, s / mass)),
    matched: (entry) => index.kbs.matchedTerms(query, entry),
  };
}

export interface ObjectHit {
  /** Document number in CatalogIndex.objects (for matched terms, computed only for the winners). */
  doc: number;
  key: string;
  name: string;
  contentType: string;
  score: number;
}

export interface ObjectSignal {
  score: number[];
  hits: ObjectHit[][];
}

/**
 * How much of a KB's best source objects: the best object counts fully and the next two with
 * decaying weight, because a question that joins two tables ("singers in concerts") is better served
 * by the KB that holds both than by one that holds either; the decay keeps a KB with many loosely
 * matching tables from winning on numbers.
 */
export const OBJECT_DECAY = [1, 0.5, 0.25];

export function objectSignal(index: CatalogIndex, query: string): ObjectSignal {
  const mass = queryMass(index.objects, query) || 1;
  const raw = index.objects.scores(query);
  const hits: ObjectHit[][] = index.entries.map(() => []);
  raw.forEach((s, i) => {
    if (s <= 0) return;
    const { entry, object } = index.objectRefs[i];
    hits[entry].push({ doc: i, key: object.key, name: object.name, contentType: object.contentType, score: s / mass });
  });
  const score = hits.map((list) => {
    list.sort((a, b) => b.score - a.score);
    return Math.min(
      1,
      list.slice(0, OBJECT_DECAY.length).reduce((sum, h, i) => sum + h.score * OBJECT_DECAY[i], 0),
    );
  });
  return { score, hits };
}

export interface EntityHit {
  mention: string;
  link: EntityLink;
  exact: boolean;
  weight: number;
}

/** A fuzzy link counts for less than an exact one: "Summit Tent" ≈ "Summit 2 Tent" may be another product. */
export const INEXACT_LINK_FACTOR = 0.6;

function isExact(mention: string, link: EntityLink): boolean {
  return link.score >= 0.999 || normalizeLabel(mention) === normalizeLabel(link.label);
}

/**
 * Per KB, each mention contributes its best link into that KB (link score, less for inexact links),
 * scaled by how specific the mention is: one that links into a single KB ("Summit 2 Tent") says more
 * than one that links into ten ("2014"), as idf does for terms. The sum is divided by the number of
 * linked mentions, so 1 means every entity of the question was found, exactly, only in this KB.
 */
export function entitySignal(index: CatalogIndex, intent: Intent): { score: number[]; hits: EntityHit[][]; linkedMentions: number } {
  const hits: EntityHit[][] = index.entries.map(() => []);
  const linked = intent.entities.filter((m) => m.links.some((l) => index.entryOf.has(l.kbId)));
  for (const mention of linked) {
    const best = new Map<number, EntityHit>();
    for (const link of mention.links) {
      const entry = index.entryOf.get(link.kbId);
      if (entry === undefined) continue;
      const exact = isExact(mention.mention, link);
      const weight = Math.max(0, Math.min(1, link.score)) * (exact ? 1 : INEXACT_LINK_FACTOR);
      const current = best.get(entry);
      if (!current || weight > current.weight) best.set(entry, { mention: mention.mention, link, exact, weight });
    }
    const specificity = 1 / Math.sqrt(best.size);
    for (const [entry, hit] of best) hits[entry].push({ ...hit, weight: hit.weight * specificity });
  }
  const score = hits.map((list) => (linked.length ? list.reduce((s, h) => s + h.weight, 0) / linked.length : 0));
  return { score, hits, linkedMentions: linked.length };
}

export interface GuideRef {
  guideId: string;
  question: string;
  score: number;
  kbIds: string[];
}

/** AU-RAG's Think Tank: a KB used by a close extraction guide scores that guide's similarity (the best one). */
export function guideSignal(index: CatalogIndex, guides: GuideRef[]): { score: number[]; best: (GuideRef | null)[] } {
  const best: (GuideRef | null)[] = index.entries.map(() => null);
  for (const guide of guides) {
    for (const kbId of new Set(guide.kbIds)) {
      const entry = index.entryOf.get(kbId);
      if (entry === undefined) continue;
      if (!best[entry] || guide.score > best[entry]!.score) best[entry] = guide;
    }
  }
  return { score: best.map((g) => (g ? Math.max(0, Math.min(1, g.score)) : 0)), best };
}
