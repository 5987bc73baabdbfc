import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticate } from "@/lib/auth/authenticate";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { DEMO_USERS } from "@/lib/db/seed";
import { AppError } from "@/lib/errors";
import { createGroup, createUser, listGroups, listUsers, setUserPassword, updateUser } from "@/lib/users/users";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "./support/test-database";

describe(`users, roles and groups (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
  });
  afterAll(async () => {
    await handle.close();
    await db.cleanup();
  });

  const admin = DEMO_USERS.find((u) => u.role === "ADMIN")!;

  it("authenticates a demo user and refuses wrong or unknown credentials alike", async () => {
    const ok = await authenticate(handle.prisma, ` ${admin.email.toUpperCase()} `, admin.password);
    expect(ok).toMatchObject({ email: admin.email, role: "ADMIN" });
    expect(await authenticate(handle.prisma, admin.email, "wrong-password")).toBeNull();
    expect(await authenticate(handle.prisma, "nobody@mosaic.local", admin.password)).toBeNull();
    const signedIn = await handle.prisma.user.findUniqueOrThrow({ where: { email: admin.email } });
    expect(signedIn.lastSignInAt).not.toBeNull();
  });

  it("creates a user with a role and groups who can then sign in", async () => {
    const finance = await createGroup(handle.prisma, { name: "Finance", description: "Controllers" });
    const created = await createUser(handle.prisma, {
      email: "New.Person@Example.com",
      name: "New Person",
      password: "correct horse",
      role: "ANALYST",
      groupIds: [finance.id],
    });
    expect(created.email).toBe("new.person@example.com");
    const row = (await listUsers(handle.prisma)).find((u) => u.id === created.id)!;
    expect(row).toMatchObject({ role: "ANALYST", active: true, groups: [{ id: finance.id, name: "Finance" }] });
    expect(await authenticate(handle.prisma, "new.person@example.com", "correct horse")).not.toBeNull();
    expect((await listGroups(handle.prisma)).find((g) => g.name === "Finance")?.memberCount).toBe(1);
  });

  it("refuses a duplicate email or group name with a field message and writes nothing", async () => {
    const before = await handle.prisma.user.count();
    const err = await createUser(handle.prisma, { email: admin.email, name: "Dup", password: "long enough", role: "USER" }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: "CONFLICT", fields: { email: "This email is taken." } });
    expect(await handle.prisma.user.count()).toBe(before);
    await expect(createGroup(handle.prisma, { name: "Finance" })).rejects.toMatchObject({ code: "CONFLICT" });
  });

  it("refuses unknown groups and malformed input without writing", async () => {
    const before = await handle.prisma.user.count();
    await expect(
      createUser(handle.prisma, { email: "g@example.com", name: "G", password: "long enough", role: "USER", groupIds: ["missing"] }),
    ).rejects.toMatchObject({ code: "VALIDATION" });
    await expect(createUser(handle.prisma, { email: "bad", name: "", password: "x", role: "USER" })).rejects.toThrow();
    expect(await handle.prisma.user.count()).toBe(before);
  });

  it("changes role, groups and active flag; a deactivated user cannot sign in", async () => {
    const user = await handle.prisma.user.findUniqueOrThrow({ where: { email: "user@mosaic.local" } });
    const groups = await listGroups(handle.prisma);
    const finance = groups.find((g) => g.name === "Finance")!;
    await updateUser(handle.prisma, { id: user.id, role: "ANALYST", active: false, groupIds: [finance.id] });
    const row = (await listUsers(handle.prisma)).find((u) => u.id === user.id)!;
    expect(row).toMatchObject({ role: "ANALYST", active: false, groups: [{ name: "Finance" }] });
    expect(await authenticate(handle.prisma, "user@mosaic.local", "user-demo-pass")).toBeNull();
    await updateUser(handle.prisma, { id: user.id, role: "USER", active: true, groupIds: [] });
    expect(await authenticate(handle.prisma, "user@mosaic.local", "user-demo-pass")).not.toBeNull();
  });

  it("never lets the last active admin be demoted or deactivated", async () => {
    const adminRow = await handle.prisma.user.findUniqueOrThrow({ where: { email: admin.email } });
    await expect(updateUser(handle.prisma, { id: adminRow.id, role: "USER", active: true, groupIds: [] })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("last active admin"),
    });
    await expect(updateUser(handle.prisma, { id: adminRow.id, role: "ADMIN", active: false, groupIds: [] })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    expect((await handle.prisma.user.findUniqueOrThrow({ where: { id: adminRow.id } })).role).toBe("ADMIN");
  });

  it("resets a password", async () => {
    const analyst = await handle.prisma.user.findUniqueOrThrow({ where: { email: "analyst@mosaic.local" } });
    await setUserPassword(handle.prisma, { id: analyst.id, password: "a brand new one" });
    expect(await authenticate(handle.prisma, analyst.email, "analyst-demo-pass")).toBeNull();
    expect(await authenticate(handle.prisma, analyst.email, "a brand new one")).not.toBeNull();
    await expect(setUserPassword(handle.prisma, { id: "missing", password: "whatever12" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
