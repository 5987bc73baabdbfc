import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { TATQA_DEV } from "../../ingest/benchmarks/tatqa";
import { type CsvRecord, parseCsvRecords, parseJsonText, QuestionFileError } from "../question-file-errors";
import { parseSpiderItems, SPIDER_DEV, type SpiderItem, spiderQuestions } from "../suites/spider";
import { parseTatQaContexts, type TatQaContext, tatqaQuestionsFrom } from "../suites/tatqa";
import { TEXT2CYPHER_COLUMNS, TEXT2CYPHER_DEV, text2cypherQuestionsFrom } from "../suites/text2cypher";
import type { EvalQuestion, QuestionsFileRef } from "../types";
import { ROBUSTNESS_CLASSES, type RobustnessClass } from "./classes";

export { ROBUSTNESS_CLASSES, type RobustnessClass };

/**
 * The robustness suite (issue 27): dev questions rewritten by hand, stored as overlays in
 * eval/robustness/<suite>.json. An overlay never copies the dataset: each item names a dev item (Spider:
 * its index in dev-questions.json; TAT-QA: the question's uid; Text2Cypher: its data row, 0-based, as the
 * suite's ids count them) and carries only the rewritten question, its class and, for `other-values`, the
 * changed gold. Loading one joins it with the dataset into two lists of evaluation questions: the
 * rewritten ones and the dev items they came from (same ids as in the dev suite), so the two can be run
 * through the suite's own scorer and compared item by item.
 */

export const ROBUSTNESS_SUITES = ["spider", "tatqa", "text2cypher"] as const;
export type RobustnessSuiteKey = (typeof ROBUSTNESS_SUITES)[number];

/** The dev split each overlay points into, relative to DATASETS_DIR. */
export const ROBUSTNESS_DATASETS: Record<RobustnessSuiteKey, string> = {
  spider: SPIDER_DEV,
  tatqa: TATQA_DEV,
  text2cypher: TEXT2CYPHER_DEV,
};

/** Where the committed overlays live: eval/robustness/ at the repository root. */
export const ROBUSTNESS_DIR = fileURLToPath(new URL("../../../eval/robustness/", import.meta.url));

export function robustnessFile(suite: RobustnessSuiteKey, dir: string = ROBUSTNESS_DIR): string {
  return path.join(dir, `${suite}.json`);
}

export function isRobustnessSuite(key: string): key is RobustnessSuiteKey {
  return (ROBUSTNESS_SUITES as readonly string[]).includes(key);
}

const classSchema = z.enum(ROBUSTNESS_CLASSES);
const question = z.string().trim().min(1);

const spiderItemSchema = z.strictObject({
  dev: z.number().int().min(0),
  class: classSchema,
  question,
  query: z.string().trim().min(1).optional(),
});

const tatqaItemSchema = z.strictObject({
  uid: z.string().min(1),
  class: classSchema,
  question,
  answer: z.union([z.array(z.string().min(1)).min(1), z.number()]).optional(),
  answer_type: z.enum(["span", "multi-span", "arithmetic", "count"]).optional(),
  scale: z.enum(["", "thousand", "million", "billion", "percent"]).optional(),
  derivation: z.string().optional(),
});

const text2cypherItemSchema = z.strictObject({
  row: z.number().int().min(0),
  class: classSchema,
  question,
  cypher: z.string().trim().min(1).optional(),
});

const overlaySchema = z.strictObject({
  dataset: z.string().min(1),
  datasetSha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a sha256 in hex"),
  seed: z.number().int(),
  items: z.array(z.unknown()).min(1),
});

type SpiderOverlayItem = z.infer<typeof spiderItemSchema>;
type TatQaOverlayItem = z.infer<typeof tatqaItemSchema>;
type Text2CypherOverlayItem = z.infer<typeof text2cypherItemSchema>;

/** The dev split as read from DATASETS_DIR, with its checksum (an overlay's references only hold for the file it was written against). */
export type RobustnessDataset =
  | { suite: "spider"; file: string; sha256: string; datasetsDir: string; items: SpiderItem[] }
  | { suite: "tatqa"; file: string; sha256: string; contexts: TatQaContext[] }
  | { suite: "text2cypher"; file: string; sha256: string; records: CsvRecord[] };

export interface RobustnessSet {
  suite: RobustnessSuiteKey;
  /** The overlay file (name and checksum): the rewritten run's question file. */
  ref: QuestionsFileRef;
  /** The dev run's question file reference: its own checksum, so its journal never resumes the rewritten run's report. */
  devRef: QuestionsFileRef;
  seed: number;
  rewritten: EvalQuestion[];
  /** The distinct dev items the rewrites come from, in dataset order, with the dev suite's ids and tags. */
  dev: EvalQuestion[];
  /** Rewritten question id → the dev item's id. */
  pairs: Map<string, string>;
  classCounts: Record<RobustnessClass, number>;
}

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

/** Reads the dev split an overlay of `suite` points into. */
export function readRobustnessDataset(suite: RobustnessSuiteKey, datasetsDir: string): RobustnessDataset {
  const file = path.join(datasetsDir, ROBUSTNESS_DATASETS[suite]);
  if (!existsSync(file)) {
    throw new QuestionFileError(
      `The ${suite} robustness set rewrites the dev split ${ROBUSTNESS_DATASETS[suite]}, which is not in ${datasetsDir}. Point DATASETS_DIR at the shared datasets folder.`,
    );
  }
  const bytes = readFileSync(file);
  const digest = sha256(bytes);
  if (suite === "spider") return { suite, file, sha256: digest, datasetsDir, items: parseSpiderItems(bytes.toString("utf8"), file) };
  if (suite === "tatqa") return { suite, file, sha256: digest, contexts: parseTatQaContexts(bytes.toString("utf8"), file) };
  return { suite, file, sha256: digest, records: parseCsvRecords(bytes, file, TEXT2CYPHER_COLUMNS) };
}

/** Questions compare without case, spacing and end punctuation: a rewrite must say something else. */
function sameWording(a: string, b: string): boolean {
  const norm = (s: string) =>
    s
      .toLowerCase()
      .replace(/[\s?.!]+$/g, "")
      .replace(/\s+/g, " ")
      .trim();
  return norm(a) === norm(b);
}

interface Built {
  devId: string;
  cls: RobustnessClass;
  /** The rewritten question, built by the suite's own question builder (so gold, tags and evidence follow the same rules). */
  question: EvalQuestion;
}

/**
 * Joins an overlay with its dev split. Every problem stops with the overlay's name, the item (its number
 * and reference) and the reason.
 */
export function parseRobustnessOverlay(suite: RobustnessSuiteKey, text: string, name: string, dataset: RobustnessDataset): RobustnessSet {
  if (dataset.suite !== suite) throw new Error(`The ${suite} overlay needs the ${suite} dev split, not ${dataset.suite}.`);
  const parsed = overlaySchema.safeParse(parseJsonText(text, name));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length ? `"${issue.path.join(".")}"` : "the file";
    throw new QuestionFileError(
      `${name}: ${where} ${issue.code === "invalid_type" && issue.path.length ? `is missing or not a ${(issue as { expected?: string }).expected}` : issue.message}. An overlay is {"dataset", "datasetSha256", "seed", "items": [...]}.`,
    );
  }
  const overlay = parsed.data;
  if (overlay.dataset !== ROBUSTNESS_DATASETS[suite]) {
    throw new QuestionFileError(
      `${name}: "dataset" is "${overlay.dataset}", but the ${suite} robustness set rewrites ${ROBUSTNESS_DATASETS[suite]}.`,
    );
  }
  if (overlay.datasetSha256 !== dataset.sha256) {
    throw new QuestionFileError(
      `${name}: it was written against ${overlay.dataset} with sha256 ${overlay.datasetSha256}, but ${dataset.file} has sha256 ${dataset.sha256}; its references would point at other questions. Use the dataset it was written for, or rewrite the overlay.`,
    );
  }

  const built: Built[] = [];
  const seen = new Set<string>();
  overlay.items.forEach((raw, i) => {
    const fail = (what: string, reason: string): never => {
      throw new QuestionFileError(`${name}, item ${i + 1}${what ? ` (${what})` : ""}: ${reason}.`);
    };
    const one =
      dataset.suite === "spider"
        ? spiderItem(raw, dataset, fail)
        : dataset.suite === "tatqa"
          ? tatqaItem(raw, dataset, fail)
          : text2cypherItem(raw, dataset, fail);
    const key = `${one.devId}\u0000${one.cls}\u0000${one.question.question.toLowerCase()}`;
    if (seen.has(key)) fail(`${one.devId}, ${one.cls}`, "the same rewrite of this dev item is listed twice");
    seen.add(key);
    built.push(one);
  });

  const devAll = devQuestions(dataset);
  const devById = new Map(devAll.map((q) => [q.id, q]));
  const perClass = new Map<string, number>();
  const pairs = new Map<string, string>();
  const classCounts = Object.fromEntries(ROBUSTNESS_CLASSES.map((c) => [c, 0])) as Record<RobustnessClass, number>;
  const rewritten = built.map(({ devId, cls, question: q }) => {
    const k = `${devId}~${cls}`;
    const n = (perClass.get(k) ?? 0) + 1;
    perClass.set(k, n);
    const id = n === 1 ? k : `${k}-${n}`;
    pairs.set(id, devId);
    classCounts[cls]++;
    return { ...q, id, tags: [...(q.tags ?? []), `class:${cls}`, `dev:${devId}`] };
  });
  const used = new Set(pairs.values());
  const dev = devAll.filter((q) => used.has(q.id));
  for (const id of used) if (!devById.has(id)) throw new Error(`The dev item ${id} is referenced but was not built.`);
  const ref = { name: path.basename(name), sha256: sha256(text) };
  return {
    suite,
    ref,
    devRef: { name: `${ref.name} (dev items)`, sha256: sha256(`dev items of ${ref.sha256}`) },
    seed: overlay.seed,
    rewritten,
    dev,
    pairs,
    classCounts,
  };
}

type Fail = (what: string, reason: string) => never;

function itemSchemaError(issue: z.core.$ZodIssue): string {
  const field = issue.path.join(".");
  if (issue.code === "unrecognized_keys") return `has a field this overlay does not know: ${(issue as { keys: string[] }).keys.join(", ")}`;
  if (issue.code === "invalid_value" && Array.isArray((issue as { values?: unknown[] }).values))
    return `"${field}" must be one of ${(issue as { values: unknown[] }).values.map((v) => JSON.stringify(v)).join(", ")}`;
  if (issue.code === "invalid_type" && (issue as { input?: unknown }).input === undefined) return `has no "${field}"`;
  return `"${field || "item"}": ${issue.message}`;
}

function checkClassAndGold(cls: RobustnessClass, changed: boolean, what: string, fail: Fail, goldName: string) {
  if (cls === "other-values" && !changed)
    fail(what, `an other-values rewrite swaps literal values, so it must carry the changed gold ("${goldName}")`);
  if (cls !== "other-values" && changed)
    fail(
      what,
      `a ${cls} rewrite keeps the dev item's meaning, so it must not change the gold ("${goldName}"); values that change belong to other-values`,
    );
}

function spiderItem(raw: unknown, dataset: Extract<RobustnessDataset, { suite: "spider" }>, fail: Fail): Built {
  const p = spiderItemSchema.safeParse(raw);
  const hint = typeof (raw as { dev?: unknown })?.dev === "number" ? `dev ${(raw as { dev: number }).dev}` : "";
  if (!p.success) return fail(hint, itemSchemaError(p.error.issues[0]));
  const it: SpiderOverlayItem = p.data;
  const what = `dev ${it.dev}, ${it.class}`;
  const devItem = dataset.items[it.dev];
  if (!devItem) fail(what, `there is no dev item ${it.dev} (${dataset.file} has ${dataset.items.length}, numbered from 0)`);
  if (sameWording(it.question, devItem.question)) fail(what, "the question is worded as in the dev split");
  const changed = it.query !== undefined && it.query.trim() !== devItem.query.trim();
  if (it.query !== undefined && !changed) fail(what, `"query" repeats the dev gold SQL: leave it out unless the values changed`);
  checkClassAndGold(it.class, changed, what, fail, "query");
  const item = { db_id: devItem.db_id, question: it.question, query: it.query ?? devItem.query };
  const [q] = spiderQuestions(dataset.datasetsDir, "sql", [item]);
  return { devId: `spider:${devItem.db_id}:${it.dev}`, cls: it.class, question: q };
}

function tatqaItem(raw: unknown, dataset: Extract<RobustnessDataset, { suite: "tatqa" }>, fail: Fail): Built {
  const p = tatqaItemSchema.safeParse(raw);
  const hint = typeof (raw as { uid?: unknown })?.uid === "string" ? `uid ${(raw as { uid: string }).uid}` : "";
  if (!p.success) return fail(hint, itemSchemaError(p.error.issues[0]));
  const it: TatQaOverlayItem = p.data;
  const what = `uid ${it.uid}, ${it.class}`;
  let context: TatQaContext | undefined;
  let devQ: TatQaContext["questions"][number] | undefined;
  for (const c of dataset.contexts) {
    devQ = c.questions.find((q) => q.uid === it.uid);
    if (devQ) {
      context = c;
      break;
    }
  }
  if (!context || !devQ) return fail(what, `no question of ${dataset.file} has this uid`);
  if (sameWording(it.question, devQ.question)) fail(what, "the question is worded as in the dev split");
  const goldFields = (["answer", "answer_type", "scale", "derivation"] as const).filter((f) => it[f] !== undefined);
  checkClassAndGold(it.class, goldFields.length > 0, what, fail, "answer");
  if (it.class === "other-values") {
    const missing = (["answer", "answer_type", "scale"] as const).filter((f) => it[f] === undefined);
    if (missing.length)
      fail(what, `the changed gold needs the answer, its answer type and its scale written out (missing: ${missing.join(", ")})`);
    const numeric = it.answer_type === "arithmetic" || it.answer_type === "count";
    if (numeric && typeof it.answer !== "number") fail(what, `an ${it.answer_type} answer is a number, not ${JSON.stringify(it.answer)}`);
    if (!numeric && !Array.isArray(it.answer))
      fail(what, `a ${it.answer_type} answer is a list of spans, not ${JSON.stringify(it.answer)}`);
    if (it.answer_type === "span" && (it.answer as string[]).length !== 1) fail(what, "a span answer is a list of exactly one span");
    if (it.answer_type === "multi-span" && (it.answer as string[]).length < 2) fail(what, "a multi-span answer lists two or more spans");
    if (it.answer_type === "count" && (!Number.isInteger(it.answer) || (it.answer as number) < 0))
      fail(what, "a count is a whole number of at least 0");
  }
  const q = {
    ...devQ,
    question: it.question,
    ...(it.class === "other-values"
      ? { answer: it.answer!, answer_type: it.answer_type!, scale: it.scale!, derivation: it.derivation ?? "" }
      : {}),
  };
  const [built] = tatqaQuestionsFrom([{ ...context, questions: [q] }]);
  return { devId: `tatqa:${it.uid}`, cls: it.class, question: built };
}

function text2cypherItem(raw: unknown, dataset: Extract<RobustnessDataset, { suite: "text2cypher" }>, fail: Fail): Built {
  const p = text2cypherItemSchema.safeParse(raw);
  const hint = typeof (raw as { row?: unknown })?.row === "number" ? `row ${(raw as { row: number }).row}` : "";
  if (!p.success) return fail(hint, itemSchemaError(p.error.issues[0]));
  const it: Text2CypherOverlayItem = p.data;
  const what = `row ${it.row}, ${it.class}`;
  const record = dataset.records[it.row];
  if (!record) fail(what, `there is no data row ${it.row} (${dataset.file} has ${dataset.records.length}, numbered from 0)`);
  const dev = usableRow(record, dataset.file);
  if ("reason" in dev) fail(what, `the dev row is not usable as gold (${dev.reason}), so its rewrites could not be scored`);
  if (sameWording(it.question, record.row.question ?? "")) fail(what, "the question is worded as in the dev split");
  const changed = it.cypher !== undefined && it.cypher.trim() !== (record.row.cypher ?? "").trim();
  if (it.cypher !== undefined && !changed) fail(what, `"cypher" repeats the dev gold Cypher: leave it out unless the values changed`);
  checkClassAndGold(it.class, changed, what, fail, "cypher");
  const rebuilt = usableRow(
    { line: record.line, row: { ...record.row, question: it.question, cypher: it.cypher ?? record.row.cypher } },
    dataset.file,
  );
  if ("reason" in rebuilt) return fail(what, `the changed gold Cypher cannot be scored here (${rebuilt.reason})`);
  return { devId: `text2cypher:${it.row}`, cls: it.class, question: rebuilt.question };
}

/** One data row as the suite reads it: its question, or why the suite leaves it out. */
function usableRow(record: CsvRecord, file: string): { question: EvalQuestion } | { reason: string } {
  try {
    const { questions, leftOut } = text2cypherQuestionsFrom([record], file);
    return questions.length ? { question: questions[0] } : { reason: leftOut.map((l) => l.reason).join("; ") };
  } catch (e) {
    // A single row that is left out makes the whole (one-row) file empty, which the suite reports as an error.
    const reason = /every row was left out \((.*)\), so there is nothing to evaluate/.exec((e as Error).message)?.[1];
    if (reason) return { reason };
    throw e;
  }
}

/** The dev split's own questions, as the dev suite builds them (same ids, tags and gold). */
function devQuestions(dataset: RobustnessDataset): EvalQuestion[] {
  if (dataset.suite === "spider") return spiderQuestions(dataset.datasetsDir, "sql", dataset.items);
  if (dataset.suite === "tatqa") return tatqaQuestionsFrom(dataset.contexts);
  return text2cypherQuestionsFrom(dataset.records, dataset.file).questions;
}

/** Reads an overlay (eval/robustness/<suite>.json unless another file is given) and joins it with the dev split in DATASETS_DIR. */
export function loadRobustnessSet(suite: RobustnessSuiteKey, datasetsDir: string, file: string = robustnessFile(suite)): RobustnessSet {
  if (!existsSync(file)) throw new QuestionFileError(`The robustness overlay ${file} does not exist.`);
  const text = readFileSync(file, "utf8");
  return parseRobustnessOverlay(suite, text, file, readRobustnessDataset(suite, datasetsDir));
}
