import { isBackendError } from "../backends/errors";
import type { AccessSubject } from "../catalog/access";
import type { CatalogDeps } from "../deps";
import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { executeGuideAction } from "../pipeline/execute-action";
import { parseGuideAction } from "../pipeline/guide-actions";
import { brokenReasonOf } from "../pipeline/run/persistence";
import { accessibleKb, findVisibleGuide } from "./access";
import { CAPTURE_LIMITS, executableAction } from "./capture";

/**
 * "Check now" on a guide's page: runs the guide's native queries as they are written (read-only, through
 * the backends' safety rules and limits, as at run time) and flags the guide with the first failure's
 * reason, or clears the flag when every query runs (with rows or without). A timeout or an unavailable
 * source decides nothing: the flag stays as it was and the result says the check could not finish.
 */
export interface GuideCheckResult {
  brokenReason: string | null;
  checkedAt: string;
  /** One line per query checked, in words. */
  queries: { kbName: string; status: "ok" | "broken" | "unchecked"; detail: string }[];
}

/** Codes that say the query itself is wrong; the others (timeout, source down) say nothing about the guide. */
const BROKEN_CODES = new Set(["UNSAFE_QUERY", "QUERY_SYNTAX", "QUERY_FAILED"]);

export async function checkGuide(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  id: string,
  signal?: AbortSignal,
): Promise<GuideCheckResult> {
  if (user.role !== "ADMIN" && user.role !== "ANALYST") throw new AppError("FORBIDDEN", "Only analysts and admins check guides.");
  await findVisibleGuide(prisma, user, id);
  const guide = await prisma.extractionGuide.findUniqueOrThrow({
    where: { id },
    select: {
      brokenReason: true,
      sources: { orderBy: { position: "asc" }, select: { kbId: true, actions: { orderBy: { position: "asc" } } } },
    },
  });
  const queries: GuideCheckResult["queries"] = [];
  let broken: string | null = null;
  let undecided = false;
  for (const source of guide.sources) {
    // findVisibleGuide checked every source is in a KB the user may use.
    const kb = await accessibleKb(prisma, user, source.kbId);
    for (const a of source.actions) {
      const parsed = parseGuideAction(a.kind, a.params);
      if (parsed?.kind !== "NATIVE_QUERY") continue;
      try {
        const action = await executableAction(kb, parsed, deps);
        const r = await executeGuideAction(kb, action, deps, { ...CAPTURE_LIMITS, signal });
        queries.push({ kbName: kb.name, status: "ok", detail: `runs and returns ${r.pieces.length} row(s)` });
      } catch (e) {
        const code = isBackendError(e) ? e.code : null;
        if (code && BROKEN_CODES.has(code)) {
          const reason = brokenReasonOf(kb.name, (e as Error).message);
          broken ??= reason;
          queries.push({ kbName: kb.name, status: "broken", detail: reason });
        } else {
          undecided = true;
          queries.push({
            kbName: kb.name,
            status: "unchecked",
            detail: code ? `could not be checked now: ${(e as Error).message}` : "could not be checked now: the source did not answer",
          });
        }
      }
    }
  }
  if (!queries.length) throw new AppError("VALIDATION", "This guide has no query to check: its actions are not native queries.");
  const checkedAt = new Date();
  // A query that failed decides; otherwise a check that could not finish keeps the flag as it was.
  const brokenReason = broken ?? (undecided ? guide.brokenReason : null);
  await prisma.extractionGuide.update({ where: { id }, data: { brokenReason, checkedAt } });
  return { brokenReason, checkedAt: checkedAt.toISOString(), queries };
}
