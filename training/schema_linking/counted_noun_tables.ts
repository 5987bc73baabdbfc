/**
 * Chooses when a counted noun names a table by meaning (lib/data/counted-noun-meaning.json): "how many
 * films" counts the movie rows, "the number of vendors" the supplier rows, though no word of the table
 * is in the question. Fitted on Spider's training split only: every training question whose count noun
 * (the words after "how many", "number of", "count of") names no table by its words and whose gold query
 * counts the rows of one table (`SELECT count(*) FROM t …`, no join). For each, the embedder's cosine
 * between the noun's words and each table's name in words; the decision takes the closest table when its
 * cosine reaches a floor and stands a margin above the database's next table. The script picks the
 * loosest (floor, margin) whose training precision is at least TARGET_PRECISION and reports
 * leave-one-database-out figures (floor and margin chosen without the held-out database).
 *
 *   DATASETS_DIR=../shared/datasets MODELS_DIR=../shared/models \
 *     npx tsx training/schema_linking/counted_noun_tables.ts --out lib/data/counted-noun-meaning.json
 *
 * The same decision serves a ranking by count ("the most films"): its gold queries count through a join,
 * so they do not say which table's rows are counted and are not fitted on.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LocalModelRuntime } from "../../lib/models/local-runtime";
import { readableIdentifier } from "../../lib/catalog/semantic-texts";
import { cosine } from "../../lib/pipeline/scorers/dense";
import { COUNTED_NOUN, countedNounWords, namesAKind } from "../../lib/pipeline/stages/understand/counted-noun";
import { coverage, identifierTerms, singularIrregulars } from "../../lib/pipeline/stages/formulate/lexicon";
import { terms } from "../../lib/pipeline/text";
import { type FloorMarginGrid, type Scored, chooseFloorMargin, leaveOneDatabaseOut } from "./floor-margin";

const TARGET_PRECISION = 0.9;
const FLOORS = [0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7];
const MARGINS = [0, 0.05, 0.1, 0.15, 0.2, 0.25];

const datasets = process.env.DATASETS_DIR ?? path.resolve("..", "shared", "datasets");
const modelsDir = process.env.MODELS_DIR ?? path.resolve("..", "shared", "models");
const outArg = process.argv.indexOf("--out");
const out = outArg > 0 ? process.argv[outArg + 1] : null;

interface Item {
  db: string;
  noun: string;
  gold: string;
  tables: string[];
}

const schemas = new Map<string, string[]>(
  (
    JSON.parse(readFileSync(path.join(datasets, "spider", "tables.json"), "utf8")) as { db_id: string; table_names_original: string[] }[]
  ).map((s) => [s.db_id, s.table_names_original]),
);
const questions = JSON.parse(readFileSync(path.join(datasets, "spider", "train-questions.json"), "utf8")) as {
  db_id: string;
  question: string;
  query: string;
}[];

const ROW_COUNT = /^\s*select\s+count\s*\(\s*\*\s*\)\s+from\s+(\w+)(?:\s+(?:as\s+)?\w+)?\s*(?:where\b(?:(?!\bselect\b).)*)?;?\s*$/i;

function namesByWords(table: string, noun: string): boolean {
  const w = singularIrregulars(noun);
  const tt = identifierTerms(table);
  return coverage(tt, new Set(terms(w))) === 1 || coverage(tt, new Set(terms(w.replace(/\s+/g, "")))) === 1;
}

const items: Item[] = [];
let counted = 0;
let namedByWords = 0;
for (const q of questions) {
  const m = COUNTED_NOUN.exec(q.question);
  const gold = ROW_COUNT.exec(q.query.replace(/\s+/g, " "));
  const tables = schemas.get(q.db_id);
  if (!m || !gold || !tables) continue;
  const goldTable = tables.find((t) => t.toLowerCase() === gold[1].toLowerCase());
  if (!goldTable) continue;
  counted++;
  if (tables.some((t) => namesByWords(t, m[1]))) {
    namedByWords++;
    continue;
  }
  if (!namesAKind(m[1])) continue; // a name, not a kind of row: the product does not place it by meaning either
  items.push({ db: q.db_id, noun: m[1], gold: goldTable, tables });
}

const runtime = new LocalModelRuntime({
  precision: "int8",
  fuseAttention: true,
  embedder: "all-MiniLM-L6-v2",
  crossEncoder: null,
  locations: { modelsDir, cacheDir: path.join(tmpdir(), "mosaic-counted-noun-models"), hubUrl: null },
  threads: 2,
  threadsPerWorker: 1,
  batchWaitMs: 0,
  batchSize: 32,
  queueLimit: 100_000,
  timeoutMs: 30 * 60_000,
});

async function main() {
  const embedder = await runtime.embedder();
  const texts = [...new Set(items.flatMap((i) => [...countedNounWords(i.noun), ...i.tables.map(readableIdentifier)]))];
  const vectors = await embedder.embed(texts, "query");
  const vectorOf = new Map(texts.map((t, i) => [t, vectors[i]!]));
  const scored: Scored[] = items.map((item) => {
    const nouns = countedNounWords(item.noun).map((w) => vectorOf.get(w)!);
    const byTable = item.tables
      .map((t) => ({ t, c: Math.max(...nouns.map((n) => cosine(n, vectorOf.get(readableIdentifier(t))!))) }))
      .sort((a, b) => b.c - a.c);
    return { db: item.db, right: byTable[0].t === item.gold, top: byTable[0].c, margin: byTable[0].c - (byTable[1]?.c ?? 0) };
  });

  const grid: FloorMarginGrid = { floors: FLOORS, margins: MARGINS, precision: TARGET_PRECISION, prefer: "taken" };
  const chosen = chooseFloorMargin(scored, grid);
  if (!chosen) throw new Error("no floor and margin reach the target precision on the training questions");
  const held = leaveOneDatabaseOut(scored, grid);

  const artefact = {
    floor: chosen.floor,
    margin: chosen.margin,
    training: {
      source: "spider/train-questions.json",
      countQuestions: counted,
      namedByWords,
      byMeaningOnly: scored.length,
      argmaxRight: scored.filter((r) => r.right).length,
      taken: chosen.taken,
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
