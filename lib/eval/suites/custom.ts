import type { KbKind } from "../../backends/types";
import type { PrismaClient } from "../../db/generated/client";
import type { EvalQuestion, SuiteDefinition } from "../types";
import { count } from "../../format/count";

export const CUSTOM_PREFIX = "custom:";

/**
 * A suite authored in the workspace (EvalSuite rows): its questions with accepted answers or "should
 * refrain", and the KBs that hold the answer. It runs against every KB the user may use.
 */
export async function customSuite(prisma: PrismaClient, suiteId: string): Promise<SuiteDefinition | null> {
  const suite = await prisma.evalSuite.findUnique({ where: { id: suiteId }, include: { questions: { orderBy: { position: "asc" } } } });
  if (!suite) return null;
  const kbIds = [...new Set(suite.questions.flatMap((q) => q.goldKbIds))];
  const kbs = new Map(
    (await prisma.knowledgeBase.findMany({ where: { id: { in: kbIds } }, select: { id: true, name: true, kind: true } })).map((k) => [
      k.id,
      k,
    ]),
  );
  const questions: EvalQuestion[] = suite.questions.map((q) => {
    const gold = q.goldKbIds.map((id) => kbs.get(id)).filter((k): k is NonNullable<typeof k> => !!k);
    return {
      id: `custom:${q.id}`,
      suite: `${CUSTOM_PREFIX}${suite.id}`,
      question: q.question,
      kind: (gold[0]?.kind as KbKind | undefined) ?? "UNKNOWN",
      goldKbNames: gold.map((k) => k.name),
      gold: q.unanswerable
        ? { type: "unanswerable" }
        : q.goldAnswers.length
          ? { type: "answers", answers: q.goldAnswers }
          : { type: "retrieval-only" },
      tags: [`from:${q.origin}`],
    };
  });
  return {
    key: `${CUSTOM_PREFIX}${suite.id}`,
    label: suite.name,
    description: suite.description || `Authored suite with ${count(questions.length, "question")}.`,
    questions,
    scope: null,
  };
}
