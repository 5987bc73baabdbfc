import type { Constructs } from "../../../contracts";
import { borrowedName, namesTable } from "./column-choice";
import type { PositionedTerm } from "./question-cues";
import type { SchemaLinking } from "./types";
import { type ColumnFacts, nameColumn } from "./sql-structure";

/**
 * Projection: exactly the attributes the question asks for, read from its ask span ("What are the
 * [name and capacity of the stadium] with …"). The span splits into phrases at "and", commas, "of" and
 * "for"; each phrase names at most one column ("cell phone" is one column, "name and capacity" two), the
 * column whose words it holds best, preferring the entity the phrase is "of" ("the name … of the song" →
 * song_name). A phrase that names a table is the entity itself. Columns come out in question order.
 * When the ask names only an entity ("Which airlines …", "the stadiums"), its name column stands for it.
 */

export interface AskedColumn {
  column: ColumnFacts;
  /** Offset of its first word in the question, for ordering the SELECT list. */
  at: number;
}

export interface AskedProjection {
  columns: AskedColumn[];
  /** The table the ask names as its entity ("of the stadiums" → stadium), if any. */
  entity: string | null;
  /** Words the ask names that two tables' columns fit equally, nothing in the question telling them apart. */
  ambiguous: { words: string; columns: ColumnFacts[] }[];
}

/** Scores this close are a tie: the question does not say which column it means. */
const TIE = 1e-6;

const ID_WORDS = new Set(["id", "ids", "identifi", "code"]);
/** Words that split the ask into phrases: each phrase names one attribute or the entity. */
const SPLIT = /^(?:and|or|of|for|as\s+well\s+as|along|together|plus|,|;|'s|’s)$/i;

interface Phrase {
  words: PositionedTerm[];
  /** The phrase's words as written (for matching table names through the tokenizer once). */
  raw: string[];
  /** The phrase follows "of"/"for": it names whose attributes the others are. */
  owner: boolean;
}

function phrasesOf(question: string, positions: PositionedTerm[], ask: NonNullable<Constructs["ask"]>, taken: Set<number>): Phrase[] {
  const phrases: Phrase[] = [];
  let current: Phrase = { words: [], raw: [], owner: false };
  const flush = (owner: boolean) => {
    if (current.words.length > 0) phrases.push(current);
    current = { words: [], raw: [], owner };
  };
  const tokens = [...question.slice(ask.start, ask.end).matchAll(/[\p{L}\p{N}_]+|[,;]|'s|’s/gu)];
  for (const m of tokens) {
    const at = ask.start + m.index;
    if (SPLIT.test(m[0])) {
      flush(/^(?:of|for|'s|’s)$/i.test(m[0]));
      continue;
    }
    // A quoted identifier ("unitsInStock") is several positioned words inside one token.
    const words = positions.filter((w) => w.at >= at && w.at < at + m[0].length && w.term && !taken.has(w.at));
    if (words.length > 0) {
      current.words.push(...words);
      current.raw.push(m[0]);
    }
  }
  flush(false);
  return phrases;
}

/**
 * The table a phrase names ("the different car makers" → car_makers), if any: all of it, or its last
 * words with modifiers before them ("discontinued products", "French singers": the modifiers are
 * conditions, read as flags and values, not columns to show).
 */
function tableNamed(linking: SchemaLinking, phrase: Phrase, reach: Set<string>): string | null {
  const text = phrase.raw.join(" ");
  const whole = [...reach].find(
    (t) =>
      namesTable(linking, t, text) &&
      phrase.words.every((w) => (linking.tableTerms.get(t) ?? []).includes(w.term) || !isAttributeWord(linking, t, w.term)),
  );
  if (whole) return whole;
  for (let n = 1; n < phrase.raw.length; n++) {
    const tail = phrase.raw.slice(phrase.raw.length - n).join(" ");
    const table = [...reach].find((t) => namesTable(linking, t, tail));
    if (table) return table;
  }
  return null;
}

/** Whether a word is one of the table's own column words (not its name). */
function isAttributeWord(linking: SchemaLinking, table: string, term: string): boolean {
  const tt = new Set(linking.tableTerms.get(table) ?? []);
  return (linking.columns.get(table) ?? []).some((c) => c.ownTerms.includes(term) && !tt.has(term));
}

export function askedProjection(
  question: string,
  linking: SchemaLinking,
  ask: Constructs["ask"],
  positions: PositionedTerm[],
  reach: Set<string>,
  taken: Set<number>,
): AskedProjection | null {
  if (!ask) return null;
  const phrases = phrasesOf(question, positions, ask, taken);
  const entities = phrases.map((p) => ({ p, table: tableNamed(linking, p, reach) }));
  const named = entities.filter((e) => e.table).map((e) => e.table!);
  // The entity asked about: the last table the ask names ("the name of the country of the maker" → maker), else the answer table.
  const entity = named[named.length - 1] ?? null;
  const ownerTerms = new Set(phrases.filter((p) => p.owner).flatMap((p) => p.words.map((w) => w.term)));
  const wantsId = phrases.some((p) => p.words.some((w) => ID_WORDS.has(w.term)));
  const columns: AskedColumn[] = [];
  const ambiguous: AskedProjection["ambiguous"] = [];
  for (const { p, table } of entities) {
    if (table) continue;
    let best: { column: ColumnFacts; score: number; at: number } | null = null;
    const scored: { column: ColumnFacts; score: number }[] = [];
    for (const t of reach) {
      const tableTerms = linking.tableTerms.get(t) ?? [];
      for (const c of linking.columns.get(t) ?? []) {
        if (c.key && !wantsId) continue;
        if (columns.some((a) => a.column === c)) continue;
        const hits = p.words.filter((w) => c.ownTerms.includes(w.term));
        const distinct = new Set(hits.map((h) => h.term)).size;
        const coverage = distinct / c.ownTerms.length;
        if (distinct === 0 || coverage < 0.5) continue;
        // "singer name": the table's word in the phrase ties the column to it; "of the song": the owner's word in the column's name.
        const tableWords = p.words.filter((w) => tableTerms.includes(w.term) && !c.ownTerms.includes(w.term)).length;
        const owned = c.terms.some((term) => ownerTerms.has(term) && !c.ownTerms.every((o) => o === term)) ? 0.6 : 0;
        const inEntity = named.includes(t) ? 0.5 : 0;
        const score =
          distinct +
          coverage +
          0.3 * tableWords +
          owned +
          inEntity +
          (t === entity ? 0.25 : 0) +
          (t === linking.root && linking.rootTiedWith.length === 0 ? 0.2 : 0) -
          (c.key ? 0.1 : 0) -
          0.1 * (p.words.length - distinct);
        scored.push({ column: c, score });
        if (!best || score > best.score) best = { column: c, score, at: Math.min(...hits.map((h) => h.at)) };
      }
    }
    if (best) {
      columns.push({ column: best.column, at: best.at });
      const top = best;
      const tied = scored.filter((x) => Math.abs(x.score - top.score) <= TIE && x.column.table !== top.column.table);
      // A tie is a question only when nothing points at one of the tables: not the answer table, none the question names.
      const pointed = (t: string) =>
        (t === linking.root && !tied.some((x) => linking.rootTiedWith.includes(x.column.table))) ||
        t === entity ||
        linking.tableCoverage(t) > 0;
      if (tied.length > 0 && ![top, ...tied].some((x) => pointed(x.column.table)))
        ambiguous.push({ words: p.raw.join(" "), columns: [top.column, ...tied.map((t) => t.column)] });
    }
  }
  columns.sort((a, b) => a.at - b.at);
  return { columns, entity, ambiguous };
}

/** The column that stands for an entity asked by name only: its name column, else a name borrowed through its key, else its key. */
export function entityColumn(linking: SchemaLinking, table: string): ColumnFacts | null {
  const columns = linking.columns.get(table) ?? [];
  const pk = linking.structure.tables.find((t) => t.name === table)?.primaryKey ?? [];
  if (linking.entityIdentity && pk.length === 1) return columns.find((c) => c.name === pk[0]) ?? null;
  return nameColumn(columns) ?? borrowedName(linking, table) ?? (pk.length === 1 ? (columns.find((c) => c.name === pk[0]) ?? null) : null);
}
