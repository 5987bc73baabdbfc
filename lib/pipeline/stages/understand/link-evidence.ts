import type { EntityLink } from "../../contracts";
import { PLACE_WORDS } from "./lexicon";

/** Words of an identifier or IRI: "customers.city" → customers, city; ".../PopulatedPlace" → populated, place. */
export function identifierWords(s: string): string[] {
  return s
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
}

/**
 * What a link says about the kind of thing it points at: its column, predicate or class
 * ("customers.city=Munich" → customers, city; a node typed City; `<…/country> "Sweden"` → country).
 * The value itself is left out, so a customer called "Stockholm Area Club" is not a place.
 */
export function kindWords(link: EntityLink): string[] {
  const where = link.kind === "value" ? link.ref.split(/[="]/)[0] : "";
  return [
    ...identifierWords(link.sourceObject ?? ""),
    ...identifierWords(where),
    ...(link.kind === "class" ? identifierWords(link.label) : []),
  ];
}

export function looksLikePlace(link: EntityLink): boolean {
  return kindWords(link).some((w) => PLACE_WORDS.has(w));
}

const PERSON_WORDS = new Set(
  "person persons people actor actors actress director directors author authors writer writers player players singer singers employee employees manager managers executive executives ceo founder president artist artists musician musicians member members staff student students teacher teachers scientist scientists".split(
    " ",
  ),
);

export function looksLikePerson(link: EntityLink): boolean {
  return kindWords(link).some((w) => PERSON_WORDS.has(w));
}
