import type { PrismaClient } from "../db/generated/client";
import { SYSTEM_ACTOR, recordAudit } from "./audit";
import { type AuditRetentionInput, DEFAULT_AUDIT_RETENTION_DAYS, auditRetentionInputSchema } from "./retention.validation";

export { DEFAULT_AUDIT_RETENTION_DAYS };

/**
 * How long audit records are kept (Settings → Audit log). The purge job (lib/server/job-handlers.ts,
 * enqueued daily by the server) deletes what is older: the only deletion of audit records, and it
 * records itself (how many rows, up to when) with the settings that applied.
 */

export const AUDIT_RETENTION_SETTING_KEY = "auditRetention";

export async function auditRetentionDays(prisma: PrismaClient): Promise<number> {
  const row = await prisma.setting.findUnique({ where: { key: AUDIT_RETENTION_SETTING_KEY }, select: { value: true } });
  const parsed = auditRetentionInputSchema.safeParse(row?.value ?? {});
  return parsed.success ? parsed.data.days : DEFAULT_AUDIT_RETENTION_DAYS;
}

export async function saveAuditRetention(prisma: PrismaClient, raw: AuditRetentionInput): Promise<void> {
  const value = auditRetentionInputSchema.parse(raw);
  await prisma.setting.upsert({
    where: { key: AUDIT_RETENTION_SETTING_KEY },
    create: { key: AUDIT_RETENTION_SETTING_KEY, value },
    update: { value },
  });
}

/** Deletes records older than the retention, then records the purge (awaited: the job's own work). */
export async function purgeAuditEvents(
  prisma: PrismaClient,
  now: Date = new Date(),
): Promise<{ deleted: number; before: Date; days: number }> {
  const days = await auditRetentionDays(prisma);
  const before = new Date(now.getTime() - days * 86_400_000);
  const { count } = await prisma.auditEvent.deleteMany({ where: { at: { lt: before } } });
  await recordAudit(prisma, {
    ...SYSTEM_ACTOR,
    action: "audit.purge",
    targetType: "audit",
    detail: { deleted: count, olderThan: before.toISOString(), retentionDays: days },
  });
  return { deleted: count, before, days };
}
