import { z } from "zod";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { log } from "../log";

/**
 * The audit log (issue 29): who did what, when, from where, and what changed. Every writer goes through
 * `audit(event)`, which returns at once and writes in the background: a slow or failing audit write
 * never delays or fails the sign-in, question or change it records (a failure is logged with the event,
 * so nothing is lost silently). Records are append-only: this module has no update or delete, the
 * table's rule turns an UPDATE into nothing, and the retention purge (retention.ts) is the only deletion.
 */

export const auditEventSchema = z.object({
  action: z.string().min(1).max(100),
  outcome: z.enum(["success", "failure"]).default("success"),
  actorId: z.string().max(200).nullish(),
  actorEmail: z.string().max(320).nullish(),
  address: z.string().max(100).nullish(),
  targetType: z.string().max(50).nullish(),
  targetId: z.string().max(400).nullish(),
  kbIds: z.array(z.string().max(200)).max(1000).default([]),
  runId: z.string().max(200).nullish(),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
  detail: z.unknown().optional(),
});
export type AuditEventInput = z.input<typeof auditEventSchema>;

/** Who acted and from where: taken from the request once, passed to every audit call it makes. */
export interface AuditActor {
  actorId: string | null;
  actorEmail: string | null;
  address: string | null;
}

export const SYSTEM_ACTOR: AuditActor = { actorId: null, actorEmail: "system", address: null };

function json(value: unknown): Prisma.InputJsonValue | undefined {
  if (value === undefined || value === null) return undefined;
  // Dates, Maps etc. as JSON would store them; undefined fields dropped.
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;
}

/** Writes one record and waits for it (the purge job, tests). Most callers want `audit`. */
export async function recordAudit(prisma: PrismaClient, raw: AuditEventInput): Promise<void> {
  const e = auditEventSchema.parse(raw);
  await prisma.auditEvent.create({
    data: {
      action: e.action,
      outcome: e.outcome,
      actorId: e.actorId ?? null,
      actorEmail: e.actorEmail ?? null,
      address: e.address ?? null,
      targetType: e.targetType ?? null,
      targetId: e.targetId ?? null,
      kbIds: [...new Set(e.kbIds)],
      runId: e.runId ?? null,
      before: json(e.before),
      after: json(e.after),
      detail: json(e.detail),
    },
  });
}

export type PrismaSource = PrismaClient | (() => Promise<PrismaClient>);

/**
 * The app's database, loaded on first use: lib/db/client is server-only, and a script or test that
 * passes its own client (the admin command line, the benchmark) must be able to import this module.
 */
export const appDatabase = (): Promise<PrismaClient> => import("../db/client").then((m) => m.db());

let pending = new Set<Promise<void>>();

/**
 * Records an event without waiting: the caller goes on at once. A failed write is logged (error level,
 * with the event) and never thrown. `prisma` defaults to the app's database.
 */
export function audit(event: AuditEventInput, prisma: PrismaSource = appDatabase): void {
  const write = (async () => {
    const client = typeof prisma === "function" ? await prisma() : prisma;
    await recordAudit(client, event);
  })()
    .catch((err: unknown) =>
      log.error({ err, audit: { ...event, before: undefined, after: undefined } }, "could not write an audit record"),
    )
    .finally(() => pending.delete(write));
  pending.add(write);
}

/** Waits for the audit writes started so far (tests, and a clean shutdown). */
export async function flushAudit(): Promise<void> {
  while (pending.size > 0) {
    const now = [...pending];
    pending = new Set();
    await Promise.allSettled(now);
  }
}
