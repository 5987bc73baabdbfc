import { terms } from "../../../text";
import { coverage, singularIrregulars } from "../lexicon";
import { neighbours, planJoins } from "./join-path";
import type { SchemaLinking } from "./types";
import { type ColumnFacts, nameColumn } from "./sql-structure";

/** Column and table choices every part of SQL formulation makes the same way. */

/** A column counts as asked for when the question names at least half of its own words. */
export const MENTIONED = 0.5;

export function label(c: ColumnFacts): string {
  return `${c.table}.${c.name}`;
}

/** The columns that identify a row to a person: the single-column primary key and the name column. */
export function identity(linking: SchemaLinking, table: string): ColumnFacts[] {
  const columns = linking.columns.get(table) ?? [];
  const pk = linking.structure.tables.find((t) => t.name === table)?.primaryKey ?? [];
  const out: ColumnFacts[] = [];
  if (pk.length === 1) {
    const key = columns.find((c) => c.name === pk[0]);
    if (key) out.push(key);
  }
  const name = nameColumn(columns) ?? borrowedName(linking, table);
  if (name && !out.includes(name)) out.push(name);
  return out;
}

/**
 * A table without a name column (poker_player: ids and numbers) is named by the row its foreign key
 * points at (the person's name), when exactly that one FK target has a name.
 */
export function borrowedName(linking: SchemaLinking, table: string): ColumnFacts | null {
  const t = linking.structure.tables.find((x) => x.name === table);
  const named = (t?.foreignKeys ?? [])
    .map((fk) => nameColumn(linking.columns.get(fk.refTable) ?? []))
    .filter((c): c is ColumnFacts => c !== null);
  return named.length === 1 ? named[0] : null;
}

/** Whether `words` name `table`, also when the table name is one word for several ("Highschooler" ← "high schoolers"). */
export function namesTable(linking: SchemaLinking, table: string, words: string): boolean {
  const tt = linking.tableTerms.get(table) ?? [];
  const w = singularIrregulars(words);
  return coverage(tt, new Set(terms(w))) === 1 || coverage(tt, new Set(terms(w.replace(/\s+/g, "")))) === 1;
}

export function connected(linking: SchemaLinking): Set<string> {
  return new Set(
    planJoins(
      linking.structure,
      linking.root,
      linking.structure.tables.map((t) => t.name),
    ).tables,
  );
}

/** Tables the question is about: the answer table, tables of linked values, tables it names. */
export function relevantTables(linking: SchemaLinking, reach: Set<string>): string[] {
  const named = linking.structure.tables.map((t) => t.name).filter((t) => linking.tableCoverage(t) > 0 && reach.has(t));
  return [...new Set([linking.root, ...linking.values.map((v) => v.column.table), ...named])];
}

/** The relevant tables and the tables one foreign key away from the answer table (where its names and details often live). */
export function nearTables(linking: SchemaLinking, tables: string[]): string[] {
  return [...new Set([...tables, ...neighbours(linking.structure, linking.root)])];
}

export function columnsOf(linking: SchemaLinking, tables: Iterable<string>): ColumnFacts[] {
  return [...tables].flatMap((t) => linking.columns.get(t) ?? []);
}

/** Highest score wins; ties go to the earlier column (the answer table's come first). */
export function best(columns: ColumnFacts[], score: (c: ColumnFacts) => number, min = 0): ColumnFacts | null {
  let top: ColumnFacts | null = null;
  let topScore = min;
  for (const c of columns) {
    const s = score(c);
    if (s > topScore) {
      top = c;
      topScore = s;
    }
  }
  return top;
}

/**
 * The measures (table-notes.ts) the question names, in any table it can reach: an analyst's measure is
 * asked for by its name wherever its table sits ("customers by revenue" reaches the order lines through
 * the orders), unlike a stored column, which must sit near the answer table to be meant.
 */
export function namedMeasures(linking: SchemaLinking, reach: Iterable<string>): ColumnFacts[] {
  return columnsOf(linking, reach).filter((c) => c.measure && linking.columnScore(c) >= MENTIONED);
}

/** Mentioned non-key columns of `table`, best named first. */
export function mentionedColumns(linking: SchemaLinking, table: string): ColumnFacts[] {
  return (linking.columns.get(table) ?? [])
    .filter((c) => !c.key && linking.columnScore(c) >= MENTIONED)
    .sort((a, b) => linking.columnScore(b) - linking.columnScore(a));
}
