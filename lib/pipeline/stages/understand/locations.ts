import type { EntityLink } from "../../contracts";
import { looksLikePlace } from "./link-evidence";
import { KEEP_SCORE, SCHEMA_KINDS } from "./linking";
import type { Token } from "./tokens";

const PLACE_PREPOSITIONS = new Set(["in", "from", "near", "across", "around"]);

interface MentionLike {
  mention: string;
  start: number | null;
  end: number | null;
  links: EntityLink[];
  proper: boolean;
}

/**
 * Locations of the question: linked mentions whose KB entry is a place; names that link nowhere but
 * that compromise tags as places or that follow "in"/"from"/"near" ("orders from Globexia").
 */
export function extractLocations(tokens: Token[], mentions: MentionLike[], timeSpans: [number, number][]): string[] {
  const out = new Map<string, string>();
  for (const m of mentions) {
    // Only instances can be places: the column "region" is not a location, the value "Nordics" is.
    const strong = m.links.filter((l) => l.score >= KEEP_SCORE);
    if (strong.length && strong.every((l) => SCHEMA_KINDS.has(l.kind))) continue;
    let place = false;
    if (strong.length) place = strong.some(looksLikePlace);
    else if (m.proper && m.start !== null && m.end !== null) {
      const { start, end } = { start: m.start, end: m.end };
      if (timeSpans.some(([s, e]) => start < e && s < end)) continue;
      const inSpan = tokens.filter((t) => t.start >= start && t.end <= end);
      const before = tokens.filter((t) => t.end <= start).at(-1);
      place =
        inSpan.some((t) => t.tags.has("Place") && !t.tags.has("Person") && !t.tags.has("Organization")) ||
        (!!before && PLACE_PREPOSITIONS.has(before.lower));
    }
    if (place && !out.has(m.mention.toLowerCase())) out.set(m.mention.toLowerCase(), m.mention);
  }
  return [...out.values()];
}
