// npm run ask -- [--json] [--user <email>] [--kb <id or name>]... [--conversation <id>] "<question>"
// Runs the answering pipeline as that user (default: the first admin) and prints the answer, or with
// --json one object: {question, answer, refrained, confidence, citations, evidence, candidates, trace, iterations}.
import { closeAllBackends } from "../lib/backends/registry";
import { catalogDeps } from "../lib/deps";
import { openAndBootstrap } from "../lib/db/bootstrap";
import { seedDemoCatalogOnce } from "../lib/demo/seed-catalog";
import { loadEnv } from "../lib/env";
import { clipAtWord } from "../lib/format/clip";
import { outcomeToJson } from "../lib/pipeline/run";
import { runPipeline } from "../lib/runs/run-pipeline";
import { runCli } from "./cli";

function parseArgs(argv: string[]) {
  const out = {
    json: false,
    user: undefined as string | undefined,
    kbs: [] as string[],
    conversation: undefined as string | undefined,
    question: [] as string[],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json") out.json = true;
    else if (a === "--user") out.user = argv[++i];
    else if (a === "--kb") out.kbs.push(argv[++i]);
    else if (a === "--conversation") out.conversation = argv[++i];
    else if (a.startsWith("--"))
      throw new Error(`Unknown option ${a}. Usage: npm run ask -- [--json] [--user <email>] [--kb <id or name>]... "<question>"`);
    else out.question.push(a);
  }
  return out;
}

await runCli(async () => {
  const args = parseArgs(process.argv.slice(2));
  const question = args.question.join(" ");
  if (!question.trim()) throw new Error('Give a question, e.g. npm run ask -- "How many orders were returned?"');
  const env = loadEnv();
  const { handle } = await openAndBootstrap(env);
  const prisma = handle.prisma;
  try {
    // Same first-start behaviour as the server: a fresh workspace gets the demo catalog.
    if (env.SEED_DEMO) await seedDemoCatalogOnce(prisma, catalogDeps());
    const userRow = args.user
      ? await prisma.user.findUnique({ where: { email: args.user.toLowerCase() }, include: { memberships: true } })
      : await prisma.user.findFirst({
          where: { role: "ADMIN", active: true },
          orderBy: { createdAt: "asc" },
          include: { memberships: true },
        });
    if (!userRow || !userRow.active)
      throw new Error(args.user ? `No active user ${args.user}.` : "No active admin exists; pass --user <email>.");
    const kbIds: string[] = [];
    for (const ref of args.kbs) {
      const kb = await prisma.knowledgeBase.findFirst({ where: { OR: [{ id: ref }, { name: ref }] }, select: { id: true } });
      if (!kb) throw new Error(`No knowledge base "${ref}".`);
      kbIds.push(kb.id);
    }
    const outcome = await runPipeline(prisma, catalogDeps(), {
      question,
      user: { id: userRow.id, role: userRow.role, groupIds: userRow.memberships.map((m) => m.groupId) },
      conversationId: args.conversation,
      kbIds: kbIds.length ? kbIds : undefined,
      onEvent: args.json
        ? undefined
        : (e) => {
            if (e.type === "END" && e.stage !== "run")
              process.stderr.write(
                `  ${e.stage.padEnd(16)} ${String(Math.round(e.durationMs ?? 0)).padStart(5)} ms  [${e.strategy ?? "classical"}] ${clipAtWord(e.summary, 140)}\n`,
              );
          },
    });
    if (args.json) {
      process.stdout.write(`${JSON.stringify(outcomeToJson(outcome), null, 2)}\n`);
    } else {
      const a = outcome.answer;
      console.log(
        a.refrained
          ? `\nNo answer: ${a.reason}`
          : `\n${a.text}   (confidence ${a.confidence.toFixed(2)}${outcome.winner ? `, from ${outcome.winner.kbName}` : ""})`,
      );
      for (const id of a.citations) {
        const e = outcome.evidence.find((x) => x.piece.id === id);
        if (e)
          console.log(
            `  [${e.piece.kind}] ${clipAtWord(e.piece.text, 200)}\n      ${e.piece.provenance.kbName} · ${clipAtWord(e.piece.provenance.query, 160)}`,
          );
      }
      for (const d of outcome.degradations) console.log(`  note: ${d}`);
      const llm = outcome.llm;
      if (llm)
        console.log(
          `  llm: ${llm.calls} calls, ${llm.totalTokens} tokens, $${llm.costUsd.toFixed(4)}${llm.priceUnknown.length ? ` (price unknown: ${llm.priceUnknown.join(", ")})` : ""}`,
        );
      console.log(`  run ${outcome.runId} · conversation ${outcome.conversationId} · ${outcome.totalMs} ms`);
    }
  } finally {
    await closeAllBackends();
    await handle.close();
  }
});
