import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { SCIFACT_CORPUS } from "../ingest/benchmarks/scifact";
import { loadTatQaContexts } from "../ingest/benchmarks/tatqa";
import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import { BENCHMARK_NAMES } from "../ingest/benchmarks/load";
import type { CatalogDeps } from "../deps";
import { deleteKnowledgeBase } from "../catalog/knowledge-bases";
import { registerKnowledgeBase } from "../ingest/register";
import type { PrismaClient } from "../db/generated/client";
import { parseCsvRecords, QuestionFileError } from "./question-file-errors";
import { parseSciFactClaims, scifactQuestionsFrom, scifactSuite } from "./suites/scifact";
import { parseSpiderItems, sparqlFromSpiderSuite, spiderQuestions, spiderSuite } from "./suites/spider";
import { parseTatQaContexts, type TatQaContext, tatqaQuestionsFrom, tatqaSuite } from "./suites/tatqa";
import { TEXT2CYPHER_COLUMNS, text2cypherQuestionsFrom, text2cypherSuite } from "./suites/text2cypher";
import type { QuestionsFileRef, SuiteDefinition } from "./types";
import { count } from "../format/count";

/**
 * `npm run eval -- --suite <s> --questions FILE`: a suite's own scorer on another question file of the
 * dataset's format (a held-out split, a user's own questions). The file is read and checked before
 * anything runs; every problem names the file, the line or item, and what is wrong.
 */

export const QUESTION_FILE_SUITES = ["spider", "sparql-from-spider", "tatqa", "scifact", "text2cypher"] as const;
export type QuestionFileSuiteKey = (typeof QUESTION_FILE_SUITES)[number];

export const QUESTION_FILE_FORMATS: Record<QuestionFileSuiteKey, string> = {
  spider: "Spider JSON: an array of {db_id, question, query} over the registered Spider databases",
  "sparql-from-spider": "Spider JSON: an array of {db_id, question, query} over the registered RDF versions of the Spider databases",
  tatqa:
    "TAT-QA JSON: an array of contexts {table, paragraphs, questions} with gold answers (registered as a temporary collection for the run)",
  scifact: "SciFact CSV: columns id, claim, cited_doc_ids over the registered SciFact abstracts",
  text2cypher: "Text2Cypher CSV: columns question, cypher, database (movies or northwind), optionally type and the dataset's quality flags",
};

/** A knowledge base the file's questions need, and where the file first names it (for the message when it is missing). */
interface RequiredKb {
  kbName: string;
  what: string;
  where: string;
}

export interface QuestionFileSuite {
  suite: SuiteDefinition;
  ref: QuestionsFileRef;
  /** Things worth a line in the run's log (rows left out). */
  notes: string[];
  required: RequiredKb[];
  /** TAT-QA: the file's contexts, registered as a throw-away collection for the run (see registerQuestionCollection). */
  collection?: { name: string; contexts: TatQaContext[] };
}

export function isQuestionFileSuite(key: string): key is QuestionFileSuiteKey {
  return (QUESTION_FILE_SUITES as readonly string[]).includes(key);
}

function readFile(file: string): { text: Buffer; ref: QuestionsFileRef; name: string } {
  const name = path.basename(file);
  if (!existsSync(file)) throw new QuestionFileError(`The question file ${file} does not exist.`);
  if (!statSync(file).isFile()) throw new QuestionFileError(`${file} is a folder, not a question file.`);
  let text: Buffer;
  try {
    text = readFileSync(file);
  } catch (e) {
    throw new QuestionFileError(`The question file ${file} cannot be read: ${(e as Error).message}.`);
  }
  if (!text.toString("utf8").trim()) throw new QuestionFileError(`The question file ${file} is empty.`);
  return { text, name, ref: { name, sha256: createHash("sha256").update(text).digest("hex") } };
}

/** The temporary collection's name: the file's name and checksum, so a collection left by a killed run of the same file is recognised. */
export function questionCollectionName(ref: QuestionsFileRef): string {
  const prefix = `Evaluation questions ${ref.sha256.slice(0, 8)}: `;
  return `${prefix}${ref.name}`.slice(0, 80);
}

function firstPlaces(where: Map<string, string[]>, key: string): string {
  const places = where.get(key) ?? [];
  return places.length > 1 ? `${places[0]} (and ${places.length - 1} more)` : (places[0] ?? "");
}

/** Reads and checks a question file and builds the suite over it (nothing is registered yet). */
export function loadQuestionFile(key: string, file: string, datasetsDir: string): QuestionFileSuite {
  if (!isQuestionFileSuite(key)) {
    throw new QuestionFileError(`--questions works with the suites ${QUESTION_FILE_SUITES.join(", ")}, not "${key}".`);
  }
  const { text, ref, name } = readFile(file);
  const label = (suite: SuiteDefinition): SuiteDefinition => ({
    ...suite,
    label: `${suite.label} · ${name}`,
    description: `${suite.description} Questions from ${name}.`,
  });

  if (key === "spider" || key === "sparql-from-spider") {
    const items = parseSpiderItems(text.toString("utf8"), name);
    const rdf = key === "sparql-from-spider";
    const where = new Map<string, string[]>();
    items.forEach((q, i) => where.set(q.db_id, [...(where.get(q.db_id) ?? []), `item ${i + 1}`]));
    const questions = spiderQuestions(datasetsDir, rdf ? "rdf" : "sql", items);
    const required: RequiredKb[] = [];
    for (const db of where.keys()) {
      const at = firstPlaces(where, db);
      required.push({ kbName: rdf ? BENCHMARK_NAMES.spiderRdf(db) : BENCHMARK_NAMES.spider(db), what: `the database "${db}"`, where: at });
      // The gold SQL runs on the dataset's file, or, for a database the dataset lacks, on its registered SQL knowledge base.
      const goldOnKb = questions.some(
        (q) => q.gold.type === "query" && q.gold.target.type === "kb" && q.gold.target.kbName === BENCHMARK_NAMES.spider(db),
      );
      if (rdf && goldOnKb)
        required.push({ kbName: BENCHMARK_NAMES.spider(db), what: `the SQL database "${db}" (its gold SQL runs there)`, where: at });
    }
    const suite = rdf ? sparqlFromSpiderSuite(datasetsDir, questions) : spiderSuite(datasetsDir, questions);
    return {
      suite: label({ ...suite, description: `${count(questions.length, "question")} over ${count(where.size, "database")}.` }),
      ref,
      notes: [],
      required,
    };
  }

  if (key === "tatqa") {
    const contexts = parseTatQaContexts(text.toString("utf8"), name);
    const collection = questionCollectionName(ref);
    const questions = tatqaQuestionsFrom(contexts, collection);
    return {
      suite: label(tatqaSuite(datasetsDir, questions, collection)),
      ref,
      notes: [],
      required: [],
      collection: { name: collection, contexts },
    };
  }

  if (key === "scifact") {
    const claims = parseSciFactClaims(parseCsvRecords(text, name, ["id", "claim", "cited_doc_ids"]), name);
    const corpusFile = path.join(datasetsDir, SCIFACT_CORPUS);
    if (existsSync(corpusFile)) {
      const corpus = new Set(
        (parse(readFileSync(corpusFile), { columns: true, skip_empty_lines: true }) as { doc_id: string }[]).map((r) => r.doc_id),
      );
      for (const c of claims) {
        const unknown = c.cited.filter((d) => !corpus.has(d));
        if (unknown.length)
          throw new QuestionFileError(
            `${name}, line ${c.line}: claim ${c.id} cites ${unknown.join(", ")}, which ${unknown.length === 1 ? "is" : "are"} not in the SciFact corpus (${SCIFACT_CORPUS}).`,
          );
      }
    }
    const first = claims[0] ? `line ${claims[0].line}` : "";
    return {
      suite: label(scifactSuite(datasetsDir, scifactQuestionsFrom(claims))),
      ref,
      notes: [],
      required: [{ kbName: BENCHMARK_NAMES.scifact, what: "the SciFact abstracts", where: first }],
    };
  }

  const records = parseCsvRecords(text, name, TEXT2CYPHER_COLUMNS);
  const { questions, leftOut } = text2cypherQuestionsFrom(records, name);
  return {
    suite: label(text2cypherSuite(datasetsDir, questions)),
    ref,
    notes: leftOut.map((l) => `Left out ${count(l.count, "row")} of ${name}: ${l.reason}.`),
    required: [{ kbName: BENCHMARK_NAMES.neo4j, what: "the Neo4j movies and northwind graphs", where: `line ${records[0].line}` }],
  };
}

/** Every knowledge base the file needs is registered and the user may use it; otherwise a message that says which item names it. */
export async function checkQuestionFileSources(prisma: PrismaClient, user: AccessSubject, loaded: QuestionFileSuite): Promise<void> {
  if (!loaded.required.length) return;
  const names = new Set((await prisma.knowledgeBase.findMany({ where: kbAccessWhere(user), select: { name: true } })).map((k) => k.name));
  const missing = loaded.required.find((r) => !names.has(r.kbName));
  if (!missing) return;
  let hint = "";
  if (missing.kbName === BENCHMARK_NAMES.neo4j) {
    hint = " Set NEO4J_URI (and NEO4J_USER, NEO4J_PASSWORD) or add --neo4j-harness.";
  } else {
    const prefix = missing.kbName.startsWith(BENCHMARK_NAMES.spiderRdf(""))
      ? BENCHMARK_NAMES.spiderRdf("")
      : missing.kbName.startsWith(BENCHMARK_NAMES.spider(""))
        ? BENCHMARK_NAMES.spider("")
        : null;
    if (prefix) {
      const dbs = [...names]
        .filter((n) => n.startsWith(prefix))
        .map((n) => n.slice(prefix.length))
        .sort();
      hint = dbs.length
        ? ` Registered: ${dbs.slice(0, 12).join(", ")}${dbs.length > 12 ? ` and ${dbs.length - 12} more` : ""}.`
        : " No such database is registered: npm run catalog:load-benchmarks registers the benchmark's.";
    }
  }
  throw new QuestionFileError(
    `${loaded.ref.name}, ${missing.where}: ${missing.what} is not registered (there is no knowledge base "${missing.kbName}" you may use).${hint}`,
  );
}

/**
 * Registers a TAT-QA file's contexts as a throw-away document collection (through the catalog's own
 * registration, so it is searched exactly as the benchmark collection is), visible to the runner's
 * groups; `remove` deletes it. A collection with the same name is what a killed run of the same file
 * left behind, and is replaced.
 */
export async function registerQuestionCollection(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  loaded: QuestionFileSuite,
  log: (line: string) => void = () => undefined,
): Promise<{ kbName: string; remove: () => Promise<void> }> {
  const c = loaded.collection;
  if (!c) throw new Error("This question file has no contexts to register.");
  const stale = await prisma.knowledgeBase.findUnique({ where: { name: c.name }, select: { id: true } });
  if (stale) {
    await deleteKnowledgeBase(prisma, deps, stale.id);
    log(`removed the temporary collection "${c.name}" an earlier, interrupted run left`);
  }
  const started = Date.now();
  const { id } = await registerKnowledgeBase(
    prisma,
    deps,
    user.id,
    {
      kind: "DOCUMENTS",
      name: c.name,
      description: `Temporary: the TAT-QA contexts of ${loaded.ref.name}, registered by npm run eval --questions for one run and removed when it ends.`,
      connection: { language: "en" },
      groupIds: user.role === "ADMIN" ? [] : user.groupIds,
      // A runner in no group must still see the collection it registers, as before knowledge bases became
      // private by default; an admin's stays admins-only.
      openToEveryone: user.role !== "ADMIN" && user.groupIds.length === 0,
    },
    [],
    { populate: async (ctx) => void (await loadTatQaContexts(ctx, c.contexts, loaded.ref.name)) },
  );
  log(
    `registered ${c.contexts.length} context(s) of ${loaded.ref.name} as the temporary collection "${c.name}" (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  let removed = false;
  return {
    kbName: c.name,
    remove: async () => {
      if (removed) return;
      removed = true;
      await deleteKnowledgeBase(prisma, deps, id).catch(() => undefined);
    },
  };
}
