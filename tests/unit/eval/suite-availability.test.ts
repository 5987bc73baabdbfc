import { describe, expect, it } from "vitest";
import { defaultSuiteKey, RECOMMENDED_SUITE, type SuiteFacts, suiteAvailability } from "@/lib/eval/suite-availability";

const facts = (over: Partial<SuiteFacts> = {}): SuiteFacts => ({
  key: "spider",
  label: "Spider (text-to-SQL)",
  datasetsDir: "/data/sets",
  datasetsFound: true,
  readError: null,
  goldKbNames: ["Spider: concert_singer", "Spider: pets_1"],
  visibleKbNames: new Set(["Aurora sales database"]),
  registeredKbNames: new Set(["Aurora sales database"]),
  neo4jConfigured: false,
  viewerIsAdmin: true,
  ...over,
});

describe("whether a built-in suite can run, and what is missing", () => {
  it("runs when one of its knowledge bases is shared with the viewer", () => {
    expect(
      suiteAvailability(facts({ visibleKbNames: new Set(["Spider: pets_1"]), registeredKbNames: new Set(["Spider: pets_1"]) })),
    ).toBeNull();
  });

  it("names the datasets folder it looked in when there is none (not for the demo suite, which needs no datasets)", () => {
    const missing = suiteAvailability(facts({ datasetsFound: false }))!;
    expect(missing).toMatchObject({ short: "datasets not found", loadable: false });
    expect(missing.reason).toContain("/data/sets");
    expect(missing.fix).toMatch(/DATASETS_DIR/);
    expect(suiteAvailability(facts({ key: "demo", datasetsFound: false, goldKbNames: ["Aurora sales database"] }))).toBeNull();
  });

  it("passes on why the questions could not be read", () => {
    expect(
      suiteAvailability(facts({ readError: "Spider dev questions not found at /data/sets/spider/dev-questions.json." })),
    ).toMatchObject({
      short: "questions not found",
      reason: "Spider dev questions not found at /data/sets/spider/dev-questions.json.",
      loadable: false,
    });
  });

  it("offers loading the benchmark catalog when the datasets are there but the knowledge bases are not; to others, asking an admin", () => {
    const admin = suiteAvailability(facts())!;
    expect(admin).toMatchObject({ short: "not loaded yet", loadable: true });
    expect(admin.reason).toMatch(/Spider \(text-to-SQL\) knowledge bases are not loaded yet; the datasets are there/);
    expect(admin.fix).toMatch(/^Load the benchmark catalog/);
    expect(suiteAvailability(facts({ viewerIsAdmin: false }))!.fix).toBe("Ask an admin to load the benchmark catalog on this page.");
  });

  it("says when the knowledge bases are loaded but not shared with the viewer", () => {
    const notShared = suiteAvailability(facts({ viewerIsAdmin: false, registeredKbNames: new Set(["Spider: pets_1"]) }))!;
    expect(notShared).toMatchObject({ short: "not shared with you", loadable: false, fix: "Ask an admin to share them with your group." });
  });

  it("needs a Neo4j server for text2cypher; with one configured, loading the catalog is the fix", () => {
    const t2c = facts({ key: "text2cypher", label: "Text2Cypher", goldKbNames: ["Neo4j movies and northwind"] });
    expect(suiteAvailability(t2c)).toMatchObject({ short: "no Neo4j server", loadable: false });
    expect(suiteAvailability(t2c)!.reason).toMatch(/NEO4J_URI is not set/);
    expect(suiteAvailability({ ...t2c, neo4jConfigured: true })).toMatchObject({ short: "not loaded yet", loadable: true });
  });

  it("tells how to get the demo knowledge bases back, without offering the benchmark load", () => {
    expect(
      suiteAvailability(
        facts({
          key: "demo",
          label: "Demo workspace",
          goldKbNames: ["Aurora policies and reports"],
          visibleKbNames: new Set(),
          registeredKbNames: new Set(),
        }),
      ),
    ).toMatchObject({
      short: "demo workspace missing",
      loadable: false,
    });
  });
});

describe("the suite the run form starts with", () => {
  const option = (key: string, unavailable: unknown = null) => ({ key, unavailable });

  it("is the recommended demo suite when it can run, whatever the order", () => {
    expect(RECOMMENDED_SUITE).toBe("demo");
    expect(defaultSuiteKey([option("spider", { short: "not loaded yet" }), option("mixed"), option("demo")])).toBe("demo");
  });

  it("is the first suite that can run otherwise, and the first of all when none can", () => {
    expect(defaultSuiteKey([option("spider", { short: "x" }), option("mixed"), option("demo", { short: "x" })])).toBe("mixed");
    expect(defaultSuiteKey([option("spider", { short: "x" }), option("demo", { short: "x" })])).toBe("spider");
    expect(defaultSuiteKey([])).toBe("");
  });
});
