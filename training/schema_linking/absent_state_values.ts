/**
 * An experiment, measured and not shipped (docs/EVALUATION.md, "A word no row holds, placed on a column
 * by meaning"): can a word of the question that no index holds be taken as a value of a categorical text
 * column, so that "orders that were cancelled", when no order was, filters on the status column, finds
 * nothing and says so, instead of listing every order?
 *
 * Fitted on Spider's training split only. A positive is a training question whose gold query compares a
 * text column with a literal the question writes in lower case ("accessible by walk"); the literal is
 * taken out of its column's examples, as if no row held it, which is the case the rule would serve. Every
 * other candidate word of the same question (lower-case content words that name no table or column, are
 * no value of another column, and are not question vocabulary: words the questions of at least a tenth of
 * the training databases use) is a negative: it must not become a filter. Each column's examples are read
 * as the product reads them (the first three distinct non-empty values of the first 200 rows). A word's
 * score for a column is the embedder's cosine to the closest of the column's examples; the decision takes
 * the best column when the score reaches a floor and stands a margin above the next column. The script
 * prints precision and recall over a grid of floors and margins, and writes an artefact only when some
 * (floor, margin) reaches TARGET_PRECISION; none does (best 0.82), so the product has no such rule.
 * `--predicate-only` keeps only words right after a form of "to be" ("orders that were cancelled").
 *
 *   DATASETS_DIR=../shared/datasets MODELS_DIR=../shared/models \
 *     npx tsx training/schema_linking/absent_state_values.ts [--predicate-only] [--show FLOOR]
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { LocalModelRuntime } from "../../lib/models/local-runtime";
import { cosine } from "../../lib/pipeline/scorers/dense";
import { terms } from "../../lib/pipeline/text";
import { isStopword } from "../../lib/backends/documents/stopwords";
import { stemmer } from "stemmer";
import { identifierTerms } from "../../lib/pipeline/stages/formulate/lexicon";
import { type FloorMarginGrid, type Scored as DecisionScore, chooseFloorMargin, decide, leaveOneDatabaseOut } from "./floor-margin";

const TARGET_PRECISION = 0.9;
const FLOORS = [0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8];
const MARGINS = [0, 0.05, 0.1, 0.15, 0.2];
const EXAMPLE_SOURCE_ROWS = 200;
const EXAMPLES_PER_COLUMN = 3;

const datasets = process.env.DATASETS_DIR ?? path.resolve("..", "shared", "datasets");
const modelsDir = process.env.MODELS_DIR ?? path.resolve("..", "shared", "models");
const outArg = process.argv.indexOf("--out");
const out = outArg > 0 ? process.argv[outArg + 1] : null;
const predicateOnly = process.argv.includes("--predicate-only");
const showArg = process.argv.indexOf("--show");
const show = showArg > 0 ? Number(process.argv[showArg + 1]) : null;

const LOWER_WORD = /(?<![\p{L}\p{N}'’_-])\p{Ll}[\p{Ll}-]{2,}(?![\p{L}\p{N}_])/gu;
const AFTER_BE = /\b(?:are|were|is|was|been|being|be)\s+(?:not\s+)?$/i;

/** Lower-case content words as the question writes them that name no table or column and are not question vocabulary. */
function questionStateWords(question: string, schemaNames: Iterable<string>, vocabulary: readonly string[]): string[] {
  const asking = new Set(vocabulary);
  const schemaTerms = new Set([...schemaNames].flatMap(identifierTerms));
  const found: string[] = [];
  for (const m of question.matchAll(LOWER_WORD)) {
    const w = m[0];
    if (predicateOnly && !AFTER_BE.test(question.slice(0, m.index))) continue;
    if (isStopword(w, "en") || asking.has(w) || schemaTerms.has(stemmer(w)) || found.includes(w)) continue;
    found.push(w);
  }
  return found;
}

interface SpiderSchema {
  db_id: string;
  table_names_original: string[];
  column_names_original: [number, string][];
  column_types: string[];
  primary_keys: (number | number[])[];
  foreign_keys: [number, number][];
}

interface TextColumn {
  table: string;
  column: string;
  examples: string[];
}

const schemas = new Map<string, SpiderSchema>(
  (JSON.parse(readFileSync(path.join(datasets, "spider", "tables.json"), "utf8")) as SpiderSchema[]).map((s) => [s.db_id, s]),
);
const questions = JSON.parse(readFileSync(path.join(datasets, "spider", "train-questions.json"), "utf8")) as {
  db_id: string;
  question: string;
  query: string;
}[];

const databaseFile = (db: string) => path.join(datasets, "spider", "database", db, `${db}.sqlite`);

/** The text columns of a database, with their examples as the product samples them; a literal to leave out. */
function textColumns(db: string, leaveOut: { table: string; column: string; value: string } | null): TextColumn[] {
  const s = schemas.get(db)!;
  const keys = new Set<number>([...s.primary_keys.flat(), ...s.foreign_keys.flat()]);
  const sqlite = new Database(databaseFile(db), { readonly: true, fileMustExist: true });
  const out: TextColumn[] = [];
  try {
    s.column_names_original.forEach(([t, column], i) => {
      if (t < 0 || keys.has(i) || s.column_types[i] !== "text") return;
      const table = s.table_names_original[t];
      let rows: unknown[];
      try {
        rows = sqlite.prepare(`SELECT "${column}" AS v FROM "${table}" LIMIT ${EXAMPLE_SOURCE_ROWS}`).pluck().all();
      } catch {
        return;
      }
      const left =
        leaveOut && leaveOut.table.toLowerCase() === table.toLowerCase() && leaveOut.column.toLowerCase() === column.toLowerCase()
          ? leaveOut.value.toLowerCase()
          : null;
      const seen = new Set<string>();
      const examples: string[] = [];
      for (const v of rows) {
        if (typeof v !== "string" || v.trim() === "" || /^[\d.,\s-]+$/.test(v)) continue;
        const k = v.toLowerCase();
        if (k === left || seen.has(k)) continue;
        seen.add(k);
        examples.push(v);
        if (examples.length === EXAMPLES_PER_COLUMN) break;
      }
      if (examples.length > 0) out.push({ table, column, examples });
    });
  } finally {
    sqlite.close();
  }
  return out;
}

/** `col = 'literal'` and `alias.col = 'literal'` of a gold query, with the column's table when it can be told. */
function goldComparisons(db: string, query: string): { table: string; column: string; value: string }[] {
  const s = schemas.get(db)!;
  const aliases = new Map<string, string>();
  for (const m of query.matchAll(/\b(?:from|join)\s+(\w+)(?:\s+as)?\s+(t\d+)\b/gi)) aliases.set(m[2].toLowerCase(), m[1]);
  const single = /\bfrom\s+(\w+)/i.exec(query)?.[1];
  const out: { table: string; column: string; value: string }[] = [];
  for (const m of query.matchAll(/(?:\b(t\d+)\.)?(\w+)\s*(?:=|like)\s*['"]%?([^'"%]+)%?['"]/gi)) {
    const table = m[1] ? aliases.get(m[1].toLowerCase()) : aliases.size === 0 ? single : undefined;
    if (!table) continue;
    const tableName = s.table_names_original.find((t) => t.toLowerCase() === table.toLowerCase());
    if (tableName) out.push({ table: tableName, column: m[2], value: m[3] });
  }
  return out;
}

interface Item {
  db: string;
  word: string;
  /** The gold column "table.column" for a positive; null for a word that must not become a filter. */
  gold: string | null;
  columns: TextColumn[];
}

/** Stemmed words of every text value of a database: a question word among them is linked by the value index, not by this rule. */
const valueWordCache = new Map<string, Map<string, Set<string>>>();
function valueWords(db: string, except: string | null = null): Set<string> {
  const out = new Set<string>();
  for (const [column, words] of valueWordsByColumn(db)) if (column !== except) for (const w of words) out.add(w);
  return out;
}
function valueWordsByColumn(db: string): Map<string, Set<string>> {
  const cached = valueWordCache.get(db);
  if (cached) return cached;
  const s = schemas.get(db)!;
  const sqlite = new Database(databaseFile(db), { readonly: true, fileMustExist: true });
  const out = new Map<string, Set<string>>();
  try {
    s.column_names_original.forEach(([t, column], i) => {
      if (t < 0 || s.column_types[i] !== "text") return;
      try {
        const rows = sqlite.prepare(`SELECT DISTINCT "${column}" FROM "${s.table_names_original[t]}" LIMIT 5000`).pluck().all();
        const words = new Set<string>();
        for (const v of rows) if (typeof v === "string") for (const w of terms(v)) words.add(w);
        out.set(`${s.table_names_original[t]}.${column}`.toLowerCase(), words);
      } catch {
        // an unreadable column holds no value words
      }
    });
  } finally {
    sqlite.close();
  }
  valueWordCache.set(db, out);
  return out;
}

/**
 * Question vocabulary: the lower-case words that questions over many different databases use ("many",
 * "count", "country"). They say how to ask, not which value; a word used in the questions of at least
 * VOCABULARY_SHARE of the training databases is never a candidate.
 */
const VOCABULARY_SHARE = 0.1;
const databasesOf = new Map<string, Set<string>>();
for (const q of questions)
  for (const m of q.question.matchAll(/\p{Ll}[\p{Ll}-]{2,}/gu)) {
    const set = databasesOf.get(m[0]) ?? new Set<string>();
    set.add(q.db_id);
    databasesOf.set(m[0], set);
  }
const trainingDatabases = new Set(questions.map((q) => q.db_id)).size;
const vocabulary = [...databasesOf]
  .filter(([, dbs]) => dbs.size >= VOCABULARY_SHARE * trainingDatabases)
  .map(([w]) => w)
  .filter((w) => !isStopword(w, "en"))
  .sort();

const items: Item[] = [];
let positives = 0;
for (const q of questions) {
  if (!schemas.has(q.db_id) || !existsSync(databaseFile(q.db_id))) continue;
  const s = schemas.get(q.db_id)!;
  const schemaNames = [...s.table_names_original, ...s.column_names_original.map(([, c]) => c)];
  const words = questionStateWords(q.question, schemaNames, vocabulary);
  if (words.length === 0) continue;
  const gold = goldComparisons(q.db_id, q.query).find((g) => words.some((w) => w.toLowerCase() === g.value.toLowerCase()));
  const columns = textColumns(q.db_id, gold ?? null);
  for (const w of words) {
    const isGold = gold && w.toLowerCase() === gold.value.toLowerCase();
    const goldColumn = isGold ? `${gold.table}.${gold.column}`.toLowerCase() : null;
    // A word another column holds is linked there by the value index: neither case reaches this rule.
    if (valueWords(q.db_id, goldColumn).has(terms(w)[0] ?? w)) continue;
    if (isGold) positives++;
    items.push({ db: q.db_id, word: w, gold: goldColumn, columns });
  }
}

const runtime = new LocalModelRuntime({
  precision: "int8",
  fuseAttention: true,
  embedder: "all-MiniLM-L6-v2",
  crossEncoder: null,
  locations: { modelsDir, cacheDir: path.join(tmpdir(), "mosaic-state-value-models"), hubUrl: null },
  threads: 2,
  threadsPerWorker: 1,
  batchWaitMs: 0,
  batchSize: 32,
  queueLimit: 1_000_000,
  timeoutMs: 60 * 60_000,
});

interface Scored extends DecisionScore {
  positive: boolean;
}

async function main() {
  const embedder = await runtime.embedder();
  const texts = [...new Set(items.flatMap((i) => [i.word, ...i.columns.flatMap((c) => c.examples)]))];
  const vectors = await embedder.embed(texts, "query");
  const vectorOf = new Map(texts.map((t, i) => [t, vectors[i]!]));
  const scored: Scored[] = items.map((item) => {
    const w = vectorOf.get(item.word)!;
    const ranked = item.columns
      .map((c) => ({ c: `${c.table}.${c.column}`.toLowerCase(), s: Math.max(...c.examples.map((e) => cosine(w, vectorOf.get(e)!))) }))
      .sort((a, b) => b.s - a.s);
    const top = ranked[0];
    return {
      db: item.db,
      positive: item.gold !== null,
      word: item.word,
      col: ranked[0]?.c,
      ex: item.columns.find((c) => `${c.table}.${c.column}`.toLowerCase() === ranked[0]?.c)?.examples.join("|"),
      gold: item.gold,
      right: top !== undefined && item.gold !== null && top.c === item.gold,
      top: top?.s ?? 0,
      margin: (top?.s ?? 0) - (ranked[1]?.s ?? 0),
    };
  });

  const grid: FloorMarginGrid = { floors: FLOORS, margins: MARGINS, precision: TARGET_PRECISION, prefer: "right" };
  console.log(
    `${scored.length} candidate words in ${new Set(scored.map((r) => r.db)).size} training databases, ${positives} of them a gold literal; the closest column is the gold one for ${scored.filter((r) => r.right).length}.`,
  );
  let bestPrecision = 0;
  for (const floor of FLOORS)
    for (const margin of MARGINS) {
      const taken = decide(scored, floor, margin);
      const right = taken.filter((r) => r.right).length;
      if (taken.length > 0) bestPrecision = Math.max(bestPrecision, right / taken.length);
      if (margin === 0 || margin === 0.1)
        console.log(
          `floor ${floor} margin ${margin}: taken ${taken.length}, right ${right} (precision ${(right / Math.max(1, taken.length)).toFixed(2)}, recall ${(right / Math.max(1, positives)).toFixed(2)}), non-values taken ${taken.filter((r) => !r.positive).length}`,
        );
    }
  if (show !== null) for (const r of decide(scored, show, 0)) console.error(JSON.stringify(r));
  const chosen = chooseFloorMargin(scored, grid);
  if (!chosen) {
    console.log(
      `No floor and margin reach precision ${TARGET_PRECISION} (best ${bestPrecision.toFixed(2)}): no artefact is written and the product keeps no such rule.`,
    );
    await runtime.close();
    return;
  }

  const held = leaveOneDatabaseOut(scored, grid);

  const artefact = {
    floor: chosen.floor,
    margin: chosen.margin,
    vocabulary,
    training: {
      source: "spider/train-questions.json",
      words: scored.length,
      argmaxRight: scored.filter((r) => r.right).length,
      positives,
      taken: chosen.taken,
      right: chosen.right,
      precision: Number(chosen.precision.toFixed(3)),
      leaveOneDatabaseOut: held,
    },
    embedder: "all-MiniLM-L6-v2 int8",
  };
  const text = `${JSON.stringify(artefact, null, 2)}\n`;
  console.log(text);
  console.log(`sha256 ${createHash("sha256").update(text).digest("hex")}`);
  if (out) writeFileSync(out, text);
  await runtime.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
