import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { log } from "../log";
import { count } from "../format/count";

/**
 * Fair use (issue 31, case 15): how many questions one principal ("user:<id>"; an API key will be
 * "key:<id>") may have running at once. A run takes a slot (a RunSlot row) before it starts and gives it
 * back when it ends, so every app instance on one database counts the same runs. Taking a slot is
 * serialised per principal by a transaction-scoped advisory lock, so a burst of parallel requests
 * cannot all see "one free" at once. A slot whose instance died is not given back: it expires, since a
 * live run renews it every RUN_SLOT_LEASE_MS / 3.
 *
 * Excess requests are refused at once (429, Retry-After) rather than queued: a queued request would hold
 * a connection and a waiter on one instance while the slot it waits for may free up on another, and the
 * asker would watch a run that has not started. The ask page shows the refusal as it is.
 */

export const RUN_SLOT_LEASE_MS = 60_000;
/** What Retry-After says: most questions take seconds, so trying again shortly is reasonable. */
export const RUN_SLOT_RETRY_AFTER_SECONDS = 5;

export type SlotAttempt = { ok: true; id: string } | { ok: false; running: number };

export async function tryTakeRunSlot(
  prisma: PrismaClient,
  principal: string,
  limit: number,
  opts: { now?: Date; leaseMs?: number } = {},
): Promise<SlotAttempt> {
  const now = opts.now ?? new Date();
  const leaseMs = opts.leaseMs ?? RUN_SLOT_LEASE_MS;
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`mosaic.run-slots:${principal}`}, 0))`;
    await tx.runSlot.deleteMany({ where: { principal, expiresAt: { lt: now } } });
    const running = await tx.runSlot.count({ where: { principal } });
    if (running >= limit) return { ok: false as const, running };
    const slot = await tx.runSlot.create({ data: { principal, startedAt: now, expiresAt: new Date(now.getTime() + leaseMs) } });
    return { ok: true as const, id: slot.id };
  });
}

export async function renewRunSlot(prisma: PrismaClient, id: string, leaseMs = RUN_SLOT_LEASE_MS): Promise<void> {
  await prisma.runSlot.updateMany({ where: { id }, data: { expiresAt: new Date(Date.now() + leaseMs) } });
}

export async function releaseRunSlot(prisma: PrismaClient, id: string): Promise<void> {
  await prisma.runSlot.deleteMany({ where: { id } });
}

export interface HeldRunSlot {
  release(): Promise<void>;
}

/**
 * Takes a slot for a run that is about to start, or throws RATE_LIMITED (with a retry time) when the
 * principal already has `limit` runs going. The slot is renewed until released.
 */
export async function holdRunSlot(
  prisma: PrismaClient,
  principal: string,
  limit: number,
  leaseMs = RUN_SLOT_LEASE_MS,
): Promise<HeldRunSlot> {
  const attempt = await tryTakeRunSlot(prisma, principal, limit, { leaseMs });
  if (!attempt.ok) {
    throw new AppError(
      "RATE_LIMITED",
      `You already have ${count(attempt.running, "question")} running, the most one person may have at once. ` +
        "Ask again when one of them has finished.",
      undefined,
      RUN_SLOT_RETRY_AFTER_SECONDS,
    );
  }
  const timer = setInterval(
    () => void renewRunSlot(prisma, attempt.id, leaseMs).catch((err) => log.warn({ err }, "could not renew a run slot")),
    Math.max(1_000, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await releaseRunSlot(prisma, attempt.id).catch((err) => log.warn({ err }, "could not release a run slot; it expires by itself"));
    },
  };
}
