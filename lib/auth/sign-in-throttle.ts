import type { PrismaClient } from "../db/generated/client";

/**
 * Sign-in throttling that slows guessing without becoming a weapon. Failed attempts are counted three
 * ways, each with a delay that doubles with every failure past a free allowance, up to a cap:
 *
 * - per (account, address) pair: one attacker guessing one account from one place, slowed hard;
 * - per address: one place guessing many accounts (password spraying);
 * - per account: many places guessing one account, slowed gently (a short cap), because its owner
 *   shares this counter.
 *
 * There is never a lock the right password cannot pass: once the current delay has passed, the next
 * attempt is checked, and a right password clears the account's and the pair's counts. The owner is
 * protected by the per-address split: an attacker's failures slow the attacker's pair and address, not
 * the owner's; the account's own delay is short, and an address the owner signed in from before skips
 * it altogether. The counts live in the application database, so every app instance shares them.
 *
 * Attempts on the pair and the account are counted before the password is checked (and forgotten on
 * success), in one conditional statement, so a burst of parallel requests cannot slip through while the
 * first ones are still being verified.
 */

export type ThrottleKind = "pair" | "account" | "address";

export interface ThrottlePolicy {
  /** Failures allowed without any delay. */
  freeFailures: number;
  /** The first delay; each further failure doubles it. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Failures older than this are forgotten. */
  forgetAfterMs: number;
}

const DAY = 24 * 60 * 60_000;

export const THROTTLE_POLICY: Record<ThrottleKind, ThrottlePolicy> = {
  pair: { freeFailures: 5, baseDelayMs: 1_000, maxDelayMs: 15 * 60_000, forgetAfterMs: DAY },
  address: { freeFailures: 30, baseDelayMs: 1_000, maxDelayMs: 15 * 60_000, forgetAfterMs: DAY },
  account: { freeFailures: 10, baseDelayMs: 1_000, maxDelayMs: 60_000, forgetAfterMs: DAY },
};

/** An address its account's owner signed in from this recently skips the account's delay. */
export const KNOWN_ADDRESS_MS = 30 * DAY;

/** The delay after `failures` failures under a policy: none within the free allowance, then doubling to the cap. */
export function throttleDelayMs(failures: number, policy: ThrottlePolicy): number {
  if (failures <= policy.freeFailures) return 0;
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(30, failures - policy.freeFailures - 1));
}

export type Admission = { ok: true } | { ok: false; retryAfterMs: number };

export interface ThrottleRow {
  key: string;
  kind: ThrottleKind;
  email: string | null;
  address: string | null;
  failures: number;
  lastFailureAt: Date | null;
  blockedUntil: Date | null;
}

const keyOf = {
  pair: (email: string, address: string) => `pair:${email}|${address}`,
  account: (email: string) => `account:${email}`,
  address: (address: string) => `address:${address}`,
};

function normalizedEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class SignInThrottle {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly now: () => Date = () => new Date(),
    private readonly policy: Record<ThrottleKind, ThrottlePolicy> = THROTTLE_POLICY,
  ) {}

  /**
   * Before a password is checked: whether this attempt may proceed. An admitted attempt is counted on
   * its pair and account already; recordSuccess or recordFailure settles it after the check.
   */
  async admit(rawEmail: string, address: string): Promise<Admission> {
    const email = normalizedEmail(rawEmail);
    const now = this.now();
    const keys = { pair: keyOf.pair(email, address), account: keyOf.account(email), address: keyOf.address(address) };
    const rows = await this.prisma.signInThrottle.findMany({ where: { key: { in: Object.values(keys) } } });
    const byKey = new Map(rows.map((r) => [r.key, r]));
    const pair = byKey.get(keys.pair);
    const known = !!pair?.lastSuccessAt && now.getTime() - pair.lastSuccessAt.getTime() < KNOWN_ADDRESS_MS;
    const waits = [byKey.get(keys.address), pair, known ? undefined : byKey.get(keys.account)]
      .map((r) => (r?.blockedUntil ? r.blockedUntil.getTime() - now.getTime() : 0))
      .filter((ms) => ms > 0);
    if (waits.length > 0) return { ok: false, retryAfterMs: Math.max(...waits) };
    if (!(await this.count("pair", keys.pair, email, address, now, true))) return this.blockedNow(keys.pair, now);
    if (!known && !(await this.count("account", keys.account, email, null, now, true))) return this.blockedNow(keys.account, now);
    return { ok: true };
  }

  /** The password was right: the pair and the account start over, and this address is now known. */
  async recordSuccess(rawEmail: string, address: string): Promise<void> {
    const email = normalizedEmail(rawEmail);
    const now = this.now();
    await this.prisma.signInThrottle.upsert({
      where: { key: keyOf.pair(email, address) },
      create: { key: keyOf.pair(email, address), kind: "pair", email, address, failures: 0, lastSuccessAt: now },
      update: { failures: 0, blockedUntil: null, lastFailureAt: null, lastSuccessAt: now },
    });
    await this.prisma.signInThrottle.updateMany({
      where: { key: keyOf.account(email) },
      data: { failures: 0, blockedUntil: null, lastFailureAt: null },
    });
  }

  /** The password was wrong (the pair and the account counted it on admission): the address counts it too. */
  async recordFailure(rawEmail: string, address: string): Promise<void> {
    await this.count("address", keyOf.address(address), null, address, this.now(), false);
  }

  /** Throttles with failures not yet forgotten, most recently active first (the admin's view). */
  async list(): Promise<ThrottleRow[]> {
    const now = this.now().getTime();
    const rows = await this.prisma.signInThrottle.findMany({
      where: { failures: { gt: 0 } },
      orderBy: { lastFailureAt: "desc" },
      take: 500,
    });
    return rows
      .filter((r) => r.lastFailureAt && now - r.lastFailureAt.getTime() < this.policy[r.kind as ThrottleKind].forgetAfterMs)
      .map((r) => ({
        key: r.key,
        kind: r.kind as ThrottleKind,
        email: r.email,
        address: r.address,
        failures: r.failures,
        lastFailureAt: r.lastFailureAt,
        blockedUntil: r.blockedUntil,
      }));
  }

  /** Clears the given throttles (all of them when no keys are given); returns how many were cleared. */
  async clear(keys?: string[]): Promise<number> {
    const where = keys ? { key: { in: keys } } : {};
    const { count } = await this.prisma.signInThrottle.updateMany({
      where: { ...where, failures: { gt: 0 } },
      data: { failures: 0, blockedUntil: null, lastFailureAt: null },
    });
    return count;
  }

  private async blockedNow(key: string, now: Date): Promise<Admission> {
    const row = await this.prisma.signInThrottle.findUnique({ where: { key } });
    return { ok: false, retryAfterMs: Math.max(1_000, (row?.blockedUntil?.getTime() ?? now.getTime()) - now.getTime()) };
  }

  /**
   * Counts one failure for a key and sets its delay, in one statement. With `onlyIfOpen`, nothing is
   * counted while the key is blocked (returns false): the row lock makes this the one place where two
   * parallel attempts are told apart.
   */
  private async count(
    kind: ThrottleKind,
    key: string,
    email: string | null,
    address: string | null,
    now: Date,
    onlyIfOpen: boolean,
  ): Promise<boolean> {
    const p = this.policy[kind];
    const forgetBefore = new Date(now.getTime() - p.forgetAfterMs);
    const rows = await this.prisma.$queryRaw<{ failures: number }[]>`
      INSERT INTO "SignInThrottle" AS t ("key", "kind", "email", "address", "failures", "lastFailureAt", "blockedUntil", "updatedAt")
      VALUES (${key}, ${kind}, ${email}, ${address}, 1, ${now}, NULL, ${now})
      ON CONFLICT ("key") DO UPDATE SET
        "failures" = CASE WHEN t."lastFailureAt" IS NULL OR t."lastFailureAt" < ${forgetBefore} THEN 1 ELSE t."failures" + 1 END,
        "blockedUntil" = CASE
          WHEN (CASE WHEN t."lastFailureAt" IS NULL OR t."lastFailureAt" < ${forgetBefore} THEN 1 ELSE t."failures" + 1 END) > ${p.freeFailures}
          THEN ${now}::timestamp + LEAST(${p.maxDelayMs}::float8, ${p.baseDelayMs}::float8 * power(2, LEAST(30, (CASE WHEN t."lastFailureAt" IS NULL OR t."lastFailureAt" < ${forgetBefore} THEN 1 ELSE t."failures" + 1 END) - ${p.freeFailures} - 1))) * interval '1 millisecond'
          ELSE NULL END,
        "lastFailureAt" = ${now},
        "updatedAt" = ${now}
      WHERE ${!onlyIfOpen} OR t."blockedUntil" IS NULL OR t."blockedUntil" <= ${now}
      RETURNING "failures"`;
    return rows.length > 0;
  }
}

/** A throttle as the admin's screen shows it (dates as ISO strings for the browser). */
export interface SignInThrottleView {
  key: string;
  kind: ThrottleKind;
  email: string | null;
  address: string | null;
  failures: number;
  lastFailureAt: string | null;
  blockedUntil: string | null;
}

export function signInThrottleView(rows: ThrottleRow[]): SignInThrottleView[] {
  return rows.map((r) => ({
    ...r,
    lastFailureAt: r.lastFailureAt?.toISOString() ?? null,
    blockedUntil: r.blockedUntil?.toISOString() ?? null,
  }));
}

/** The error next-auth passes back to the sign-in form: the code, then the seconds to wait. */
export const TOO_MANY_ATTEMPTS = "TooManyAttempts";

export function tooManyAttemptsCode(retryAfterMs: number): string {
  return `${TOO_MANY_ATTEMPTS}:${Math.max(1, Math.ceil(retryAfterMs / 1000))}`;
}
