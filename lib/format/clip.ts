/**
 * Shortens text to at most `max` characters (the ellipsis included) at a word boundary, so a summary
 * never ends in half a word: "Selected 3 of 5 sources: Aurora…". Runs of whitespace become one space.
 * Only a first word longer than a third of `max` is ever cut inside.
 */
export function clipAtWord(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const limit = max - 1; // room for the ellipsis
  // One character more than fits, to see whether a word ends exactly at the limit.
  const end = flat.slice(0, limit + 1).lastIndexOf(" ");
  const cut = end >= limit / 3 ? flat.slice(0, end) : flat.slice(0, limit);
  return `${cut.replace(/[\s,;:–-]+$/, "")}…`;
}
