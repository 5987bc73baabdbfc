// npm run eval -- --suite <name> [--questions FILE] [--limit N] [--seed S] [--config <file>] [--json <out>]
//   [--concurrency N] [--llm default|off] [--fresh] [--user <email>] [--neo4j-harness] [--quiet]
// Runs an evaluation suite through the answering pipeline and prints its metrics. Suites: spider, tatqa,
// scifact, text2cypher, sparql-from-spider, mixed, demo, an authored suite (its name or custom:<id>), or
// all (every built-in suite in turn, a summary table at the end; --json then names a folder).
// --questions FILE runs spider, sparql-from-spider, tatqa, scifact or text2cypher on another question
// file of the dataset's own format (lib/eval/question-files.ts).
// --robustness runs the hand-written rewrites of dev questions (eval/robustness/<suite>.json) for spider,
// tatqa, text2cypher or all three: first the dev items as worded in dev, then the rewrites, then a
// comparison per rewrite class with the paired counts (docs/EVALUATION.md, "Robustness suite").
// Runs up to --concurrency questions at a time (default: the machine's cores), records each finished
// question, and resumes an interrupted run of the same suite, config and seed (--fresh starts over).
// --guides G (the few-shot protocol, docs/EVALUATION.md): G's items (npm run guides:import's format) are
// checked and registered as guides owned by an analyst (--guides-user <email>, default the first active
// analyst) before the run, and exactly those guides are removed after it, also when it fails or is stopped.
// The report names G and its SHA-256; the checksum is part of the journal key.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { embedCollectionsNow } from "../lib/server/embed-now";
import { closeAllBackends } from "../lib/backends/registry";
import { catalogDeps } from "../lib/deps";
import { openAndBootstrap } from "../lib/db/bootstrap";
import { loadEnv } from "../lib/env";
import { AppError } from "../lib/errors";
import { formatDuration, formatReport, formatSummary, type SummaryRow } from "../lib/eval/format";
import { type Neo4jSettings, prepareSuiteCatalog } from "../lib/eval/prepare";
import {
  checkQuestionFileSources,
  isQuestionFileSuite,
  loadQuestionFile,
  QUESTION_FILE_FORMATS,
  QUESTION_FILE_SUITES,
  registerQuestionCollection,
} from "../lib/eval/question-files";
import { evalGuideOwner, readEvalGuidesFile, type RegisteredEvalGuides, registerEvalGuides } from "../lib/eval/guides";
import { executeEvalRun, openReport, planEvalRun } from "../lib/eval/runner";
import { loadSuite } from "../lib/eval/suites";
import { isRobustnessSuite, loadRobustnessSet, ROBUSTNESS_SUITES } from "../lib/eval/robustness/overlay";
import { formatRobustness, formatRobustnessOverview, robustnessSummary } from "../lib/eval/robustness/summary";
import { robustnessRun } from "../lib/eval/robustness/suites";
import {
  BUILTIN_SUITES,
  type BuiltinSuite,
  type QuestionsFileRef,
  type ReportJson,
  type RobustnessSummary,
  type SuiteDefinition,
} from "../lib/eval/types";
import { runCli } from "./cli";

/** --suite all: cheapest first, mixed (which needs all the others' KBs) last. */
const ALL_SUITES: BuiltinSuite[] = ["demo", "spider", "sparql-from-spider", "tatqa", "scifact", "text2cypher", "mixed"];

const USAGE = `Usage: npm run eval -- --suite <${BUILTIN_SUITES.join("|")}|all|custom:<id>> [--questions FILE | --robustness] [--limit N] [--seed S] [--config <file.json>] [--json <out.json>] [--concurrency N] [--llm default|off] [--fresh] [--user <email>] [--guides G.json [--guides-user <email>]] [--neo4j-harness] [--quiet]`;

interface Args {
  suite?: string;
  questions?: string;
  limit: number | null;
  seed: number;
  config?: string;
  json?: string;
  concurrency: number;
  fresh: boolean;
  user?: string;
  neo4jHarness: boolean;
  quiet: boolean;
  llm: "default" | "off";
  robustness: boolean;
  guides?: string;
  guidesUser?: string;
}

function parseArgs(argv: string[]): Args {
  const out: Args = {
    limit: null,
    seed: 1,
    concurrency: availableParallelism(),
    fresh: false,
    neo4jHarness: false,
    quiet: false,
    llm: "default",
    robustness: false,
  };
  const value = (i: number, flag: string) => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith("--")) throw new AppError("VALIDATION", `${flag} needs a value. ${USAGE}`);
    return v;
  };
  const whole = (v: string, flag: string, min: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min)
      throw new AppError("VALIDATION", `${flag} needs a whole number${min > 0 ? ` of at least ${min}` : ""} (got "${v}").`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case "--suite":
        out.suite = value(i++, a);
        break;
      case "--questions":
        out.questions = value(i++, a);
        break;
      case "--limit":
        out.limit = whole(value(i++, a), a, 1);
        break;
      case "--seed":
        out.seed = whole(value(i++, a), a, 0);
        break;
      case "--config":
        out.config = value(i++, a);
        break;
      case "--json":
        out.json = value(i++, a);
        break;
      case "--concurrency":
        out.concurrency = whole(value(i++, a), a, 1);
        break;
      case "--user":
        out.user = value(i++, a);
        break;
      case "--llm": {
        const v = value(i++, a);
        if (v !== "default" && v !== "off")
          throw new AppError("VALIDATION", `--llm is "default" (the workspace's LLM settings) or "off" (classical strategies only).`);
        out.llm = v;
        break;
      }
      case "--fresh":
        out.fresh = true;
        break;
      case "--neo4j-harness":
        out.neo4jHarness = true;
        break;
      case "--quiet":
        out.quiet = true;
        break;
      case "--robustness":
        out.robustness = true;
        break;
      case "--guides":
        out.guides = value(i++, a);
        break;
      case "--guides-user":
        out.guidesUser = value(i++, a);
        break;
      default:
        throw new AppError("VALIDATION", `Unknown option ${a}. ${USAGE}`);
    }
  }
  if (!out.suite) throw new AppError("VALIDATION", `Name a suite. ${USAGE}`);
  if (out.robustness && out.questions)
    throw new AppError("VALIDATION", "--robustness runs the committed rewrites of the dev split; it does not take --questions.");
  if (out.robustness && out.suite !== "all" && !isRobustnessSuite(out.suite)) {
    throw new AppError(
      "VALIDATION",
      `--robustness has rewrites for ${ROBUSTNESS_SUITES.join(", ")} (or all three with --suite all), not "${out.suite}".`,
    );
  }
  if (out.guides && (out.suite === "all" || out.robustness))
    throw new AppError("VALIDATION", "--guides measures one suite: name it (not all), without --robustness.");
  if (out.guidesUser && !out.guides) throw new AppError("VALIDATION", "--guides-user names the owner of the guides of --guides G.json.");
  if (out.questions && !isQuestionFileSuite(out.suite)) {
    throw new AppError(
      "VALIDATION",
      `--questions needs one of the suites ${QUESTION_FILE_SUITES.join(", ")} (the file's format): ${QUESTION_FILE_SUITES.map((k) => `${k}: ${QUESTION_FILE_FORMATS[k]}`).join("; ")}.`,
    );
  }
  return out;
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new AppError("VALIDATION", `Cannot read the config file ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new AppError("VALIDATION", `The config file ${file} is not valid JSON: ${(e as Error).message}`);
  }
}

await runCli(async () => {
  const args = parseArgs(process.argv.slice(2));
  const env = loadEnv();
  const deps = catalogDeps();
  const configInput = args.config ? readConfigFile(args.config) : {};
  // Read (and checked as a file) before anything is opened: a bad file stops here and changes nothing.
  const guidesFile = args.guides ? readEvalGuidesFile(path.resolve(args.guides)) : null;

  // Neo4j for text2cypher (and mixed): NEO4J_URI, or a throw-away test harness (Java 17 + Maven) with --neo4j-harness.
  let harness: { stop(): Promise<void> } | null = null;
  let neo4j: Neo4jSettings | undefined = env.NEO4J_URI
    ? { uri: env.NEO4J_URI, user: env.NEO4J_USER, password: env.NEO4J_PASSWORD, database: env.NEO4J_DATABASE }
    : undefined;
  if (args.neo4jHarness && !neo4j) {
    const { startNeo4j } = await import("../tests/support/services/neo4j");
    const started = Date.now();
    const server = await startNeo4j();
    harness = server;
    neo4j = { uri: server.uri, user: server.user, password: server.password };
    console.log(`Started a throw-away Neo4j at ${server.uri} (${formatDuration(Date.now() - started)}); it stops when the run ends.`);
  }

  const { handle } = await openAndBootstrap(env);
  const prisma = handle.prisma;
  const controller = new AbortController();
  let interrupts = 0;
  /** Undone in the finally below, also when the run fails or is stopped (a temporary collection). */
  const cleanups: (() => Promise<void>)[] = [];
  const runCleanups = async () => {
    for (const undo of cleanups.splice(0).reverse())
      await undo().catch((e: Error) =>
        console.error(`Could not remove what the run registered (a temporary collection or guides): ${e.message}`),
      );
  };
  let lastInterrupt = 0;
  const onSigint = () => {
    // One Ctrl-C can arrive twice (through npm and tsx as well as from the terminal): a repeat within a second is the same one.
    if (Date.now() - lastInterrupt < 1000) return;
    lastInterrupt = Date.now();
    interrupts++;
    if (interrupts === 1) {
      console.error(
        "\nStopping after the questions in flight are cancelled; finished questions are kept (run the same command to resume). Ctrl-C again to quit at once.",
      );
      controller.abort();
    } else {
      // Quit at once, but first remove a temporary collection (bounded: a stuck removal does not keep the process alive).
      void Promise.race([runCleanups(), new Promise((resolve) => setTimeout(resolve, 5000).unref())]).finally(() => process.exit(130));
    }
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);
  try {
    const userRow = args.user
      ? await prisma.user.findUnique({ where: { email: args.user.toLowerCase() }, include: { memberships: true } })
      : await prisma.user.findFirst({
          where: { role: "ADMIN", active: true },
          orderBy: { createdAt: "asc" },
          include: { memberships: true },
        });
    if (!userRow || !userRow.active)
      throw new AppError("VALIDATION", args.user ? `No active user ${args.user}.` : "No active admin exists; pass --user <email>.");
    const user = { id: userRow.id, role: userRow.role, groupIds: userRow.memberships.map((m) => m.groupId) };

    /**
     * One suite run. `given` is a suite built here (a robustness run) with the question file it stands
     * for; `extend` adds to the finished report before it is printed and written.
     */
    const runSuite = async (
      key: string,
      jsonOut: string | undefined,
      given?: { suite: SuiteDefinition; ref: QuestionsFileRef },
      extend?: (report: ReportJson) => { report: ReportJson; text: string },
    ): Promise<ReportJson> => {
      const fromFile = args.questions ? loadQuestionFile(key, path.resolve(args.questions), deps.datasetsDir) : null;
      for (const note of fromFile?.notes ?? []) console.log(note);
      const suite = given?.suite ?? fromFile?.suite ?? (await loadSuite(prisma, key, deps.datasetsDir));
      if (fromFile?.collection) {
        // The file's own contexts, as a throw-away collection removed when the run ends (below), fails or is stopped.
        const registered = await registerQuestionCollection(prisma, deps, user, fromFile, (line) => console.log(line));
        cleanups.push(async () => {
          await registered.remove();
          console.log(`Removed the temporary collection "${registered.kbName}".`);
        });
      } else {
        await prepareSuiteCatalog(prisma, deps, suite, { neo4j, log: (line) => console.log(line) });
      }
      // No server runs the embedding jobs here: with the models on, the collections are embedded (or their vectors checked) before the first question.
      console.log(await embedCollectionsNow(prisma, deps, { exclusive: !env.DATABASE_URL, log: (line) => console.log(`  ${line}`) }));
      if (fromFile) await checkQuestionFileSources(prisma, user, fromFile);
      let guides: RegisteredEvalGuides | null = null;
      if (guidesFile) {
        const owner = await evalGuideOwner(prisma, user, args.guidesUser);
        console.log(`\nRegistering the guides of ${guidesFile.ref.name} (sha256 ${guidesFile.ref.sha256}) as ${owner.email}:`);
        // Removed in the finally below (registered first, so the removal is queued even if the import stops half way).
        const pending: { value: RegisteredEvalGuides | null } = { value: null };
        cleanups.push(async () => {
          if (!pending.value) return;
          const removed = await pending.value.remove();
          console.log(`Removed the ${removed} guide${removed === 1 ? "" : "s"} this run registered from ${pending.value.ref.name}.`);
        });
        guides = await registerEvalGuides(prisma, deps, owner, guidesFile, {
          signal: controller.signal,
          onItem: (r) => {
            if (args.quiet && r.status !== "failed") return;
            console.log(
              `  item ${r.item}: ${r.status === "failed" ? "SKIPPED" : r.status === "duplicate" ? "existing" : "ok      "} ${r.question.slice(0, 70)} (${r.kb ?? "no source"}): ${r.detail}`,
            );
          },
        });
        pending.value = guides;
        console.log(
          `Guides: ${guides.ref.imported} imported, ${guides.ref.skipped} skipped${guides.ref.existing ? `, ${guides.ref.existing} already guides (kept)` : ""}, of ${guides.ref.items}.`,
        );
        // Their questions are embedded before the first question, as the server's job runner would.
        if (guides.ref.imported > 0)
          console.log(await embedCollectionsNow(prisma, deps, { exclusive: !env.DATABASE_URL, log: (line) => console.log(`  ${line}`) }));
      }
      const plan = await planEvalRun(
        prisma,
        deps,
        user,
        {
          suite: key,
          seed: args.seed,
          // A robustness run's suites are already drawn (the pairs must stay whole).
          limit: given ? null : args.limit,
          configInput,
          concurrency: args.concurrency,
          origin: "cli",
          fresh: args.fresh,
          llm: args.llm,
          questionsFile: given?.ref ?? fromFile?.ref,
          guidesFile: guides?.ref,
        },
        given?.suite ?? fromFile?.suite,
      );
      const { reportId, resumedFrom } = await openReport(prisma, user, plan, { sharedDatabase: !!env.DATABASE_URL });
      const total = plan.questions.length;
      console.log(
        `\n${plan.suite.label}: ${total} question${total === 1 ? "" : "s"}${args.limit ? ` (seed ${args.seed}, of ${plan.catalog.questions.length})` : ""} over ${plan.catalog.kbIds?.length ?? plan.catalog.byId.size} knowledge bases, concurrency ${args.concurrency}, as ${userRow.email}; report ${reportId}`,
      );
      if (plan.catalog.skipped.length) {
        console.log(
          `Left out ${plan.catalog.skipped.length} question(s) whose gold source is missing: ${plan.catalog.skipped[0].reason}${plan.catalog.skipped.length > 1 ? ", …" : ""}`,
        );
      }
      if (resumedFrom) console.log(`Resuming: ${resumedFrom} of ${total} questions are already done (--fresh starts over).`);
      let report = await executeEvalRun(prisma, deps, user, plan, reportId, {
        signal: controller.signal,
        sharedDatabase: !!env.DATABASE_URL,
        onQuestion: (r, p) => {
          if (args.quiet) return;
          const verdict =
            r.status === "ERROR"
              ? "error"
              : r.scores.p1 === true
                ? "right"
                : r.scores.p1 === false
                  ? "wrong"
                  : r.refrain.correctDecision === true
                    ? "right"
                    : "–";
          const ex = r.execution ? ` EX ${r.execution.match ? "✓" : "✗"}` : "";
          const ret = r.retrieval ? ` hit@10 ${r.retrieval.ranks.some((x) => x !== null && x <= 10) ? "✓" : "✗"}` : "";
          console.log(
            `[${String(p.done).padStart(String(p.total).length)}/${p.total}] ${verdict.padEnd(5)}${ex}${ret} ${formatDuration(r.totalMs).padStart(7)}  ${r.question.slice(0, 80)}${r.error ? `  (${r.error})` : ""}`,
          );
        },
      });
      const extended = extend?.(report);
      if (extended) report = extended.report;
      console.log(`\n${formatReport(report)}`);
      if (extended) console.log(`\n${extended.text}`);
      if (jsonOut) {
        const out = path.resolve(jsonOut);
        mkdirSync(path.dirname(out), { recursive: true });
        writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
        console.log(`\nReport written to ${out}`);
      }
      if (report.status === "CANCELLED") {
        console.log(`\nCancelled after ${report.n} of ${total} questions: run the same command to resume.`);
        process.exitCode = 130;
      } else if (report.status === "FAILED") {
        console.error(`\nThe run stopped: ${report.error}. Finished questions are kept; run the same command to resume.`);
        process.exitCode = 1;
      }
      return report;
    };

    /** The dev items, then their rewrites, then the comparison (added to the rewrites' report). */
    const runRobustness = async (key: string, jsonOut: string | undefined): Promise<{ summary: RobustnessSummary; wallMs: number }> => {
      if (!isRobustnessSuite(key)) throw new AppError("VALIDATION", `There are no rewrites for ${key}.`);
      const started = Date.now();
      const set = loadRobustnessSet(key, deps.datasetsDir);
      const runs = robustnessRun(set, deps.datasetsDir, { seed: args.seed, limit: args.limit });
      console.log(
        `\nRobustness set ${set.ref.name}: ${runs.rewritten.questions.length} rewrites of ${runs.dev.questions.length} dev items (drawn with seed ${set.seed}); the dev items run first.`,
      );
      const devOut = jsonOut ? jsonOut.replace(/(\.json)?$/, ".dev.json") : undefined;
      const devReport = await runSuite(key, devOut, { suite: runs.dev, ref: set.devRef });
      if (devReport.status === "CANCELLED")
        throw new AppError("CONFLICT", "Stopped before the rewrites ran: run the same command to resume.");
      let summary: RobustnessSummary | null = null;
      await runSuite(key, jsonOut, { suite: runs.rewritten, ref: set.ref }, (report) => {
        summary = robustnessSummary(key, set.ref, devReport.perQuestion, report.perQuestion);
        return { report: { ...report, robustness: summary }, text: formatRobustness(summary) };
      });
      return { summary: summary!, wallMs: Date.now() - started };
    };

    if (args.robustness) {
      const keys = args.suite === "all" ? [...ROBUSTNESS_SUITES] : [args.suite!];
      const done: { suite: string; summary?: RobustnessSummary; skipped?: string; wallMs: number }[] = [];
      for (const key of keys) {
        if (controller.signal.aborted) break;
        const started = Date.now();
        try {
          const out = args.json ? (keys.length > 1 ? path.join(args.json, `${key}.json`) : args.json) : undefined;
          done.push({ suite: key, ...(await runRobustness(key, out)) });
        } catch (e) {
          if (keys.length === 1 || !(e instanceof AppError) || e.code !== "UNAVAILABLE") throw e;
          console.log(`\nSKIPPED ${key}: ${e.message}`);
          done.push({ suite: key, skipped: e.message, wallMs: Date.now() - started });
        }
      }
      if (keys.length > 1) console.log(`\nRobustness, all sets\n${formatRobustnessOverview(done)}`);
    } else if (args.suite !== "all") {
      await runSuite(args.suite!, args.json);
    } else {
      // Every built-in suite in turn (CI): --json names a folder that gets one <suite>.json each.
      const rows: SummaryRow[] = [];
      for (const key of ALL_SUITES) {
        if (controller.signal.aborted) break;
        const started = Date.now();
        try {
          const report = await runSuite(key, args.json ? path.join(args.json, `${key}.json`) : undefined);
          rows.push({ suite: key, report, wallMs: Date.now() - started });
        } catch (e) {
          if (!(e instanceof AppError) || e.code !== "UNAVAILABLE") throw e;
          console.log(`\nSKIPPED ${key}: ${e.message}`);
          rows.push({ suite: key, skipped: e.message, wallMs: Date.now() - started });
        }
      }
      console.log(`\nAll suites\n${formatSummary(rows)}`);
    }
  } finally {
    await runCleanups();
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
    await closeAllBackends();
    await handle.close();
    await harness?.stop();
  }
});
