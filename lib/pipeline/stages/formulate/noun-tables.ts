import decision from "../../../data/counted-noun-meaning.json";
import { readableIdentifier } from "../../../catalog/semantic-texts";
import type { TextEmbeddings } from "../../../models/text-embeddings";
import type { Embedder } from "../../../models/types";
import type { Intent } from "../../contracts";
import { cosine } from "../../scorers/dense";
import { countedNounWords, namesAKind } from "../understand/counted-noun";
import { constructsOf } from "../understand/constructs";
import type { SqlStructure } from "./sql/sql-structure";

/**
 * The table a count noun names by meaning, for the nouns no table name covers in words: "how many
 * films" counts movie rows, "the number of vendors" supplier rows. The closest table by the embedder's
 * cosine between the noun and the table's name in words, taken only when the cosine reaches the floor
 * and stands the margin above the schema's next table: both chosen on Spider's training questions
 * (training/schema_linking/counted_noun_tables.ts → lib/data/counted-noun-meaning.json), where the
 * rule picked the counted table in 95 % of the questions it decided (87 % leave-one-database-out).
 * A noun that holds a name ("Acme Air flights") is not placed by meaning (counted-noun.ts namesAKind).
 * Below the floor the noun stays unplaced and formulation counts the answer table's rows, as without models.
 */

export const NOUN_TABLE_FLOOR: number = decision.floor;
export const NOUN_TABLE_MARGIN: number = decision.margin;

/** The table `cosines` (by table) singles out, or null when none is close enough or two are alike. */
export function closestTable(cosines: ReadonlyMap<string, number>): string | null {
  const ranked = [...cosines].sort((a, b) => b[1] - a[1]);
  const [top, next] = ranked;
  if (!top || top[1] < NOUN_TABLE_FLOOR) return null;
  return top[1] - (next?.[1] ?? 0) >= NOUN_TABLE_MARGIN ? top[0] : null;
}

/** By noun as the question wrote it: the table it names by meaning (absent when none). */
export async function nounTables(
  models: { embedder: Embedder; texts: TextEmbeddings },
  intent: Intent,
  structure: SqlStructure,
  signal?: AbortSignal,
): Promise<Record<string, string>> {
  const nouns = [
    ...new Set(
      constructsOf(intent)
        .countNouns.map((n) => n.noun)
        .filter(namesAKind),
    ),
  ];
  if (nouns.length === 0 || structure.tables.length < 2) return {};
  const tableTexts = structure.tables.map((t) => readableIdentifier(t.name));
  const words = [...new Set(nouns.flatMap(countedNounWords))];
  const [tableVectors, wordVectors] = await Promise.all([
    models.texts.vectors(tableTexts, { signal }),
    models.embedder.embed(words, "query", { signal }),
  ]);
  const vectorOf = new Map(words.map((w, i) => [w, wordVectors[i]!]));
  const out: Record<string, string> = {};
  for (const noun of nouns) {
    const mine = countedNounWords(noun).map((w) => vectorOf.get(w)!);
    const cosines = new Map(structure.tables.map((t, i) => [t.name, Math.max(...mine.map((v) => cosine(v, tableVectors[i]!)))]));
    const table = closestTable(cosines);
    if (table) out[noun] = table;
  }
  return out;
}
