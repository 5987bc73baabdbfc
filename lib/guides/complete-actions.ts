import { AppError } from "../errors";
import type { GuideActionKind } from "../pipeline/guide-actions";
import { INCOMPLETE_ACTIONS, actionFieldProblems, draftActionProblems } from "./action-fields";

/**
 * The server's side of the editor's checks: an incomplete action is stopped before anything runs,
 * with the same field messages the editor shows next to each field.
 */
export function assertActionComplete(kind: GuideActionKind, params: unknown): void {
  const problems = actionFieldProblems(kind, params);
  const first = Object.values(problems)[0];
  if (first) throw new AppError("VALIDATION", first, problems);
}

export function assertDraftActionsComplete(draft: unknown): void {
  const problems = draftActionProblems(draft);
  if (Object.keys(problems).length) throw new AppError("VALIDATION", INCOMPLETE_ACTIONS, problems);
}
