import { describe, expect, it } from "vitest";
import { THROTTLE_POLICY, throttleDelayMs, tooManyAttemptsCode } from "@/lib/auth/sign-in-throttle";

describe("sign-in throttle delays", () => {
  it("allows the free failures, then doubles the delay up to the cap, never a lock", () => {
    const pair = THROTTLE_POLICY.pair;
    expect([1, 5].map((n) => throttleDelayMs(n, pair))).toEqual([0, 0]);
    expect([6, 7, 8, 9].map((n) => throttleDelayMs(n, pair))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(throttleDelayMs(1_000, pair)).toBe(pair.maxDelayMs);
    // The account's own delay stays short: its owner shares it.
    expect(throttleDelayMs(1_000, THROTTLE_POLICY.account)).toBe(60_000);
  });

  it("tells the form how many seconds to wait", () => {
    expect(tooManyAttemptsCode(1_200)).toBe("TooManyAttempts:2");
    expect(tooManyAttemptsCode(0)).toBe("TooManyAttempts:1");
  });
});
