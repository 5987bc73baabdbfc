import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends, kbStorageDir } from "@/lib/backends/registry";
import { kbAccessWhere } from "@/lib/catalog/access";
import type { CatalogDeps } from "@/lib/deps";
import { deleteKnowledgeBase, getKnowledgeBase, listKnowledgeBases, updateKnowledgeBase } from "@/lib/catalog/knowledge-bases";
import { testConnection } from "@/lib/catalog/register";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import {
  createDynamicSourceObject,
  listSourceObjects,
  previewSourceObject,
  refreshDynamicSourceObject,
  updateSourceObject,
} from "@/lib/catalog/source-objects";
import { refreshKnowledgeBase } from "@/lib/ingest/refresh";
import { decryptSecrets } from "@/lib/crypto/secrets";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { DEMO_KB_NAMES, seedDemoCatalogOnce } from "@/lib/demo/seed-catalog";
import { createDemoSalesDatabase } from "@/lib/demo/sales-database";
import { AppError } from "@/lib/errors";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

const content = (name: string) => ({ name, bytes: readFileSync(path.join("lib/demo/content", name)) });

describe(`knowledge-base registry (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  let admin: { id: string; role: "ADMIN"; groupIds: string[] };
  let user: { id: string; role: "USER"; groupIds: string[] };

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-kbs-")),
      encryptionKey: Buffer.alloc(32, 3),
      datasetsDir: "../shared/datasets",
    };
    const a = await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } });
    const u = await handle.prisma.user.findUniqueOrThrow({ where: { email: "user@mosaic.local" }, include: { memberships: true } });
    admin = { id: a.id, role: "ADMIN", groupIds: [] };
    user = { id: u.id, role: "USER", groupIds: u.memberships.map((m) => m.groupId) };
  });
  afterAll(async () => {
    await closeAllBackends();
    await handle.close();
    await db.cleanup();
  });

  it("seeds the demo catalog once: documents, SQLite and RDF, each described with source objects", async () => {
    const first = await seedDemoCatalogOnce(handle.prisma, deps);
    expect(first).toEqual({ seeded: true, kbs: 3 });
    expect(await seedDemoCatalogOnce(handle.prisma, deps)).toEqual({ seeded: false, kbs: 0 });
    const kbs = await listKnowledgeBases(handle.prisma, admin);
    expect(kbs.map((k) => [k.name, k.kind, k.status]).sort()).toEqual(
      [
        [DEMO_KB_NAMES.documents, "DOCUMENTS", "HEALTHY"],
        [DEMO_KB_NAMES.sparql, "SPARQL", "HEALTHY"],
        [DEMO_KB_NAMES.sql, "SQL", "HEALTHY"],
      ].sort(),
    );
    const sql = kbs.find((k) => k.kind === "SQL")!;
    const detail = await getKnowledgeBase(handle.prisma, admin, sql.id);
    expect(detail.descriptor).toContain("CREATE TABLE");
    expect(detail.descriptor).toMatch(/REFERENCES\s+"?customers"?/i);
    expect(detail.descriptorVersion).toMatch(/^[0-9a-f]{16}$/);
    expect(detail.entityCount).toBeGreaterThan(10);
    const objects = await listSourceObjects(handle.prisma, admin, { kbId: sql.id });
    expect(objects.map((o) => o.key).sort()).toEqual(["customers", "order_items", "orders", "products", "regions"]);
    expect(objects.every((o) => o.contentType === "TABLE" && o.description.length > 10)).toBe(true);

    const docs = await listSourceObjects(handle.prisma, admin, { kbId: kbs.find((k) => k.kind === "DOCUMENTS")!.id });
    expect(docs.filter((o) => o.contentType === "TABLE").length).toBeGreaterThanOrEqual(3); // per-diem, revenue, returns tables
    expect(docs.some((o) => o.contentType === "TEXT")).toBe(true);
    const rdf = await listSourceObjects(handle.prisma, admin, { kbId: kbs.find((k) => k.kind === "SPARQL")!.id });
    expect(rdf.map((o) => o.name)).toEqual(expect.arrayContaining(["Product", "Organisation"]));
  });

  it("previews a table source object as a grid", async () => {
    const products = (await listSourceObjects(handle.prisma, admin, { contentType: "TABLE" })).find((o) => o.key === "products")!;
    const preview = await previewSourceObject(handle.prisma, deps, admin, products.id, 5);
    expect(preview.kind).toBe("table");
    if (preview.kind === "table") {
      expect(preview.columns).toEqual(expect.arrayContaining(["name", "category"]));
      expect(preview.rows).toHaveLength(5);
    }
  });

  it("keeps an analyst's edited description when the KB is re-described", async () => {
    const orders = (await listSourceObjects(handle.prisma, admin, { contentType: "TABLE" })).find((o) => o.key === "orders")!;
    await updateSourceObject(handle.prisma, admin, {
      id: orders.id,
      name: "Orders",
      description: "One row per customer order.",
      tags: ["Sales", "core"],
    });
    await refreshKnowledgeBase(handle.prisma, deps, orders.kbId);
    const [after] = (await listSourceObjects(handle.prisma, admin, { kbId: orders.kbId })).filter((o) => o.id === orders.id);
    expect(after).toMatchObject({ description: "One row per customer order.", tags: ["sales", "core"], descriptionEdited: true });
  });

  it("creates a dynamic source object from a saved query, refreshes it, and refuses an unsafe one", async () => {
    const sql = (await listKnowledgeBases(handle.prisma, admin, { kind: "SQL" }))[0];
    const dyn = await createDynamicSourceObject(handle.prisma, deps, admin, {
      kbId: sql.id,
      name: "Revenue by category",
      query:
        "SELECT p.category, ROUND(SUM(i.quantity * i.unit_price), 2) AS revenue FROM order_items i JOIN products p ON p.product_id = i.product_id GROUP BY p.category ORDER BY revenue DESC",
      tags: ["kpi"],
    });
    expect(dyn).toMatchObject({ mode: "DYNAMIC", contentType: "TABLE" });
    const preview = await previewSourceObject(handle.prisma, deps, admin, dyn.id);
    expect(preview.kind === "table" && preview.rows.length).toBe(5);
    expect(await refreshDynamicSourceObject(handle.prisma, deps, admin, dyn.id)).toMatchObject({ ok: true, rows: 5 });
    await expect(
      createDynamicSourceObject(handle.prisma, deps, admin, { kbId: sql.id, name: "Evil", query: "DELETE FROM orders" }),
    ).rejects.toMatchObject({ code: "VALIDATION", message: expect.stringContaining("refused") });
    expect((await listSourceObjects(handle.prisma, admin, { q: "Evil" })).length).toBe(0);
  });

  it("refuses a malformed upload with a clear error and leaves nothing behind", async () => {
    const before = await handle.prisma.knowledgeBase.count();
    const err = await registerKnowledgeBase(
      handle.prisma,
      deps,
      admin.id,
      { kind: "SQL", name: "Broken", connection: { dialect: "sqlite" } },
      [{ name: "notes.sqlite", bytes: Buffer.from("this is not a database at all, just text pretending to be one".repeat(3)) }],
    ).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.message).toContain("notes.sqlite is not a SQLite database");
    const rdfErr = await registerKnowledgeBase(
      handle.prisma,
      deps,
      admin.id,
      { kind: "SPARQL", name: "Bad RDF", connection: { mode: "embedded" } },
      [{ name: "bad.ttl", bytes: Buffer.from("@prefix ex: <http://x/> .\nex:a ex:b ") }],
    ).catch((e) => e);
    expect(rdfErr).toBeInstanceOf(AppError);
    expect(rdfErr.message).toContain("bad.ttl");
    expect(await handle.prisma.knowledgeBase.count()).toBe(before);
  });

  it("names the uploaded file, not Mosaic's copy of it, when a SQLite upload is cut short or damaged", async () => {
    const before = await handle.prisma.knowledgeBase.count();
    const file = path.join(deps.dataDir, "shop-2025.sqlite");
    createDemoSalesDatabase(file);
    const whole = readFileSync(file);
    const register = (name: string, bytes: Buffer) =>
      registerKnowledgeBase(handle.prisma, deps, admin.id, { kind: "SQL", name, connection: { dialect: "sqlite" } }, [
        { name: "shop-2025.sqlite", bytes },
      ]).catch((e) => e);

    const truncated = await register("Shop cut short", whole.subarray(0, 3000));
    expect(truncated).toBeInstanceOf(AppError);
    expect(truncated.message).toMatch(
      /^shop-2025\.sqlite is cut short: its header says the database is [\d.]+ KB, but the upload has 2\.9 KB\. Upload the whole file again\.$/,
    );
    // Whole, but its first page (the schema) overwritten: SQLite finds it damaged when it reads it.
    const damaged = Buffer.from(whole);
    damaged.fill(0xff, 100, 4096);
    const broken = await register("Shop damaged", damaged);
    expect(broken).toBeInstanceOf(AppError);
    expect(broken.message).toContain("shop-2025.sqlite");
    expect(broken.message).not.toContain("database.sqlite");
    expect(await handle.prisma.knowledgeBase.count()).toBe(before);
  });

  it("refuses an unreachable source with the reason and saves nothing, and test-connection says why", async () => {
    const input = {
      kind: "CYPHER" as const,
      name: "Nowhere graph",
      connection: { uri: "bolt://127.0.0.1:1", user: "neo4j", password: "secret-pass" },
    };
    const health = await testConnection(deps, input);
    expect(health.ok).toBe(false);
    expect(health.message).not.toContain("secret-pass");
    const err = await registerKnowledgeBase(handle.prisma, deps, admin.id, input).catch((e) => e);
    expect(err).toMatchObject({ code: "UNAVAILABLE" });
    expect(await handle.prisma.knowledgeBase.findUnique({ where: { name: "Nowhere graph" } })).toBeNull();
  });

  it("registers uploaded documents, restricts a KB to a group, and scopes every listing by access", async () => {
    const finance = await handle.prisma.group.create({ data: { name: "Finance only" } });
    const result = await registerKnowledgeBase(
      handle.prisma,
      deps,
      admin.id,
      {
        kind: "DOCUMENTS",
        name: "Finance memos",
        description: "Internal finance memos",
        connection: { language: "en" },
        groupIds: [finance.id],
      },
      [content("travel-and-expense-policy.md"), { name: "broken.pdf", bytes: Buffer.from("%PDF-1.4 garbage") }],
    );
    expect(result.warnings.join(" ")).toContain("broken.pdf");
    const visibleToUser = await listKnowledgeBases(handle.prisma, user);
    expect(visibleToUser.map((k) => k.name)).not.toContain("Finance memos");
    await expect(getKnowledgeBase(handle.prisma, user, result.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await listSourceObjects(handle.prisma, user, { kbId: result.id })).length).toBe(0);
    expect(await handle.prisma.knowledgeBase.count({ where: { AND: [{ id: result.id }, kbAccessWhere(user)] } })).toBe(0);
    // Admin opens it to everyone: the user now sees it.
    await updateKnowledgeBase(handle.prisma, {
      id: result.id,
      name: "Finance memos",
      description: "Internal finance memos",
      groupIds: [],
      openToEveryone: true,
    });
    expect((await listKnowledgeBases(handle.prisma, user)).map((k) => k.name)).toContain("Finance memos");
  });

  it("encrypts connection secrets at rest and never returns them", async () => {
    const kb = await handle.prisma.knowledgeBase.create({
      data: {
        name: "pg-secret",
        kind: "SQL",
        config: { dialect: "postgres", host: "h", port: 5432, database: "d", user: "u" },
        secretsCiphertext: null,
      },
    });
    const { encryptSecrets } = await import("@/lib/crypto/secrets");
    await handle.prisma.knowledgeBase.update({
      where: { id: kb.id },
      data: { secretsCiphertext: encryptSecrets({ password: "pw-123" }, deps.encryptionKey) },
    });
    const detail = await getKnowledgeBase(handle.prisma, admin, kb.id);
    expect(JSON.stringify(detail)).not.toContain("pw-123");
    expect(detail.hasSecrets).toBe(true);
    const stored = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: kb.id } });
    expect(stored.secretsCiphertext).not.toContain("pw-123");
    expect(decryptSecrets(stored.secretsCiphertext!, deps.encryptionKey)).toEqual({ password: "pw-123" });
    await handle.prisma.knowledgeBase.delete({ where: { id: kb.id } });
  });

  it("deletes a KB with everything derived from it", async () => {
    const kb = (await listKnowledgeBases(handle.prisma, admin)).find((k) => k.name === "Finance memos")!;
    expect(existsSync(kbStorageDir(deps.dataDir, kb.id))).toBe(true);
    await deleteKnowledgeBase(handle.prisma, deps, kb.id);
    expect(existsSync(kbStorageDir(deps.dataDir, kb.id))).toBe(false);
    expect(await handle.prisma.sourceObject.count({ where: { kbId: kb.id } })).toBe(0);
    expect(await handle.prisma.entityLabel.count({ where: { kbId: kb.id } })).toBe(0);
  });
});
