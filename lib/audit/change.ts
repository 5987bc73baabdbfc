import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { type AuditActor, audit } from "./audit";

export interface ChangeSpec {
  action: string;
  targetType: string;
  /** Known before the change (updates, deletes), or read from the result (creations). */
  targetId?: string | null;
  kbIds?: string[];
  /** The target's state as the audit should show it (no secrets): read before and after the change. */
  snapshot?: (prisma: PrismaClient, targetId: string) => Promise<unknown>;
  /** The id of a created target, from the change's result. */
  idFrom?: (result: unknown) => string | undefined;
  /** Extra details (the input, with secrets left out). */
  detail?: unknown;
}

/**
 * Runs a change and records it with its before and after state. The change's own outcome is untouched:
 * its result is returned and its error rethrown (recorded as a failure first); the record is written in
 * the background (audit.ts), so a failing audit write cannot fail the change.
 */
export async function auditedChange<T>(prisma: PrismaClient, actor: AuditActor, spec: ChangeSpec, change: () => Promise<T>): Promise<T> {
  const snap = async (id: string | null | undefined) => {
    if (!spec.snapshot || !id) return undefined;
    try {
      return (await spec.snapshot(prisma, id)) ?? null;
    } catch {
      return undefined; // the snapshot is for the record; it never stops the change
    }
  };
  const before = await snap(spec.targetId);
  const base = { ...actor, action: spec.action, targetType: spec.targetType, kbIds: spec.kbIds ?? [], detail: spec.detail };
  let result: T;
  try {
    result = await change();
  } catch (e) {
    // The typed message people saw; anything else is named only by its kind (raw engine text stays in the log).
    const error = AppError.is(e) ? `${e.code}: ${e.message}` : "unexpected error";
    audit({ ...base, outcome: "failure", targetId: spec.targetId, before, detail: { ...(spec.detail as object), error } }, prisma);
    throw e;
  }
  const targetId = spec.targetId ?? spec.idFrom?.(result) ?? null;
  const after = await snap(targetId);
  audit({ ...base, targetId, before, after }, prisma);
  return result;
}
