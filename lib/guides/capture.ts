import type { KbRecord } from "../backends/registry";
import { type EvidencePiece, LANGUAGE_OF, type NativeQuery } from "../backends/types";
import type { AccessSubject } from "../catalog/access";
import { asAppError } from "../catalog/backend-errors";
import type { CatalogDeps } from "../deps";
import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { type ActionResult, executeGuideAction } from "../pipeline/execute-action";
import { ACTION_LABEL, type GuideActionInput, type GuideActionKind, describeAction, guideActionSchema } from "../pipeline/guide-actions";
import { accessibleKb } from "./access";
import { MAX_CONTEXT_CHARS } from "./guides.validation";
import { sqlCoordinatesQuery } from "./sql-coordinates";

/**
 * An analyst's run of a retrieval action and the context a guide keeps from it. A run inside a
 * question calls the pipeline's executeGuideAction directly, under the run's own limits.
 */

export interface CapturedContext {
  /** The context text, cut at MAX_CONTEXT_CHARS (what a guide stores). */
  context: string;
  truncated: boolean;
  /** The evidence the action produced, best first, at most CAPTURE_PIECES of them. */
  pieces: { id: string; kind: EvidencePiece["kind"]; text: string }[];
  pieceCount: number;
  query: NativeQuery | null;
  /** The action in AU-RAG notation, as written, for the screen. */
  description: string;
  /** The action as it ran and as a guide stores it (SelectCoordinates on SQL becomes its query). */
  action: GuideActionInput;
  ms: number;
}

const CAPTURE_PIECES = 50;
export const CAPTURE_LIMITS = { timeoutMs: 15_000, maxRows: 200 } as const;

function capContext(text: string): { context: string; truncated: boolean } {
  if (text.length <= MAX_CONTEXT_CHARS) return { context: text, truncated: false };
  const cut = text.slice(0, MAX_CONTEXT_CHARS);
  const lastLine = cut.lastIndexOf("\n");
  return { context: `${lastLine > MAX_CONTEXT_CHARS / 2 ? cut.slice(0, lastLine) : cut}\n…`, truncated: true };
}

/** Checks an action's parameters (and that a NativeQuery is in the KB's own language), naming what is wrong. */
export function parseActionFor(kb: KbRecord, raw: { kind: string; params: unknown }): GuideActionInput {
  const parsed = guideActionSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.filter((p) => p !== "params").join(".");
    throw new AppError(
      "VALIDATION",
      `The ${ACTION_LABEL[raw.kind as GuideActionKind] ?? raw.kind} action is incomplete${where ? ` (${where})` : ""}: ${issue?.message ?? "invalid"}.`,
    );
  }
  const action = parsed.data;
  if (action.kind === "NATIVE_QUERY" && action.params.query.language !== LANGUAGE_OF[kb.kind]) {
    throw new AppError(
      "VALIDATION",
      `${kb.name} answers ${LANGUAGE_OF[kb.kind].toUpperCase()} queries, not ${action.params.query.language.toUpperCase()}.`,
    );
  }
  return action;
}

/**
 * Runs one retrieval action for an analyst (source-object workbench, guide editor) and returns the
 * context it produces. The backends' safety rules apply as at run time; their refusals and failures
 * come back as VALIDATION/UNAVAILABLE errors whose messages say what to change.
 */
export async function runRetrievalAction(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  input: { kbId: string; kind: string; params: unknown },
  signal?: AbortSignal,
): Promise<CapturedContext> {
  const kb = await accessibleKb(prisma, user, input.kbId);
  const action = parseActionFor(kb, input);
  return captureAction(kb, action, deps, signal);
}

/**
 * The action as it runs and is stored: SelectCoordinates on a relational table becomes its SQL (see
 * sqlCoordinatesQuery); every other action is kept as written.
 */
export async function executableAction(kb: KbRecord, action: GuideActionInput, deps: CatalogDeps): Promise<GuideActionInput> {
  if (action.kind !== "SELECT_COORDINATES" || kb.kind !== "SQL") return action;
  try {
    return { kind: "NATIVE_QUERY", params: { query: await sqlCoordinatesQuery(kb, deps, action.params) } };
  } catch (e) {
    throw asAppError(e);
  }
}

export async function captureAction(
  kb: KbRecord,
  written: GuideActionInput,
  deps: CatalogDeps,
  signal?: AbortSignal,
): Promise<CapturedContext> {
  const started = performance.now();
  const action = await executableAction(kb, written, deps);
  let result: ActionResult;
  try {
    result = await executeGuideAction(kb, action, deps, { ...CAPTURE_LIMITS, signal });
  } catch (e) {
    throw asAppError(e);
  }
  return {
    ...capContext(result.context),
    pieces: result.pieces.slice(0, CAPTURE_PIECES).map((p) => ({ id: p.id, kind: p.kind, text: p.text.slice(0, 2000) })),
    pieceCount: result.pieces.length,
    query: result.query,
    description: describeAction(written),
    action,
    ms: Math.round(performance.now() - started),
  };
}
