import type { RunOutcome } from "../pipeline/run/types";
import type { HiddenNotice } from "./types";

/** Every knowledge base a stored outcome read from or reports on (not counting entity-link candidates). */
export function kbsReadBy(outcome: RunOutcome): Set<string> {
  const ids = new Set<string>();
  for (const e of outcome.evidence ?? []) ids.add(e.piece.provenance.kb);
  for (const c of outcome.candidates ?? []) ids.add(c.kbId);
  for (const q of outcome.queries ?? []) ids.add(q.kbId);
  if (outcome.winner) ids.add(outcome.winner.kbId);
  return ids;
}

/**
 * Cuts a stored outcome to what a viewer may see now. A run that read a knowledge base the viewer may
 * not use (access changed since, or an analyst reviewing someone else's run) is withheld whole: its
 * answer, evidence, refinement path and candidate reasons all carry that KB's content in free text, so
 * partial redaction would leak. Entity links into such KBs (made while understanding the question, before
 * any KB was read) are structured and simply dropped.
 */
export function redactOutcome(
  outcome: RunOutcome,
  canUse: (kbId: string) => boolean,
  extraKbIds: Iterable<string> = [],
): { outcome: RunOutcome | null; hidden: HiddenNotice | null } {
  const read = kbsReadBy(outcome);
  for (const id of extraKbIds) read.add(id);
  if ([...read].some((id) => !canUse(id))) return { outcome: null, hidden: { wholeResult: true, entityLinks: 0 } };
  if (!outcome.intent) return { outcome, hidden: null };
  let dropped = 0;
  const entities = outcome.intent.entities.map((m) => {
    const links = m.links.filter((l) => canUse(l.kbId));
    dropped += m.links.length - links.length;
    return links.length === m.links.length ? m : { ...m, links };
  });
  if (!dropped) return { outcome, hidden: null };
  return { outcome: { ...outcome, intent: { ...outcome.intent, entities } }, hidden: { wholeResult: false, entityLinks: dropped } };
}
