import { DEFAULT_LINKS_PER_MENTION, rankLinks } from "../../entity-lookup";
import type { EntityLink } from "../../contracts";
import type { MentionCandidate } from "./mentions";

/** A mention chosen for the intent, with its span in the analysed text. */
export interface LinkedMention {
  mention: string;
  start: number;
  end: number;
  links: EntityLink[];
  /** A name by form (capitalised, quoted): kept even when it links nowhere. */
  proper: boolean;
}

/** A word n-gram becomes a mention only with a link at least this good. */
export const KEEP_SCORE = 0.5;
/** A single lower-case word must match a label (or its plural/singular) outright: "price" ~ "Price". */
const SINGLE_WORD_SCORE = 0.9;
/** Links a longer mention inherits from a name inside it are discounted by coverage and this factor. */
const INHERITED_WEIGHT = 0.9;

export const SCHEMA_KINDS = new Set(["table", "column", "predicate", "class"]);

/** The mention names a thing (a value, a node, a document) rather than a part of a schema. */
export function isNamedMention(m: { links: EntityLink[] }, proper = false): boolean {
  return proper || m.links.length === 0 || m.links.some((l) => l.score >= KEEP_SCORE && !SCHEMA_KINDS.has(l.kind));
}

interface Scored extends MentionCandidate {
  links: EntityLink[];
  best: number;
}

const inside = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start >= b.start && a.end <= b.end;
const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;

/** Links of `part` carried into `whole`, scaled by how much of `whole` the part covers. */
function inherit(part: Scored, whole: { words: number }): EntityLink[] {
  const coverage = part.words / Math.max(whole.words, 1);
  return part.links.map((l) => ({ ...l, score: l.score * coverage * INHERITED_WEIGHT }));
}

/**
 * Chooses the mentions of a question from its candidates and their links: linked spans by
 * coverage × link score, longest first, never overlapping; a linked span inside a longer one lends
 * it its links (discounted) instead of standing alone; a name that links nowhere still counts, so a
 * question about an unknown entity keeps it.
 */
export function selectMentions(
  candidates: MentionCandidate[],
  links: Map<string, EntityLink[]>,
  maxLinks = DEFAULT_LINKS_PER_MENTION,
): LinkedMention[] {
  const byPosition = new Map<string, Scored>();
  for (const c of candidates) {
    const key = `${c.start}:${c.end}`;
    const prev = byPosition.get(key);
    if (prev) prev.proper ||= c.proper;
    else {
      const l = links.get(c.text) ?? [];
      byPosition.set(key, { ...c, links: l, best: l[0]?.score ?? 0 });
    }
  }
  const all = [...byPosition.values()];
  const eligible = all
    .filter((c) => c.best >= KEEP_SCORE && (c.words > 1 || c.proper || c.best >= SINGLE_WORD_SCORE))
    .sort((a, b) => b.words * b.best - a.words * a.best || b.best - a.best || a.start - b.start);

  let accepted: Scored[] = [];
  for (const c of eligible) if (!accepted.some((a) => overlaps(a, c))) accepted.push(c);

  // Names not covered by a linked mention: an unknown "Globex Corporation" stays one mention even if
  // "Corporation" alone links somewhere; it takes that link, discounted.
  for (const name of all.filter((c) => c.proper).sort((a, b) => b.words - a.words)) {
    if (accepted.some((a) => inside(name, a))) continue;
    const within = accepted.filter((a) => inside(a, name));
    if (accepted.some((a) => overlaps(a, name) && !inside(a, name))) continue;
    const own = [...name.links, ...within.flatMap((w) => inherit(w, name))];
    accepted = accepted.filter((a) => !within.includes(a));
    const ranked = rankLinks(own, maxLinks);
    accepted.push({ ...name, links: ranked, best: ranked[0]?.score ?? 0 });
  }

  return accepted
    .sort((a, b) => a.start - b.start)
    .map((m) => {
      // Multi-word names inside the mention lend their links too ("Trail Runner" inside "Trail Runner 2").
      const parts = all.filter((c) => c !== m && inside(c, m) && c.links.length && (c.words > 1 || c.proper) && c.best >= KEEP_SCORE);
      const merged = parts.length ? rankLinks([...m.links, ...parts.flatMap((p) => inherit(p, m))], maxLinks) : m.links.slice(0, maxLinks);
      return { mention: m.text, start: m.start, end: m.end, links: merged, proper: m.proper };
    });
}
