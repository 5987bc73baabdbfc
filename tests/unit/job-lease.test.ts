import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/lib/env";
import { jobLease } from "@/lib/server/job-processor";

describe("the job lease (JOB_LEASE_MS)", () => {
  it("is a minute unless set, and heartbeats come well within it", () => {
    expect(parseEnv({}).JOB_LEASE_MS).toBe(60_000);
    for (const lease of [3_000, 4_000, 60_000, 600_000]) {
      const t = jobLease(lease);
      expect(t.staleMs).toBe(lease);
      // Several heartbeats may be missed (a busy event loop, a slow database) before another instance takes over.
      expect(t.heartbeatMs! * 5).toBeLessThanOrEqual(lease);
      expect(t.pollMs).toBeLessThanOrEqual(2_000);
    }
  });

  it("refuses a lease so short that a busy instance would lose its jobs", () => {
    expect(() => parseEnv({ JOB_LEASE_MS: "500" })).toThrow(EnvError);
    expect(() => parseEnv({ JOB_LEASE_MS: "500" })).toThrow(/JOB_LEASE_MS/);
  });
});
