import { normalizeLabel } from "../../text";
import type { EntityLink, EntityMention, Intent } from "../../contracts";
import type { Adjustments } from "./feedback";

/**
 * The question's entities as one KB sees them: each mention with its best usable link into this KB
 * (after the critic's skips), or none, in question order.
 */
export interface ResolvedEntity {
  mention: string;
  /** normalizeLabel(mention): the key feedback adjustments use. */
  key: string;
  /** The chosen link into this KB, or null (the mention is then only text). */
  link: EntityLink | null;
  /** The links after the chosen one, for alternatives. */
  alternatives: EntityLink[];
  /** The critic asked to find this mention by its surface text. */
  byName: boolean;
  fromContext: boolean;
}

/** Below this a link is a guess (a partial match of a common word) and would mislead a filter. */
export const MIN_LINK_SCORE = 0.5;

function linksInto(entity: EntityMention, kbId: string): EntityLink[] {
  return entity.links.filter((l) => l.kbId === kbId && l.score >= MIN_LINK_SCORE).sort((a, b) => b.score - a.score);
}

/**
 * Entities of the intent for one KB, in question order. Dropped mentions are left out (or kept as
 * text to look up by name when the critic asked for that); a skipped link moves to the next-best one.
 */
export function resolveEntities(intent: Intent, kbId: string, adj: Adjustments): ResolvedEntity[] {
  const ordered = [...intent.entities].sort((a, b) => (a.span?.[0] ?? Number.MAX_SAFE_INTEGER) - (b.span?.[0] ?? Number.MAX_SAFE_INTEGER));
  const out: ResolvedEntity[] = [];
  for (const entity of ordered) {
    const key = normalizeLabel(entity.mention);
    if (!key || adj.dropEntities.has(key)) {
      if (adj.dropEntities.has(key) && adj.lookUpByName.has(key)) {
        out.push({ mention: entity.mention, key, link: null, alternatives: [], byName: true, fromContext: entity.fromContext });
      }
      continue;
    }
    const links = linksInto(entity, kbId);
    const skip = adj.skipLinks.get(key) ?? 0;
    if (skip > 0 && links.length <= skip) continue; // every link was wrong: the mention no longer constrains
    out.push({
      mention: entity.mention,
      key,
      link: links[skip] ?? null,
      alternatives: links.slice(skip + 1),
      byName: adj.lookUpByName.has(key),
      fromContext: entity.fromContext,
    });
  }
  return out;
}
