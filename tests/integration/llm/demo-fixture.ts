import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CatalogDeps } from "@/lib/deps";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { DEMO_KB_NAMES, seedDemoCatalogOnce } from "@/lib/demo/seed-catalog";
import { type FakeReply, type FakeRequest, dataBlocks } from "../../support/fake-openai/server";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/** A fresh database with the demo catalog, for the LLM integration tests. */
export interface DemoWorkspace {
  db: TestDatabase;
  handle: DatabaseHandle;
  deps: CatalogDeps;
  user: { id: string; role: "USER"; groupIds: string[] };
  admin: { id: string; role: "ADMIN"; groupIds: string[] };
  kbId(name: string): Promise<string>;
}

export async function openDemoWorkspace(): Promise<DemoWorkspace> {
  const db = await createTestDatabase();
  const handle = (await openAndBootstrap(db.env)).handle;
  const deps: CatalogDeps = {
    dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-llm-")),
    encryptionKey: Buffer.alloc(32, 9),
    datasetsDir: "../shared/datasets",
  };
  await seedDemoCatalogOnce(handle.prisma, deps);
  const u = await handle.prisma.user.findUniqueOrThrow({ where: { email: "user@mosaic.local" }, include: { memberships: true } });
  const a = await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" }, include: { memberships: true } });
  return {
    db,
    handle,
    deps,
    user: { id: u.id, role: "USER", groupIds: u.memberships.map((m) => m.groupId) },
    admin: { id: a.id, role: "ADMIN", groupIds: a.memberships.map((m) => m.groupId) },
    kbId: async (name) => (await handle.prisma.knowledgeBase.findFirstOrThrow({ where: { name }, select: { id: true } })).id,
  };
}

export const SALES = DEMO_KB_NAMES.sql;
export const DOCS = DEMO_KB_NAMES.documents;
export const GRAPH = DEMO_KB_NAMES.sparql;

// ---------------------------------------------------------------------------------------------
// Reading Mosaic's prompts, as a scripted model would

type CatalogItem = { id: string; name: string };
type EvidenceItem = { id: string; text: string; source: string };

export function blocks(req: FakeRequest): Record<string, unknown> {
  return dataBlocks(req.user);
}

/** The short id the select prompt gives a KB. */
export function catalogId(req: FakeRequest, kbName: string): string {
  const catalog = blocks(req).catalog as CatalogItem[];
  const hit = catalog.find((c) => c.name === kbName);
  if (!hit) throw new Error(`${kbName} is not in the select prompt's catalog (${catalog.map((c) => c.name).join(", ")})`);
  return hit.id;
}

export function resultsId(req: FakeRequest, kbName: string): string {
  const results = blocks(req).results as CatalogItem[];
  const hit = results.find((c) => c.name === kbName);
  if (!hit) throw new Error(`${kbName} has no results in the select-evidence prompt`);
  return hit.id;
}

/** Ids of the evidence pieces in the answer prompt whose text matches. */
export function evidenceIds(req: FakeRequest, pattern: RegExp): string[] {
  const evidence = blocks(req).evidence as EvidenceItem[];
  return evidence.filter((e) => pattern.test(e.text)).map((e) => e.id);
}

export const USAGE = { prompt_tokens: 1000, completion_tokens: 100 };

/** A scripted model that answers "How many orders were returned?" the way a good model would. */
export function returnedOrdersScript(): Record<string, (req: FakeRequest) => FakeReply> {
  return {
    understand: () => ({
      json: {
        completed: "How many orders were returned?",
        wh: "how many",
        answerTypes: ["count"],
        entities: ["returned"],
        relation: "number of orders",
        time: [],
        locations: [],
        aggregate: "count",
        superlative: null,
      },
      usage: USAGE,
    }),
    select: (req) => ({
      json: {
        candidates: [
          { kb: catalogId(req, SALES), sourceObjects: ["orders"], reason: "The orders table has a status column with returned orders." },
          { kb: catalogId(req, DOCS), sourceObjects: [], reason: "The returns policy may state figures." },
        ],
      },
      usage: USAGE,
    }),
    "formulate.sql": () => ({
      json: {
        query: "SELECT COUNT(*) AS returned_orders FROM orders WHERE status = 'returned'",
        explanation: "Counts the orders whose status is returned.",
      },
      usage: USAGE,
    }),
    "formulate.search": () => ({
      json: { passage: "In 2025 customers returned a number of orders under the returns policy." },
      usage: USAGE,
    }),
    "select-evidence": (req) => ({
      json: { kb: resultsId(req, SALES), reason: "The SQL count answers the question directly." },
      usage: USAGE,
    }),
    answer: (req) => {
      const ids = evidenceIds(req, /returned orders: 7\b|returned_orders: 7\b/);
      return { json: { answer: "7", citations: ids.slice(0, 1), confidence: 0.9, answerType: "count", refrainReason: null }, usage: USAGE };
    },
    "critique.validator": () => ({ json: { valid: true, reason: "The count of returned orders is cited." }, usage: USAGE }),
  };
}
