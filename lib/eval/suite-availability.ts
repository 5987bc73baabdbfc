import type { BuiltinSuite } from "./types";

/** The suite the Evaluation page starts with and its empty state recommends: small, and runs on the demo workspace. */
export const RECOMMENDED_SUITE: BuiltinSuite = "demo";

/** Why a built-in suite cannot run for a viewer now, and what fixes it. */
export interface SuiteUnavailable {
  /** A few words for the suite picker, e.g. "not loaded yet". */
  short: string;
  /** What is missing, in plain words. */
  reason: string;
  /** What fixes it, for this viewer; null when the reason already says it. */
  fix: string | null;
  /** Loading the benchmark catalog here would make the suite runnable (the page offers it to admins). */
  loadable: boolean;
}

export interface SuiteFacts {
  key: BuiltinSuite;
  label: string;
  datasetsDir: string;
  datasetsFound: boolean;
  /** Why the suite's questions could not be read from the datasets, or null. */
  readError: string | null;
  /** The knowledge bases the suite's questions are asked of. */
  goldKbNames: string[];
  /** Knowledge bases the viewer may use, by name. */
  visibleKbNames: Set<string>;
  /** Every registered knowledge base, by name, whoever may use it. */
  registeredKbNames: Set<string>;
  neo4jConfigured: boolean;
  viewerIsAdmin: boolean;
}

/** Whether a built-in suite can run for the viewer; when not, what is missing and the fix. */
export function suiteAvailability(f: SuiteFacts): SuiteUnavailable | null {
  if (f.key !== "demo" && !f.datasetsFound) {
    return {
      short: "datasets not found",
      reason: `The benchmark datasets folder was not found at ${f.datasetsDir}.`,
      fix: "Set DATASETS_DIR to the folder that holds the benchmark datasets (Spider, SciFact, TAT-QA, Text2Cypher) and restart Mosaic.",
      loadable: false,
    };
  }
  if (f.readError) {
    return { short: "questions not found", reason: f.readError, fix: null, loadable: false };
  }
  if (f.goldKbNames.some((n) => f.visibleKbNames.has(n))) return null;
  if (f.goldKbNames.some((n) => f.registeredKbNames.has(n))) {
    return {
      short: "not shared with you",
      reason: `The ${f.label} knowledge bases are loaded, but none is shared with you.`,
      fix: f.viewerIsAdmin ? "Share them with your group under Knowledge bases." : "Ask an admin to share them with your group.",
      loadable: false,
    };
  }
  if (f.key === "demo") {
    return {
      short: "demo workspace missing",
      reason: "The demo knowledge bases (the Aurora Outfitters documents, sales database and graph) are not in this workspace.",
      fix: "They are added on the first start of an empty workspace; npm run eval -- --suite demo adds them too.",
      loadable: false,
    };
  }
  if (f.key === "text2cypher" && !f.neo4jConfigured) {
    return {
      short: "no Neo4j server",
      reason: "Its graphs (movies and northwind) live in Neo4j, and no Neo4j server is configured (NEO4J_URI is not set).",
      fix: "Set NEO4J_URI (with NEO4J_USER and NEO4J_PASSWORD) to a Neo4j 5 server and restart Mosaic, then load the benchmark catalog here. Or run npm run eval -- --suite text2cypher --neo4j-harness from a terminal, which starts a throw-away Neo4j for the run.",
      loadable: false,
    };
  }
  return {
    short: "not loaded yet",
    reason: `The ${f.label} knowledge bases are not loaded yet; the datasets are there (${f.datasetsDir}).`,
    fix: f.viewerIsAdmin
      ? "Load the benchmark catalog: it registers SciFact, TAT-QA, every Spider database and RDF versions of the Spider dev databases" +
        `${f.neo4jConfigured ? ", and the Neo4j graphs" : ""}. It runs in the background and takes a while; what is already loaded is kept.`
      : "Ask an admin to load the benchmark catalog on this page.",
    loadable: true,
  };
}

/** The suite a run form starts with: the recommended one when it can run, else the first that can. */
export function defaultSuiteKey(options: { key: string; unavailable: unknown }[]): string {
  const runnable = options.filter((o) => !o.unavailable);
  return (runnable.find((o) => o.key === RECOMMENDED_SUITE) ?? runnable[0] ?? options[0])?.key ?? "";
}
