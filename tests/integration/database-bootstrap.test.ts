import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import { createMigration } from "@/lib/db/migrations";
import { DEMO_USERS } from "@/lib/db/seed";
import { encryptSecrets, decryptSecrets } from "@/lib/crypto/secrets";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "./support/test-database";

const MIGRATIONS = readdirSync("prisma/migrations")
  .filter((n) => /^\d{14}_/.test(n))
  .sort();

describe(`database bootstrap (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db.cleanup());

  it("applies every migration and seeds one demo user per role on first start", async () => {
    const { handle, report } = await openAndBootstrap(db.env);
    try {
      expect(report.engine).toBe(TARGET_ENGINE);
      expect(report.appliedMigrations).toEqual(MIGRATIONS);
      expect(report.seededUsers).toBe(3);
      const users = await handle.prisma.user.findMany({ orderBy: { email: "asc" }, include: { memberships: true } });
      expect(users.map((u) => [u.email, u.role])).toEqual(
        DEMO_USERS.map((u) => [u.email, u.role]).sort((a, b) => a[0].localeCompare(b[0])),
      );
      expect(users.every((u) => u.passwordHash.startsWith("$argon2id$"))).toBe(true);
      const recorded = await handle.prisma.$queryRawUnsafe<{ migration_name: string }[]>(
        'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL ORDER BY migration_name',
      );
      expect(recorded.map((r) => r.migration_name)).toEqual(MIGRATIONS);
    } finally {
      await handle.close();
    }
  });

  it("keeps all data on a second start and neither re-migrates nor re-seeds", async () => {
    const first = await openAndBootstrap(db.env);
    await first.handle.prisma.group.create({ data: { name: "Finance" } });
    await first.handle.prisma.user.delete({ where: { email: DEMO_USERS[2].email } });
    await first.handle.close();

    const second = await openAndBootstrap(db.env);
    try {
      expect(second.report.appliedMigrations).toEqual([]);
      expect(second.report.seededUsers).toBe(0);
      expect(await second.handle.prisma.group.findUnique({ where: { name: "Finance" } })).not.toBeNull();
      // A demo user an admin deleted stays deleted.
      expect(await second.handle.prisma.user.count()).toBe(2);
    } finally {
      await second.handle.close();
    }
  });

  it("stores connection secrets only as ciphertext", async () => {
    const { handle } = await openAndBootstrap(db.env);
    try {
      const key = Buffer.alloc(32, 9);
      const kb = await handle.prisma.knowledgeBase.create({
        data: {
          name: "Sales DB",
          kind: "SQL",
          config: { host: "db.internal" },
          secretsCiphertext: encryptSecrets({ password: "hunter2-very-secret" }, key),
        },
      });
      const raw = await handle.prisma.$queryRawUnsafe<{ row: string }[]>(
        `SELECT row_to_json(k)::text AS row FROM "KnowledgeBase" k WHERE id = $1`,
        kb.id,
      );
      expect(raw[0].row).not.toContain("hunter2");
      const stored = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: kb.id } });
      expect(decryptSecrets(stored.secretsCiphertext!, key)).toEqual({ password: "hunter2-very-secret" });
    } finally {
      await handle.close();
    }
  });
});

describe("creating a migration offline (wasm schema engine, in-memory shadow database)", () => {
  it("finds nothing to do when the schema matches the migrations, and writes a migration that applies when it changes", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "mosaic-mig-"));
    cpSync("prisma/migrations", path.join(dir, "migrations"), { recursive: true });
    const schemaFile = path.join(dir, "schema.prisma");
    writeFileSync(schemaFile, readFileSync("prisma/schema.prisma", "utf8"));
    expect(await createMigration("noop", { migrationsDir: path.join(dir, "migrations"), schemaFile })).toBeNull();

    writeFileSync(schemaFile, `${readFileSync(schemaFile, "utf8")}\nmodel Probe {\n  id Int @id\n  label String\n}\n`);
    const created = await createMigration("add_probe", {
      migrationsDir: path.join(dir, "migrations"),
      schemaFile,
      now: new Date("2099-01-02T03:04:05Z"),
    });
    expect(created?.name).toBe("20990102030405_add_probe");
    expect(created?.script).toContain('CREATE TABLE "Probe"');
    expect(readFileSync(created!.file, "utf8")).toBe(created!.script);
  });

  it("rejects names that are not plain identifiers", async () => {
    await expect(createMigration("drop table; --")).rejects.toThrow(/letters, digits and underscores/);
  });
});
