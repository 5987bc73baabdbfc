import { tokenize } from "../../../backends/sql/lexical";
import type { KbStructure, NativeQuery } from "../../../backends/types";
import type { Intent } from "../../contracts";
import { normalizeLabel } from "../../text";
import { identifierTerms, splitIdentifiers, textTerms } from "./lexicon";

/**
 * Guides teach vocabulary: the words of a guide's question that no schema name explains, mapped to the
 * one column its query uses that no question word explains ("wealth" → Net_Worth_Millions). The schema
 * linker consults it for every question on that source: a question with a learned word also offers the
 * column's own words (added to the intent's keywords, which linking reads; formulation only). Learned
 * from the guides' SQL read by the engine's lexer, against the source's own column names; a word the
 * guides tie to different columns teaches nothing.
 */

export interface GuideExample {
  kbId: string;
  question: string;
  query: NativeQuery;
}

/** Learned words of one source: stemmed question term → the column identifier it names. */
export type Vocabulary = Map<string, string>;

/** Terms no column should learn: the question's shape, not its subject. */
const SHAPE_TERMS = new Set(
  textTerms(
    "what which who whom whose where when how many much list show name find give count return number total average mean sum maximum minimum most least highest lowest largest smallest biggest top first last each every per all distinct different order sort ascending descending greater less more fewer than between",
  ),
);

const NAME_TERMS = new Set(identifierTerms("name title label caption"));

type SqlStructure = Extract<KbStructure, { kind: "sql" }>;

function columnsOf(structure: SqlStructure): Map<string, { name: string; terms: string[]; key: boolean }> {
  const out = new Map<string, { name: string; terms: string[]; key: boolean }>();
  for (const t of structure.tables) {
    const fks = new Set(t.foreignKeys.flatMap((fk) => fk.columns));
    for (const c of t.columns) {
      const terms = identifierTerms(c.name);
      // Keys join and names label rows (the linker shows them by itself): neither is what a word must name.
      const key =
        t.primaryKey.includes(c.name) || fks.has(c.name) || terms[terms.length - 1] === "id" || terms.some((x) => NAME_TERMS.has(x));
      out.set(c.name.toLowerCase(), { name: c.name, terms, key });
    }
  }
  return out;
}

/** The column identifiers a query's text uses (words and quoted identifiers the engine's lexer reads). */
function usedColumns(sql: string, structure: SqlStructure, columns: ReturnType<typeof columnsOf>): string[] {
  const out = new Set<string>();
  for (const t of tokenize(sql, structure.dialect)) {
    if (t.kind !== "word" && t.kind !== "quoted") continue;
    const raw = sql.slice(t.start, t.end);
    const name = (t.kind === "quoted" ? raw.slice(1, -1) : raw).toLowerCase();
    if (columns.has(name)) out.add(name);
  }
  return [...out];
}

/** What one source's guides teach (SQL sources; other kinds teach nothing yet). */
export function learnVocabulary(examples: GuideExample[], structure: KbStructure | null): Vocabulary {
  const vocabulary: Vocabulary = new Map();
  if (structure?.kind !== "sql") return vocabulary;
  const columns = columnsOf(structure);
  const schemaTerms = new Set([
    ...structure.tables.flatMap((t) => identifierTerms(t.name)),
    ...[...columns.values()].flatMap((c) => c.terms),
  ]);
  const conflicting = new Set<string>();
  for (const ex of examples) {
    if (ex.query.language !== "sql") continue;
    const questionTerms = new Set(textTerms(ex.question));
    // The columns no question word explains (keys only join): the ones the analyst's words must have named.
    const unexplained = usedColumns(ex.query.text, structure, columns)
      .map((n) => columns.get(n)!)
      .filter((c) => !c.key && !c.terms.some((t) => questionTerms.has(t)));
    if (unexplained.length !== 1) continue;
    // Literal values of the query are the question's values, not vocabulary.
    const literals = new Set(
      [...ex.query.text.matchAll(/'((?:[^']|'')*)'/g)].flatMap((m) => textTerms(normalizeLabel(m[1].replace(/''/g, "'")))),
    );
    const words = [...questionTerms].filter((t) => !schemaTerms.has(t) && !SHAPE_TERMS.has(t) && !literals.has(t) && !/^\d/.test(t));
    for (const w of words) {
      const column = unexplained[0].name;
      const known = vocabulary.get(w);
      if (known !== undefined && known !== column) conflicting.add(w);
      else vocabulary.set(w, column);
    }
  }
  for (const w of conflicting) vocabulary.delete(w);
  return vocabulary;
}

/**
 * The intent as the schema linker of this source reads it: a learned word in the question brings its
 * column's words with it (as keywords). Unchanged when the question has none.
 */
export function withVocabulary(intent: Intent, vocabulary: Vocabulary): { intent: Intent; learned: string[] } {
  if (vocabulary.size === 0) return { intent, learned: [] };
  const columns = new Set<string>();
  for (const t of textTerms(intent.completed)) {
    const column = vocabulary.get(t);
    if (column) columns.add(column);
  }
  if (columns.size === 0) return { intent, learned: [] };
  const learned = [...columns];
  return { intent: { ...intent, keywords: [...intent.keywords, ...learned.map((c) => splitIdentifiers(c))] }, learned };
}

/**
 * The words an analyst gave a column or measure in the table's notes (table-notes.ts) name it like its
 * own: a question that uses every word of a synonym ("how old" → age, "turnover" → revenue) offers the
 * column's words to the linker, as a guide's learned word does. Returns what was named, for the trace.
 */
export function withNotedSynonyms(intent: Intent, structure: KbStructure | null): { intent: Intent; named: string[] } {
  if (structure?.kind !== "sql") return { intent, named: [] };
  const asked = new Set(textTerms(intent.completed));
  const named: string[] = [];
  const words: string[] = [];
  for (const t of structure.tables) {
    for (const c of t.columns) {
      const synonym = c.synonyms?.find((s) => {
        const terms = textTerms(s);
        return terms.length > 0 && terms.every((x) => asked.has(x));
      });
      if (!synonym) continue;
      named.push(`"${synonym}" → ${t.name}.${c.name}`);
      words.push(splitIdentifiers(c.name));
    }
  }
  if (named.length === 0) return { intent, named };
  return { intent: { ...intent, keywords: [...intent.keywords, ...words] }, named };
}
