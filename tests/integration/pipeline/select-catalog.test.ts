import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import type { CatalogDeps } from "@/lib/deps";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { DEMO_KB_NAMES, seedDemoCatalogOnce } from "@/lib/demo/seed-catalog";
import { loadCatalogSnapshot } from "@/lib/catalog/snapshot";
import { catalogIndexFor, selectSources } from "@/lib/pipeline/stages/select";
import { terms } from "@/lib/pipeline/text";
import type { Intent } from "@/lib/pipeline/types";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

function bareIntent(question: string): Intent {
  return {
    question,
    completed: question,
    language: "en",
    wh: null,
    answerTypes: [],
    entities: [],
    relation: null,
    time: [],
    locations: [],
    aggregate: null,
    superlative: null,
    keywords: terms(question),
  };
}

describe(`catalog snapshot and select on the demo catalog (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  let ids: Record<keyof typeof DEMO_KB_NAMES, string>;

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-kbs-")),
      encryptionKey: Buffer.alloc(32, 5),
      datasetsDir: "../shared/datasets",
    };
    await seedDemoCatalogOnce(handle.prisma, deps);
    const kbs = await handle.prisma.knowledgeBase.findMany({ select: { id: true, name: true } });
    const idOf = (name: string) => kbs.find((k) => k.name === name)!.id;
    ids = { documents: idOf(DEMO_KB_NAMES.documents), sql: idOf(DEMO_KB_NAMES.sql), sparql: idOf(DEMO_KB_NAMES.sparql) };
  });
  afterAll(async () => {
    await closeAllBackends();
    await handle.close();
    await db.cleanup();
  });

  it("loads the KBs asked for with compact descriptors and source objects, in the order given", async () => {
    const snapshot = await loadCatalogSnapshot(handle.prisma, [ids.sql, ids.documents, "no-such-kb"]);
    expect(snapshot.map((e) => e.kbName)).toEqual([DEMO_KB_NAMES.sql, DEMO_KB_NAMES.documents]);
    const sql = snapshot[0];
    expect(sql.kind).toBe("SQL");
    expect(sql.descriptor).not.toContain("CREATE TABLE");
    expect(sql.descriptor).toMatch(/orders/);
    expect(sql.sourceObjects.map((o) => o.key)).toEqual(expect.arrayContaining(["orders", "customers", "products"]));
    expect(sql.version).toMatch(/^[0-9a-f]{16}$/);
    expect(await loadCatalogSnapshot(handle.prisma, [])).toEqual([]);
  });

  it("returns the same snapshot (and so the same indexes) until a KB or source object changes", async () => {
    const all = [ids.documents, ids.sql, ids.sparql];
    const first = await loadCatalogSnapshot(handle.prisma, all);
    const second = await loadCatalogSnapshot(handle.prisma, all);
    expect(second).toBe(first);
    expect(catalogIndexFor(second)).toBe(catalogIndexFor(first));

    const object = await handle.prisma.sourceObject.findFirstOrThrow({ where: { kbId: ids.sql, key: "customers" } });
    await handle.prisma.sourceObject.update({
      where: { id: object.id },
      data: { description: "Loyalty club members and wholesale accounts", descriptionEdited: true },
    });
    const third = await loadCatalogSnapshot(handle.prisma, all);
    expect(third).not.toBe(first);
    expect(third.find((e) => e.kbId === ids.sql)!.sourceObjects.find((o) => o.key === "customers")!.description).toBe(
      "Loyalty club members and wholesale accounts",
    );
    // Unchanged KBs keep their entries.
    expect(third.find((e) => e.kbId === ids.documents)).toBe(first.find((e) => e.kbId === ids.documents));

    // A status-only update re-reads the row but changes nothing selection reads: same snapshot.
    await handle.prisma.knowledgeBase.update({ where: { id: ids.sparql }, data: { lastCheckAt: new Date() } });
    expect(await loadCatalogSnapshot(handle.prisma, all)).toBe(third);
  });

  it("selects the demo source each kind of question needs", async () => {
    const catalog = await loadCatalogSnapshot(handle.prisma, [ids.documents, ids.sql, ids.sparql]);
    const top = (q: string) => selectSources({ intent: bareIntent(q), catalog, guides: [], k: 3 })[0];
    expect(top("What is the return window for tents under the returns policy?").kbId).toBe(ids.documents);
    expect(top("How many orders did each customer place in 2024?").kbId).toBe(ids.sql);
    expect(top("Which manufacturer makes the products and what material are they made of?").kbId).toBe(ids.sparql);
    const orders = top("How many orders did each customer place in 2024?");
    expect(orders.sourceObjects).toContain("orders");
    expect(orders.reasons.map((r) => r.type)).toEqual(expect.arrayContaining(["terms", "description"]));
  });
});
