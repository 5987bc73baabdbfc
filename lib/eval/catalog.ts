import type { KbRecord } from "../backends/registry";
import type { KbKind } from "../backends/types";
import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import { BENCHMARK_NAMES } from "../ingest/benchmarks/load";
import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import type { EvalQuestion, SuiteDefinition } from "./types";

export interface EvalKb extends KbRecord {
  origin: string;
}

export interface SuiteCatalog {
  /** The KBs the pipeline may choose from (the suite's scope within the user's access); null = all of the user's. */
  kbIds: string[] | null;
  /** Every KB the user may use, by name and id: gold queries and re-executed queries are read through them. */
  byName: Map<string, EvalKb>;
  byId: Map<string, EvalKb>;
  /** Questions that can run (at least one gold source is in scope, or none is named). */
  questions: EvalQuestion[];
  /** Questions left out because none of their gold sources is registered or shared with the user. */
  skipped: { question: EvalQuestion; reason: string }[];
}

/** What to do when a suite's knowledge bases are missing, per suite. */
export function catalogHint(suiteKey: string): string {
  if (suiteKey === "text2cypher") {
    return `The text2cypher suite needs the Neo4j KB "${BENCHMARK_NAMES.neo4j}". Set NEO4J_URI (and NEO4J_USER, NEO4J_PASSWORD) to a Neo4j 5 server and run npm run eval -- --suite text2cypher: it loads the movies and northwind graphs into an empty database and registers them. Or add --neo4j-harness to start a throw-away Neo4j for the run (needs Java 17 and Maven; the harness npm run test:services uses).`;
  }
  if (suiteKey === "demo")
    return "The demo suite needs the demo knowledge bases (Aurora ...): start with SEED_DEMO=true on a fresh DATA_DIR, or run npm run eval -- --suite demo, which seeds them once.";
  if (suiteKey.startsWith("custom:")) return "Register the knowledge bases this suite's questions name, or share them with your group.";
  return "Load the benchmark catalog once: npm run catalog:load-benchmarks (npm run eval does it by itself when KBs are missing).";
}

/**
 * The part of the catalog a suite runs against, as the user sees it: the suite's scope (Spider KBs for
 * spider, one collection for SciFact, everything for mixed) within the KBs the user may use.
 */
export async function resolveSuiteCatalog(prisma: PrismaClient, user: AccessSubject, suite: SuiteDefinition): Promise<SuiteCatalog> {
  const rows = await prisma.knowledgeBase.findMany({
    where: kbAccessWhere(user),
    select: {
      id: true,
      name: true,
      kind: true,
      origin: true,
      config: true,
      secretsCiphertext: true,
      updatedAt: true,
      riskAcceptedAt: true,
    },
  });
  const kbs: EvalKb[] = rows.map((r) => ({ ...r, kind: r.kind as KbKind }));
  const byName = new Map(kbs.map((k) => [k.name, k]));
  const byId = new Map(kbs.map((k) => [k.id, k]));
  const scoped = suite.scope ? kbs.filter((k) => suite.scope!(k)) : kbs;
  const inScope = new Set(scoped.map((k) => k.name));
  const questions: EvalQuestion[] = [];
  const skipped: SuiteCatalog["skipped"] = [];
  for (const q of suite.questions) {
    if (!q.goldKbNames.length || q.goldKbNames.some((n) => inScope.has(n))) questions.push(q);
    else skipped.push({ question: q, reason: `${q.goldKbNames.join(" / ")} is not registered or not shared with you` });
  }
  if (!scoped.length || !questions.length) {
    throw new AppError("UNAVAILABLE", `No knowledge base of the ${suite.label} suite is available to you. ${catalogHint(suite.key)}`);
  }
  return { kbIds: suite.scope ? scoped.map((k) => k.id) : null, byName, byId, questions, skipped };
}
