import { cpSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import { type AccessSubject, kbAccessWhere } from "@/lib/catalog/access";
import { getKnowledgeBase, listKnowledgeBases, updateKnowledgeBase } from "@/lib/catalog/knowledge-bases";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import { type DatabaseHandle, openDatabase } from "@/lib/db/connect";
import { applyPendingMigrations } from "@/lib/db/migrations";
import { MIGRATIONS_DIR } from "@/lib/db/schema-engine";
import { demoAccountsWithPublishedPasswords } from "@/lib/demo/demo-accounts";
import type { CatalogDeps } from "@/lib/deps";
import { hashPassword } from "@/lib/crypto/password";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { listAskableKbs } from "@/lib/runs/askable-kbs";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

const memo = { name: "memo.md", bytes: readFileSync(path.join("lib/demo/content", "travel-and-expense-policy.md")) };

async function subject(handle: DatabaseHandle, email: string): Promise<AccessSubject> {
  const u = await handle.prisma.user.findUniqueOrThrow({ where: { email }, include: { memberships: true } });
  return { id: u.id, role: u.role, groupIds: u.memberships.map((m) => m.groupId) };
}

describe(`private by default (issue 29, ${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  let admin: AccessSubject;
  let analyst: AccessSubject;
  let user: AccessSubject;

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-kbs-")),
      encryptionKey: Buffer.alloc(32, 5),
      datasetsDir: "../shared/datasets",
    };
    admin = await subject(handle, "admin@mosaic.local");
    analyst = await subject(handle, "analyst@mosaic.local");
    user = await subject(handle, "user@mosaic.local");
  });
  afterAll(async () => {
    await closeAllBackends();
    await handle?.close();
    await db?.cleanup();
  });

  const sees = async (who: AccessSubject, id: string) => ({
    list: (await listKnowledgeBases(handle.prisma, who)).some((k) => k.id === id),
    detail: await getKnowledgeBase(handle.prisma, who, id).then(
      () => true,
      () => false,
    ),
    ask: (await listAskableKbs(handle.prisma, who)).some((k) => k.id === id),
    where: (await handle.prisma.knowledgeBase.count({ where: { AND: [{ id }, kbAccessWhere(who)] } })) === 1,
  });
  const visible = { list: true, detail: true, ask: true, where: true };
  const hidden = { list: false, detail: false, ask: false, where: false };

  it("a knowledge base registered with nothing chosen is visible to admins only, on every path", async () => {
    const { id } = await registerKnowledgeBase(
      handle.prisma,
      deps,
      admin.id,
      { kind: "DOCUMENTS", name: "HR salaries", connection: { language: "en" } },
      [memo],
    );
    expect((await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id } })).openToEveryone).toBe(false);
    expect(await sees(admin, id)).toEqual(visible);
    expect(await sees(analyst, id)).toEqual(hidden);
    expect(await sees(user, id)).toEqual(hidden);

    // Granting a group opens it to that group's members only.
    const analysts = await handle.prisma.group.findUniqueOrThrow({ where: { name: "Analysts" } });
    await updateKnowledgeBase(handle.prisma, { id, name: "HR salaries", groupIds: [analysts.id] });
    expect(await sees(analyst, id)).toEqual(visible);
    expect(await sees(user, id)).toEqual(hidden);

    // Choosing "everyone" explicitly opens it to every signed-in user.
    await updateKnowledgeBase(handle.prisma, { id, name: "HR salaries", groupIds: [], openToEveryone: true });
    expect(await sees(user, id)).toEqual(visible);

    // And taking both away makes it private again (not "everyone", as an empty group list once meant).
    await updateKnowledgeBase(handle.prisma, { id, name: "HR salaries", groupIds: [], openToEveryone: false });
    expect(await sees(user, id)).toEqual(hidden);
    expect(await sees(analyst, id)).toEqual(hidden);
    expect(await sees(admin, id)).toEqual(visible);
  });

  it("says while demo accounts take their published passwords, and stops once they are changed or deactivated", async () => {
    expect(await demoAccountsWithPublishedPasswords(handle.prisma)).toEqual([
      "admin@mosaic.local",
      "analyst@mosaic.local",
      "user@mosaic.local",
    ]);
    await handle.prisma.user.update({
      where: { email: "user@mosaic.local" },
      data: { passwordHash: await hashPassword("a-new-secret-pass") },
    });
    await handle.prisma.user.update({ where: { email: "analyst@mosaic.local" }, data: { active: false } });
    expect(await demoAccountsWithPublishedPasswords(handle.prisma)).toEqual(["admin@mosaic.local"]);
  });
});

describe(`the private-by-default migration keeps existing access (${TARGET_ENGINE})`, () => {
  it("opens to everyone exactly the knowledge bases that had no group, and leaves restricted ones restricted", async () => {
    const db = await createTestDatabase({ seed: false });
    const before = mkdtempSync(path.join(tmpdir(), "mosaic-migrations-"));
    // Every migration before this issue's, as a database upgraded from the previous release has them.
    for (const name of readdirSync(MIGRATIONS_DIR)) {
      if (name < "20261128070000_kb_private_by_default")
        cpSync(path.join(MIGRATIONS_DIR, name), path.join(before, name), { recursive: true });
    }
    const handle = await openDatabase(db.env);
    try {
      await applyPendingMigrations(handle.adapterFactory, before);
      await handle.prisma.$executeRawUnsafe(`INSERT INTO "Group" ("id", "name") VALUES ('g1', 'Finance')`);
      await handle.prisma.$executeRawUnsafe(
        `INSERT INTO "KnowledgeBase" ("id", "name", "kind", "updatedAt") VALUES ('open', 'Policies', 'DOCUMENTS', now()), ('restricted', 'Ledger', 'SQL', now())`,
      );
      await handle.prisma.$executeRawUnsafe(`INSERT INTO "KbGroupAccess" ("kbId", "groupId") VALUES ('restricted', 'g1')`);
      const applied = await applyPendingMigrations(handle.adapterFactory);
      expect(applied).toContain("20261128070000_kb_private_by_default");
      const rows = await handle.prisma.knowledgeBase.findMany({ select: { id: true, openToEveryone: true }, orderBy: { id: "asc" } });
      expect(rows).toEqual([
        { id: "open", openToEveryone: true },
        { id: "restricted", openToEveryone: false },
      ]);
      const stranger: AccessSubject = { id: "x", role: "USER", groupIds: [] };
      expect(
        (await handle.prisma.knowledgeBase.findMany({ where: kbAccessWhere(stranger), select: { id: true } })).map((r) => r.id),
      ).toEqual(["open"]);
    } finally {
      await handle.close();
      await db.cleanup();
    }
  });
});
