import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SignInThrottle, THROTTLE_POLICY } from "@/lib/auth/sign-in-throttle";
import { throttledSignIn } from "@/lib/auth/throttled-sign-in";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { DEMO_USERS } from "@/lib/db/seed";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * Sign-in throttling on the real application database (PGlite, or PostgreSQL under test:services):
 * growing delays by account and by address, never a lock the right password cannot pass, an attacker's
 * flood that does not lock the owner out, shared state between two throttle instances (two app
 * servers), and the admin's list and clear.
 */
describe(`sign-in throttling (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let clock = new Date("2026-01-01T10:00:00Z");
  const now = () => clock;
  const later = (ms: number) => {
    clock = new Date(clock.getTime() + ms);
  };
  const user = DEMO_USERS.find((u) => u.role === "USER")!;
  const ATTACKER = "203.0.113.66";
  const OWNER = "198.51.100.7";
  let throttle: SignInThrottle;
  const attempt = (password: string, address: string, t = throttle) => throttledSignIn(handle.prisma, t, user.email, password, address);

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
  });
  afterAll(async () => {
    await handle.close();
    await db.cleanup();
  });
  beforeEach(async () => {
    await handle.prisma.signInThrottle.deleteMany();
    clock = new Date("2026-01-01T10:00:00Z");
    throttle = new SignInThrottle(handle.prisma, now);
  });

  it("delays after the free failures, with delays that grow, and the right password works once the delay has passed", async () => {
    for (let i = 0; i < THROTTLE_POLICY.pair.freeFailures; i++)
      expect(await attempt("wrong", ATTACKER)).toEqual({ ok: false, reason: "credentials" });
    // The sixth failure starts a 1 s delay; during it nothing is checked, not even the right password.
    expect(await attempt("wrong", ATTACKER)).toEqual({ ok: false, reason: "credentials" });
    const blocked = await attempt(user.password, ATTACKER);
    expect(blocked).toMatchObject({ ok: false, reason: "throttled" });
    expect((blocked as { retryAfterMs: number }).retryAfterMs).toBe(1_000);
    later(1_000);
    expect(await attempt("wrong", ATTACKER)).toEqual({ ok: false, reason: "credentials" });
    expect(await attempt("wrong", ATTACKER)).toMatchObject({ reason: "throttled", retryAfterMs: 2_000 });
    later(2_000);
    expect(await attempt(user.password, ATTACKER)).toMatchObject({ ok: true, user: { email: user.email } });
    // Success starts the pair and the account over.
    expect(await attempt("wrong", ATTACKER)).toEqual({ ok: false, reason: "credentials" });
  });

  it("caps the delay: even after a thousand failures the right password works within 15 minutes", async () => {
    await handle.prisma.signInThrottle.create({
      data: {
        key: `pair:${user.email}|${ATTACKER}`,
        kind: "pair",
        email: user.email,
        address: ATTACKER,
        failures: 1_000,
        lastFailureAt: clock,
      },
    });
    expect(await attempt("wrong", ATTACKER)).toEqual({ ok: false, reason: "credentials" });
    const blocked = (await attempt(user.password, ATTACKER)) as { retryAfterMs: number };
    expect(blocked.retryAfterMs).toBe(THROTTLE_POLICY.pair.maxDelayMs);
    later(THROTTLE_POLICY.pair.maxDelayMs);
    expect((await attempt(user.password, ATTACKER)).ok).toBe(true);
  });

  it("does not lock the owner out when an attacker floods the email from elsewhere", async () => {
    // The owner signed in from home before: that address is known.
    expect((await attempt(user.password, OWNER)).ok).toBe(true);
    for (let i = 0; i < 40; i++) {
      await attempt("wrong", ATTACKER);
      later(20_000);
    }
    const attackerNow = await attempt("guess", ATTACKER);
    expect(attackerNow).toMatchObject({ reason: "throttled" });
    // The flood slowed the attacker's pair and the account, not the owner's known address.
    expect((await attempt(user.password, OWNER)).ok).toBe(true);
  });

  it("delays an owner on a new device at most for the account's short cap", async () => {
    for (let i = 0; i < 30; i++) {
      await attempt("wrong", `203.0.113.${i}`);
      later(100);
    }
    const fromNewDevice = (await attempt(user.password, "192.0.2.1")) as { ok: boolean; retryAfterMs?: number };
    if (!fromNewDevice.ok) {
      expect(fromNewDevice.retryAfterMs).toBeLessThanOrEqual(THROTTLE_POLICY.account.maxDelayMs);
      later(fromNewDevice.retryAfterMs!);
    }
    expect((await attempt(user.password, "192.0.2.1")).ok).toBe(true);
  });

  it("slows one address spraying many accounts", async () => {
    const spray = (email: string) => throttledSignIn(handle.prisma, throttle, email, "Winter2026!", ATTACKER);
    for (let i = 0; i < THROTTLE_POLICY.address.freeFailures; i++)
      expect(await spray(`person${i}@example.com`)).toEqual({ ok: false, reason: "credentials" });
    expect(await spray("person-next@example.com")).toEqual({ ok: false, reason: "credentials" });
    expect(await spray("another@example.com")).toMatchObject({ reason: "throttled" });
  });

  it("counts a parallel burst: no more than the free allowance gets its password checked", async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => attempt("wrong", ATTACKER)));
    const checked = results.filter((r) => !r.ok && r.reason === "credentials").length;
    expect(checked).toBeLessThanOrEqual(THROTTLE_POLICY.pair.freeFailures + 1);
    expect(results.filter((r) => !r.ok && r.reason === "throttled").length).toBeGreaterThanOrEqual(30 - checked);
  });

  it("shares its counts between app instances (two throttles on one database)", async () => {
    const other = new SignInThrottle(handle.prisma, now);
    for (let i = 0; i < 6; i++) await attempt("wrong", ATTACKER, i % 2 === 0 ? throttle : other);
    expect(await attempt(user.password, ATTACKER, other)).toMatchObject({ reason: "throttled" });
  });

  it("lists current throttles for the admin and clears them", async () => {
    for (let i = 0; i < 6; i++) await attempt("wrong", ATTACKER);
    const listed = await throttle.list();
    expect(listed.map((r) => [r.kind, r.email, r.address, r.failures]).sort()).toEqual(
      [
        ["account", user.email, null, 6],
        ["address", null, ATTACKER, 6],
        ["pair", user.email, ATTACKER, 6],
      ].sort(),
    );
    expect(listed.find((r) => r.kind === "pair")!.blockedUntil).toEqual(new Date(clock.getTime() + 1_000));
    expect(await throttle.clear([listed.find((r) => r.kind === "pair")!.key])).toBe(1);
    expect(await throttle.clear()).toBe(2);
    expect(await throttle.list()).toEqual([]);
    expect((await attempt(user.password, ATTACKER)).ok).toBe(true);
    // Failures a day old are forgotten.
    await attempt("wrong", ATTACKER);
    later(THROTTLE_POLICY.pair.forgetAfterMs + 1);
    expect(await throttle.list()).toEqual([]);
  });
});
