import { describe, expect, it } from "vitest";
import { SignInThrottle } from "@/lib/auth/sign-in-throttle";

describe("SignInThrottle", () => {
  it("blocks an email after the maximum failures within the window, case-insensitively", () => {
    let t = 0;
    const throttle = new SignInThrottle(3, 1000, () => t);
    for (let i = 0; i < 3; i++) {
      expect(throttle.isBlocked("A@x.io")).toBe(false);
      throttle.recordFailure("a@x.io");
    }
    expect(throttle.isBlocked("a@X.io")).toBe(true);
    expect(throttle.isBlocked("other@x.io")).toBe(false);
    t = 1001;
    expect(throttle.isBlocked("a@x.io")).toBe(false);
  });

  it("forgets failures after a successful sign-in", () => {
    const throttle = new SignInThrottle(2, 1000, () => 0);
    throttle.recordFailure("b@x.io");
    throttle.recordSuccess("b@x.io");
    throttle.recordFailure("b@x.io");
    expect(throttle.isBlocked("b@x.io")).toBe(false);
  });
});
