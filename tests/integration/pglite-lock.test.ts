import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import { openDatabase, pgliteDir, type DatabaseHandle } from "@/lib/db/connect";
import { DatabaseLockedError, lockPathFor } from "@/lib/db/pglite-lock";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "./support/test-database";

const run = promisify(execFile);

// Only the embedded engine has a single-process data directory.
describe.skipIf(TARGET_ENGINE !== "pglite")("one process per embedded data directory", () => {
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

  it("refuses a second opener in the same process with the holder's details", async () => {
    await expect(openDatabase(db.env)).rejects.toThrow(/already holds/);
  });

  it("stops a second process (a command-line tool) with a clear message, and the data stays intact", async () => {
    const result = await run("npx", ["tsx", "scripts/db-migrate.ts"], {
      env: { ...process.env, DATA_DIR: db.env.DATA_DIR, DATABASE_URL: "" },
    }).catch((e: { code: number; stderr: string; stdout: string }) => e);
    expect((result as { code: number }).code).toBe(1);
    const stderr = (result as { stderr: string }).stderr;
    expect(stderr).toContain("is in use by another Mosaic process");
    expect(stderr).toContain(`pid ${process.pid}`);
    expect(stderr).toContain("Stop that process first");
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await handle.prisma.user.count()).toBe(3);
  });

  it("takes over a stale lock left by a crashed process", async () => {
    const other = await createTestDatabase();
    const dir = pgliteDir(other.env);
    writeFileSync(lockPathFor(dir), JSON.stringify({ pid: 999_999_99, command: "crashed", startedAt: "2020-01-01T00:00:00Z" }));
    const h = await openDatabase(other.env);
    await h.close();
    expect(existsSync(lockPathFor(dir))).toBe(false);
    await other.cleanup();
  });

  it("DatabaseLockedError says how to proceed", () => {
    const e = new DatabaseLockedError(path.resolve("x"), { pid: 1, command: "next start", startedAt: "now" });
    expect(e.message).toContain("DATABASE_URL");
  });
});
