import type { Constructs, Intent, TimeCue } from "../../../contracts";
import { chooseSuperlativeAttribute, coverage, textTerms } from "../lexicon";
import { terms } from "../../../text";
import { best, columnsOf, label, MENTIONED, namesTable, nearTables } from "./column-choice";
import { type ComparisonOp, type PositionedTerm, wordDistance } from "./question-cues";
import { connectiveBetween } from "./nesting-picks";
import { constructsOf } from "../../understand/constructs";
import type { PickContext, SchemaLinking, SqlLookup, SqlNegation, SqlNumericFilter, SqlTimeFilter, SqlValueFilter } from "./types";
import { type ColumnFacts, nameColumn } from "./sql-structure";

/**
 * The WHERE side of SQL formulation: which column a time cue, a numeric comparison or a quoted phrase
 * restricts, which tables the answers must lack, which linked values are negated, which yes/no
 * properties the answers have.
 */

function dateColumns(linking: SchemaLinking, tables: Iterable<string>): ColumnFacts[] {
  return columnsOf(linking, tables).filter((c) => c.dateLike || c.yearLike);
}

/**
 * The date column a time cue restricts: of the tables in the query, the one whose table or column
 * words come right before the cue ("performed in a concert in 2014" → the concert's year).
 */
export function pickTimeColumn(
  linking: SchemaLinking,
  tables: string[],
  reach: Set<string>,
  positions: PositionedTerm[],
  at: number,
): ColumnFacts | null {
  const near = dateColumns(linking, tables);
  const further = dateColumns(
    linking,
    [...reach].filter((t) => !tables.includes(t)),
  );
  // "movies produced by someone born in 1952": the column named right before the cue, though its table is not named.
  const namedAtCue = at >= 0 ? further.filter((c) => wordDistance(positions, at, c.ownTerms, 2, 0) <= 2) : [];
  const candidates = near.length > 0 ? [...near, ...namedAtCue] : further;
  return best(candidates, (c) => {
    const distance = at >= 0 ? wordDistance(positions, at, [...(linking.tableTerms.get(c.table) ?? []), ...c.ownTerms], 6, 2) : Infinity;
    return 1 + linking.columnScore(c) + (c.table === linking.root ? 0.1 : 0) + (Number.isFinite(distance) ? 1 - distance / 10 : 0);
  });
}

/** Time cues that restrict a period (ordinal cues order instead). */
export function periodCues(intent: Intent): TimeCue[] {
  return intent.time.filter((c) => c.kind !== "ordinal" && (c.start || c.end || /\b\d{4}\b/.test(c.text)));
}

export function pickNumericFilters(
  intent: Intent,
  linking: SchemaLinking,
  tables: string[],
  positions: PositionedTerm[],
  notes: string[],
  reach: Set<string> = new Set(tables),
  unresolved: string[] = [],
  /** Spans a count or measure condition (HAVING) already reads. */
  consumed: { at: number; end: number }[] = [],
): SqlNumericFilter[] {
  const out: SqlNumericFilter[] = [];
  const candidates = columnsOf(linking, nearTables(linking, tables)).filter((c) => (c.numeric || c.yearLike) && !c.key);
  // The analysts' measures of every table a join reaches: a measure sums its rows up per answer row, wherever they sit.
  const measures = columnsOf(linking, reach).filter((c) => c.measure && !candidates.includes(c));
  for (const cmp of constructsOf(intent).comparisons) {
    if (consumed.some((h) => cmp.at < h.end && cmp.at + cmp.text.length > h.at)) continue;
    const attribute = new Set(textTerms(cmp.attribute));
    const span = cmp.text.split(/\s+/).length;
    let column = best(candidates, (c) => coverage(c.ownTerms, attribute));
    // An equality ("grade 10", "with 4 cylinders") needs the column named; proximity alone would guess.
    if (!column && cmp.op === "=") continue;
    column ??= best([...candidates, ...measures], (c) => {
      const distance = wordDistance(positions, cmp.at, c.ownTerms, 4, span + 3);
      return Number.isFinite(distance) ? 10 - distance : 0;
    });
    let inverted = false;
    if (!column && cmp.attribute) {
      const choice = chooseSuperlativeAttribute(
        { direction: "max", attribute: cmp.attribute, limit: 1 },
        candidates.map((c) => ({ item: c, terms: c.terms })),
        new Set(),
        intent.completed,
      );
      column = choice?.item ?? null;
      inverted = choice?.inverted === true;
    }
    if (column && inverted) {
      const asYears = inverseComparison(cmp, column, new Date().getUTCFullYear());
      if (!asYears) {
        unresolved.push(
          `I could not compare "${cmp.text}" with ${label(column)}, which measures it inversely (an earlier value is ${cmp.attribute}); ask with a date or year.`,
        );
        continue;
      }
      out.push({ column, op: asYears.op, values: asYears.values, withAverage: false, at: cmp.at, end: cmp.at + cmp.text.length });
      notes.push(`"${cmp.text}" → ${label(column)} ${asYears.op} ${asYears.values.join(" and ")} (${asYears.why})`);
      continue;
    }
    column ??= best(measures, (c) => coverage(c.ownTerms, attribute), 0.49);
    // "cost more than 1000 euros": no word names the column, but one stands out from its table's columns in
    // meaning (price). Any closeness above 0 does: column-meaning.ts leaves what is within noise at 0. Otherwise
    // the condition could not be applied at all. The answer rows' own attribute first, then a related table's.
    const byMeaning = candidates.filter((c) => c.numeric);
    column ??=
      best(
        byMeaning.filter((c) => c.table === linking.root),
        (c) => linking.columnScore(c),
      ) ?? best(byMeaning, (c) => linking.columnScore(c));
    if (!column) {
      // A comparison no column takes is said, not dropped: the query would return rows the question excludes.
      if (cmp.op !== "=")
        unresolved.push(
          `I could not tell which column "${cmp.text}" compares, so I could not apply that condition; name the attribute as the source names it.`,
        );
      continue;
    }
    out.push({ column, op: cmp.op, values: cmp.values, withAverage: cmp.withAverage, at: cmp.at, end: cmp.at + cmp.text.length });
    notes.push(`"${cmp.text}" → ${label(column)} ${cmp.op}${cmp.withAverage ? " average" : ` ${cmp.values.join(" and ")}`}`);
  }
  return out;
}

const FLIPPED: Partial<Record<ComparisonOp, ComparisonOp>> = { ">": "<", "<": ">", ">=": "<=", "<=": ">=" };

/** Whether a column holds years by its values (a birth year called "born", a "founded" column). */
function holdsYears(c: ColumnFacts): boolean {
  const years = c.examples.map(Number).filter((v) => Number.isInteger(v) && v >= 1000 && v <= 2999);
  return c.yearLike || (c.examples.length > 0 && years.length === c.examples.length);
}

/**
 * A comparison by an adjective its column measures inversely ("older than 80" of a birth year: the
 * earlier the year, the older): the comparator turns around, and an amount of years ("80", not a year
 * itself) becomes the year that many years before `thisYear` (older than 80 → born before 1946). Null
 * when the column holds dates or other values, where no such reading is safe.
 */
export function inverseComparison(
  cmp: { op: ComparisonOp; values: number[]; withAverage: boolean; attribute: string },
  column: ColumnFacts,
  thisYear: number,
): { op: ComparisonOp; values: number[]; why: string } | null {
  const op = FLIPPED[cmp.op];
  if (!op || cmp.withAverage || cmp.values.length !== 1 || !holdsYears(column)) return null;
  const [n] = cmp.values;
  if (n >= 1000) return { op, values: [n], why: `a year: "${cmp.attribute}" means earlier` };
  return { op, values: [thisYear - n], why: `${n} years before ${thisYear}` };
}

/** "based in 'Berlin'", "shipped to 'Reims'": a place preposition right before a quoted name. */
const PLACE_CUE = /\b(?:in|from|to|at|near)\s*$/i;
const CITY_TERMS = new Set(terms("city town"));

/**
 * The city column a quoted place name is in ("customers in 'Berlin'" → the customers' city): the one
 * of the table named nearest before the quote, else the answer table's. Countries and regions are few
 * and linked as values; a quoted place that is not is most often a city.
 */
function placeColumn(
  question: string,
  q: { text: string; at: number },
  text: ColumnFacts[],
  linking: SchemaLinking,
  positions: PositionedTerm[],
): ColumnFacts | null {
  if (!/^\p{Lu}/u.test(q.text) || !PLACE_CUE.test(question.slice(Math.max(0, q.at - 20), q.at + 1))) return null;
  const cities = text.filter((c) => c.ownTerms.some((t) => CITY_TERMS.has(t)));
  return best(cities, (c) => {
    const distance = wordDistance(positions, q.at, linking.tableTerms.get(c.table) ?? [], 6, 0);
    return Number.isFinite(distance) ? 10 - distance : c.table === linking.root ? 1 : 0.5;
  });
}

/** How many content words either side of a name may name its attribute ("the Kayaks product category"). */
const BESIDE_WORDS = 2;

/** The content words right beside a span: after it up to the first stopword, or before it back to the first stopword. */
function wordsBeside(question: string, span: [number, number], positions: PositionedTerm[], side: "before" | "after"): Set<string> {
  const out = new Set<string>();
  const after = positions.findIndex((p) => p.at >= span[1]);
  const first = positions.findIndex((p) => p.at >= span[0]);
  const start = side === "after" ? (after < 0 ? positions.length : after) : (first < 0 ? positions.length : first) - 1;
  const step = side === "after" ? 1 : -1;
  for (let i = start, taken = 0; i >= 0 && i < positions.length && taken < BESIDE_WORDS; i += step) {
    const p = positions[i];
    // A stopword ends the phrase: "the category of X" does not say that X is a category.
    if (!p.term) break;
    // So does punctuation between the words ("Kayaks, category").
    const gap =
      side === "after"
        ? question.slice(i === start ? span[1] : positions[i - 1].at, p.at)
        : question.slice(p.at, i === start ? span[0] : positions[i + 1].at);
    if (/[,;:()?!.]/.test(gap.replace(/^[\p{L}\p{N}_]+/u, ""))) break;
    out.add(p.term);
    taken++;
  }
  return out;
}

/**
 * The text column a name no index holds is a value of, when the words right beside it name that column: "in
 * the Kayaks category" → category, "with status Pending" → status. The column that the words name most fully
 * (most of its own words), the answer table's first on a tie.
 */
function besideColumn(
  question: string,
  span: [number, number],
  text: ColumnFacts[],
  linking: SchemaLinking,
  positions: PositionedTerm[],
): ColumnFacts | null {
  const beside = new Set([...wordsBeside(question, span, positions, "after"), ...wordsBeside(question, span, positions, "before")]);
  if (beside.size === 0) return null;
  const named = text.filter((c) => c.ownTerms.length > 0 && coverage(c.ownTerms, beside) === 1);
  return best(named, (c) => c.ownTerms.length + (c.table === linking.root ? 0.5 : 0));
}

/**
 * Text columns a quoted phrase may be in: a city column for a quoted place name, the mentioned ones nearest the quote, else the answer table's name.
 * "starting with" / "ending in" before the quote anchor it to the start or the end of the value.
 */
export function pickLookups(
  intent: Intent,
  linking: SchemaLinking,
  tables: string[],
  positions: PositionedTerm[],
  notes: string[],
): (SqlLookup & { at: number })[] {
  const text = columnsOf(linking, tables).filter((c) => !c.numeric && !c.key && !c.dateLike && !c.yearLike);
  const rootName = nameColumn(linking.columns.get(linking.root) ?? []);
  const out: (SqlLookup & { at: number })[] = [];
  // "products with a 'reorderLevel' of 25 or higher": a quoted column name is the attribute, not text to find.
  const comparisons = constructsOf(intent).comparisons;
  const columnNames = new Set([...linking.columns.values()].flat().map((c) => c.name.toLowerCase()));
  for (const q of constructsOf(intent).quoted) {
    if (linking.values.some((v) => v.entity.mention.toLowerCase() === q.text.toLowerCase())) continue;
    if (columnNames.has(q.text.toLowerCase())) continue;
    // "required after '1997-01-01'": a quoted date the time cue already reads restricts a date column, not a name.
    if (periodCues(intent).some((c) => c.text.includes(q.text))) continue;
    // "with '0' units on order": a quoted number a comparison reads is that comparison's value.
    if (/^\d+(?:\.\d+)?$/.test(q.text) && comparisons.some((c) => c.at <= q.at + 1 && q.at + 1 < c.at + c.text.length)) continue;
    const column =
      placeColumn(intent.completed, q, text, linking, positions) ??
      best(text, (c) => {
        const distance = wordDistance(positions, q.at, c.ownTerms, 6, q.text.split(/\s+/).length + 6);
        return linking.columnScore(c) >= MENTIONED && Number.isFinite(distance) ? 10 - distance + linking.columnScore(c) : 0;
      }) ??
      rootName;
    if (column) out.push({ column, text: q.text, at: q.at, anchor: q.anchor, quoted: true });
  }
  for (const n of linking.unplaced ?? []) {
    const span = n.entity.span;
    if (!span || out.some((l) => l.text.toLowerCase() === n.entity.mention.toLowerCase())) continue;
    // placeColumn reads a quote's offset: the character before the name.
    const at = { text: n.entity.mention, at: Math.max(0, span[0] - 1) };
    const column =
      besideColumn(intent.completed, span, text, linking, positions) ?? placeColumn(intent.completed, at, text, linking, positions);
    if (column) out.push({ column, text: n.entity.mention, at: span[0] });
  }
  for (const e of linking.lookups)
    if (rootName && !out.some((l) => l.text.toLowerCase() === e.mention.toLowerCase()))
      out.push({
        column: rootName,
        text: e.mention,
        at: Math.max(0, intent.completed.toLowerCase().indexOf(e.mention.toLowerCase())),
        guessed: true,
      });
  const where = { contains: "in", prefix: "at the start of", suffix: "at the end of" };
  for (const l of out) notes.push(`looking up "${l.text}" ${where[l.anchor ?? "contains"]} ${label(l.column)}`);
  return out;
}

/** "stadiums without any concert": a table with a foreign key straight into the answer table, whose rows the answers lack. */
export function pickNegations(intent: Intent, linking: SchemaLinking, notes: string[]): SqlNegation[] {
  const root = linking.structure.tables.find((t) => t.name === linking.root);
  if (!root) return [];
  const out: SqlNegation[] = [];
  for (const negated of constructsOf(intent)
    .without.map((w) => terms(w))
    .filter((t) => t.length > 0)) {
    const bag = new Set(negated);
    for (const t of linking.structure.tables) {
      if (t.name === root.name || coverage(linking.tableTerms.get(t.name) ?? [], bag) === 0) continue;
      const fk = t.foreignKeys.find((f) => f.refTable === root.name && f.refColumns.length === f.columns.length);
      if (!fk) continue;
      out.push({ table: t.name, columns: fk.columns, refColumns: fk.refColumns });
      notes.push(`without any ${t.name} row`);
      break;
    }
  }
  return out;
}

/**
 * "suppliers that do not have a fax number", "with no listed phone number": a property the answers lack,
 * read as IS NULL. Only when the lacked words name no table (a missing related row is an anti-join,
 * pickNegations) and fully name one non-key column of a table the query can reach, the answer table's first.
 */
export function pickAbsent(
  lacked: Constructs["lacked"],
  linking: SchemaLinking,
  reach: Set<string>,
  notes: string[],
): { column: ColumnFacts }[] {
  const out: { column: ColumnFacts }[] = [];
  for (const phrase of lacked) {
    const words = phrase.text.split(/\s+/);
    if (linking.structure.tables.some((t) => words.some((_, i) => namesTable(linking, t.name, words.slice(0, i + 1).join(" "))))) continue;
    // "homePage" in a question is written as the property is named: its words apart too.
    const bag = new Set([...terms(phrase.text), ...terms(phrase.text.replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2"))]);
    const named = columnsOf(linking, [linking.root, ...[...reach].filter((t) => t !== linking.root)]).filter(
      (c) => !c.key && c.ownTerms.length > 0 && coverage(c.ownTerms, bag) === 1,
    );
    // The column that accounts for most of the phrase ("phone number" → phone, not a "number" column).
    const column = best(named, (c) => c.ownTerms.length + (c.table === linking.root ? 0.5 : 0));
    if (!column || out.some((a) => a.column === column)) continue;
    out.push({ column });
    notes.push(`"${phrase.text}" lacked → ${label(column)} IS NULL`);
  }
  return out;
}

/** "not from Russia", "whose type is not 'Live final'", "except Germany": a negation just before the mention. */
export function isNegated(question: string, mention: string, wider = false): boolean {
  const at = question.toLowerCase().indexOf(mention.toLowerCase());
  if (at < 0) return false;
  // After the critic's missing_negation feedback, "not" governs a longer stretch ("not live in the state of Hawaii").
  const words = wider ? 7 : 3;
  const pattern = new RegExp(
    String.raw`\b(?:not|n't|except|excluding|besides|other\s+than|apart\s+from)\b(?:\s+[\p{L}]+){0,${words}}\s*["'“‘]?$`,
    "iu",
  );
  return pattern.test(question.slice(Math.max(0, at - (wider ? 80 : 40)), at));
}

// ---------------------------------------------------------------------------------------------
// Linked values

/** The linked values the answer table reaches, as filters: negated where the question negates the mention. */
export function pickValueFilters(ctx: PickContext): SqlValueFilter[] {
  const { intent, linking, reach, adj, notes } = ctx;
  const values: SqlValueFilter[] = linking.values
    .filter((v) => reach.has(v.column.table))
    .map((v) => ({ ...v, negated: isNegated(intent.completed, v.entity.mention, adj.widerNegation) }));
  for (const v of values) notes.push(`linked "${v.entity.mention}" to ${label(v.column)} ${v.negated ? "<>" : "="} '${v.value}'`);
  return values;
}

// ---------------------------------------------------------------------------------------------
// Periods

/** The question's periods on the date column they restrict; periods joined by "and" on one column are read apart. */
export function pickTimeFilters(ctx: PickContext): SqlTimeFilter[] {
  const { intent, linking, tables, reach, positions, constructs, adj, notes } = ctx;
  const time: SqlTimeFilter[] = [];
  const cues = adj.relax ? [] : periodCues(intent);
  if (cues.length > 0) {
    const at = intent.completed.toLowerCase().indexOf(cues[0].text.toLowerCase());
    const column = pickTimeColumn(linking, tables, reach, positions, at);
    if (column) {
      // Periods joined by "and" on one column are read apart (both 2014 and 2015); "or" and lists stay one alternative.
      const apart =
        cues.length === 2 &&
        connectiveBetween(
          constructs,
          intent.completed.toLowerCase().indexOf(cues[0].text.toLowerCase()),
          intent.completed.toLowerCase().indexOf(cues[1].text.toLowerCase()),
        ) !== "or";
      if (apart) for (const cue of cues) time.push({ column, cues: [cue] });
      else time.push({ column, cues });
      notes.push(`time "${cues.map((c) => c.text).join(", ")}" on ${label(column)}`);
    }
  }
  return time;
}

// ---------------------------------------------------------------------------------------------
// Yes/no properties: "discontinued products", "products that are not discontinued"

const BOOLEAN_TYPE = /bool/i;

function yesNoColumns(
  question: string,
  linking: SchemaLinking,
  tables: string[],
  positions: PositionedTerm[],
): { column: ColumnFacts; value: boolean }[] {
  const out: { column: ColumnFacts; value: boolean }[] = [];
  for (const c of columnsOf(linking, tables)) {
    if (!BOOLEAN_TYPE.test(c.type)) continue;
    const hits = positions.filter((w) => c.ownTerms.includes(w.term));
    if (hits.length === 0 || new Set(hits.map((h) => h.term)).size < c.ownTerms.length) continue;
    const at = hits[0].at;
    const before = question.slice(Math.max(0, at - 24), at);
    out.push({ column: c, value: !/\b(?:not|no|non|never|n't|un)\b[\s-]*(?:\w+\s+)?$/i.test(before) });
  }
  return out;
}

export function pickFlags(ctx: PickContext): { column: ColumnFacts; value: boolean }[] {
  const flags = yesNoColumns(ctx.intent.completed, ctx.linking, ctx.tables, ctx.positions);
  for (const f of flags) ctx.notes.push(`"${f.column.name}" → ${label(f.column)} = ${f.value}`);
  return flags;
}
