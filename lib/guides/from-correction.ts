import type { NativeQuery } from "../backends/types";
import type { AccessSubject } from "../catalog/access";
import type { CatalogDeps } from "../deps";
import type { PrismaClient } from "../db/generated/client";
import { runReadWhere } from "../feedback/run-access";
import { normalizeLabel } from "../pipeline/text";
import { accessibleKb } from "./access";
import { captureAction } from "./capture";
import type { GuideDraft } from "./types";

/**
 * From a correction to a guide: a "Wrong" report that says what the answer should be gives the analyst
 * a draft whose query produces that answer. The run's own candidate queries (every structured query it
 * ran, not only the ones behind its wrong answer) run again under the capture limits, and those whose
 * result is the corrected answer are offered: it holds every value of the answer in no more rows than
 * the answer has values (a query that lists everything also "contains" the answer, and saving it would
 * teach the wrong thing). None found: the draft keeps the question for the analyst to write the query.
 */

interface StoredQuery {
  kbId: string;
  query: NativeQuery;
  status: string;
  role?: string;
  sourceObject: string | null;
}

/** At most this many of the run's queries run again (each bounded by CAPTURE_LIMITS). */
export const CORRECTION_CANDIDATES = 8;

/** The corrected answer's values: "Basecamp 4 Tent" or "Oslo, Bergen" (each must be in the result). */
function answerValues(correct: string): string[] {
  const whole = normalizeLabel(correct);
  const parts = correct
    .split(/\s*(?:[,;\n]|\band\b)\s*/i)
    .map(normalizeLabel)
    .filter(Boolean);
  return parts.length > 1 ? parts : whole ? [whole] : [];
}

function holds(context: string, values: string[]): boolean {
  const text = ` ${normalizeLabel(context)} `;
  return values.length > 0 && values.every((v) => text.includes(` ${v} `));
}

export interface CorrectionDraft {
  draft: GuideDraft;
  /** What the analyst should know about the draft (which queries were found, or that none was). */
  note: string;
  /** How many of the run's queries produce the corrected answer. */
  matching: number;
}

export async function draftFromCorrection(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  runId: string,
  correctAnswer: string,
  signal?: AbortSignal,
): Promise<CorrectionDraft | null> {
  const run = await prisma.run.findFirst({
    where: { AND: [{ id: runId }, await runReadWhere(prisma, user)] },
    select: { id: true, question: true, result: true },
  });
  const queries = ((run?.result as { queries?: StoredQuery[] } | null)?.queries ?? []).filter(
    (q) => q.status === "ok" && q.query.language !== "search",
  );
  if (!run) return null;
  const values = answerValues(correctAnswer);
  const seen = new Set<string>();
  // Answer queries first: they render the whole question, so one that holds the answer is the likely fix.
  const ordered = [...queries.filter((q) => q.role === "answer"), ...queries.filter((q) => q.role !== "answer")].filter((q) => {
    const key = `${q.kbId}\u0000${q.query.text}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const found: { q: StoredQuery; rows: number; context: string }[] = [];
  let among = 0;
  for (const q of ordered.slice(0, CORRECTION_CANDIDATES)) {
    try {
      const kb = await accessibleKb(prisma, user, q.kbId);
      const captured = await captureAction(kb, { kind: "NATIVE_QUERY", params: { query: q.query } }, deps, signal);
      if (captured.pieceCount === 0 || !holds(captured.context, values)) continue;
      if (captured.pieceCount <= values.length) found.push({ q, rows: captured.pieceCount, context: captured.context });
      else among++;
    } catch {
      // A query that no longer runs (or a source now outside the user's access) is simply not offered.
    }
  }
  found.sort((a, b) => a.rows - b.rows);
  const base = { question: run.question, answer: correctAnswer, fromRunId: run.id };
  if (!found.length) {
    return {
      draft: { ...base, sources: [] },
      note: `None of the run's ${queries.length} structured queries returns "${correctAnswer}" as its result${among ? ` (${among} list it among other rows)` : ""}: write the query that answers the question (or correct the run's query below) and run it to check its result.`,
      matching: 0,
    };
  }
  const best = found[0];
  let sourceObjectId: string | null = null;
  if (best.q.sourceObject) {
    const so = await prisma.sourceObject.findUnique({
      where: { kbId_key: { kbId: best.q.kbId, key: best.q.sourceObject } },
      select: { id: true },
    });
    sourceObjectId = so?.id ?? null;
  }
  return {
    draft: {
      ...base,
      sources: [
        { kbId: best.q.kbId, sourceObjectId, actions: [{ kind: "NATIVE_QUERY", params: { query: best.q.query }, context: best.context }] },
      ],
    },
    note:
      found.length === 1
        ? `The run's query below returns "${correctAnswer}". Check it answers the question as asked, then save.`
        : `${found.length} of the run's queries return "${correctAnswer}"; the one with the fewest rows (${best.rows}) is below. Check it answers the question as asked, then save.`,
    matching: found.length,
  };
}
