import { describe, expect, it } from "vitest";
import { clientAddress, THROTTLE_POLICY, throttleDelayMs, tooManyAttemptsCode } from "@/lib/auth/sign-in-throttle";

describe("sign-in throttle delays", () => {
  it("allows the free failures, then doubles the delay up to the cap, never a lock", () => {
    const pair = THROTTLE_POLICY.pair;
    expect([1, 5].map((n) => throttleDelayMs(n, pair))).toEqual([0, 0]);
    expect([6, 7, 8, 9].map((n) => throttleDelayMs(n, pair))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(throttleDelayMs(1_000, pair)).toBe(pair.maxDelayMs);
    // The account's own delay stays short: its owner shares it.
    expect(throttleDelayMs(1_000, THROTTLE_POLICY.account)).toBe(60_000);
  });

  it("reads the closest hop's address and ignores what is not an address", () => {
    expect(clientAddress({ "x-forwarded-for": "203.0.113.9" })).toBe("203.0.113.9");
    expect(clientAddress({ "x-forwarded-for": "198.51.100.1, 203.0.113.9" })).toBe("203.0.113.9");
    expect(clientAddress(new Headers({ "x-forwarded-for": "::ffff:127.0.0.1" }))).toBe("127.0.0.1");
    expect(clientAddress({ "x-forwarded-for": "<script>" })).toBe("unknown");
    expect(clientAddress(undefined)).toBe("unknown");
  });

  it("tells the form how many seconds to wait", () => {
    expect(tooManyAttemptsCode(1_200)).toBe("TooManyAttempts:2");
    expect(tooManyAttemptsCode(0)).toBe("TooManyAttempts:1");
  });
});
