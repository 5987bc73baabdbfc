import { afterEach, describe, expect, it, vi } from "vitest";
import { tierOf } from "../support/skipped-tiers-reporter";

afterEach(() => vi.unstubAllEnvs());

describe("skipped-tier attribution at the end of npm test", () => {
  it("names the service a skipped file waits for, by the variable it reads, only when this run lacks it", () => {
    vi.stubEnv("TEST_NEO4J_URI", "");
    const source = 'const uri = process.env.TEST_NEO4J_URI;\ndescribe.skipIf(!uri)("Cypher backend", () => {});';
    expect(tierOf(source)?.needs).toBe("Neo4j");
    vi.stubEnv("TEST_NEO4J_URI", "bolt://127.0.0.1:7687");
    expect(tierOf(source)).toBeNull();
  });

  it("leaves a file that reads no tier's variable to the 'other' count", () => {
    expect(tierOf('it.skip("not written yet", () => {});')).toBeNull();
  });
});
