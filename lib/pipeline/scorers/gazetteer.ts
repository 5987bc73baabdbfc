import nlp from "compromise";

/**
 * Word lists taken from compromise's lexicon (first and last names, places, organisations, currencies,
 * honorifics, roles) for cheap type checks over hundreds of pieces. Running compromise's full tagger
 * costs ~3 ms per sentence and ~12 ms per passage, too much for a re-ranking round of 100 pieces; a
 * lookup of the same words costs microseconds.
 */
export type GazetteerCategory = "firstName" | "lastName" | "place" | "organisation" | "currency" | "honorific" | "role" | "month";

const CATEGORY_OF_TAG: Record<string, GazetteerCategory> = {
  MaleName: "firstName",
  FemaleName: "firstName",
  FirstName: "firstName",
  LastName: "lastName",
  City: "place",
  Country: "place",
  Region: "place",
  Place: "place",
  Organization: "organisation",
  SportsTeam: "organisation",
  Currency: "currency",
  Honorific: "honorific",
  // compromise tags occupations ("director", "ceo", "singer") as Actor.
  Actor: "role",
  Month: "month",
};

let gazetteer: Map<string, Set<GazetteerCategory>> | null = null;

function load(): Map<string, Set<GazetteerCategory>> {
  const lexicon = (nlp as unknown as { model(): { one: { lexicon: Record<string, string | string[]> } } }).model().one.lexicon;
  const out = new Map<string, Set<GazetteerCategory>>();
  for (const [word, tags] of Object.entries(lexicon)) {
    for (const tag of Array.isArray(tags) ? tags : [tags]) {
      const category = CATEGORY_OF_TAG[tag];
      if (!category) continue;
      const set = out.get(word) ?? new Set<GazetteerCategory>();
      set.add(category);
      out.set(word, set);
    }
  }
  return out;
}

/** Categories of a lower-cased word or phrase ("new york" → place), empty when unknown. */
export function categoriesOf(word: string): ReadonlySet<GazetteerCategory> {
  gazetteer ??= load();
  return gazetteer.get(word) ?? EMPTY;
}

const EMPTY: ReadonlySet<GazetteerCategory> = new Set();

export function isIn(word: string, category: GazetteerCategory): boolean {
  return categoriesOf(word).has(category);
}
