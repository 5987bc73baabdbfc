import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const dataDir = mkdtempSync(path.join(tmpdir(), "mosaic-kb-cli-"));
const env = { ...process.env, DATA_DIR: dataDir, SEED_DEMO: "true", LOG_LEVEL: "silent", DATABASE_URL: "" };

function kb(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "kb.ts"), ...args], { cwd: ROOT, env });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, out }));
  });
}

/** A small HR database of the kind a company registers from a deployment script. */
function hrDatabase(): string {
  const file = path.join(dataDir, "hr.sqlite");
  const db = new Database(file);
  db.exec("CREATE TABLE staff (staff_id INTEGER PRIMARY KEY, full_name TEXT, annual_salary_eur REAL)");
  db.prepare("INSERT INTO staff VALUES (?, ?, ?)").run(1, "Ada Lovelace", 81000);
  db.prepare("INSERT INTO staff VALUES (?, ?, ?)").run(2, "Alan Turing", 79000);
  db.close();
  return file;
}

describe("npm run kb: knowledge bases from a script", () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("registers, lists, refreshes and deletes through the domain functions, and says what is wrong", async () => {
    const file = hrDatabase();
    const registered = await kb(["register", "--kind", "sql", "--name", "HR", "--file", file, "--json"]);
    expect(registered.code, registered.out).toBe(0);
    const result = JSON.parse(registered.out.slice(registered.out.indexOf("{"))) as { id: string; refresh: { status: string } };
    expect(result.refresh.status).toBe("HEALTHY");

    const listed = await kb(["list", "--json"]);
    const kbs = JSON.parse(listed.out.slice(listed.out.indexOf("["))) as {
      id: string;
      name: string;
      sourceObjectCount: number;
      openToEveryone: boolean;
      groups: unknown[];
    }[];
    expect(kbs.find((k) => k.name === "HR")).toMatchObject({ id: result.id, sourceObjectCount: 1 });
    // Private by default: registered without --group or --everyone, only admins may use it.
    expect(kbs.find((k) => k.name === "HR")).toMatchObject({ openToEveryone: false, groups: [] });

    const refreshed = await kb(["refresh", "--kb", "HR"]);
    expect(refreshed.code, refreshed.out).toBe(0);
    expect(refreshed.out).toMatch(/^HR: healthy\./m);

    const twice = await kb(["register", "--kind", "sql", "--name", "HR", "--file", file]);
    expect(twice.code).toBe(1);
    expect(twice.out).toMatch(/HR/);
    expect(twice.out).not.toMatch(/\n\s+at /);

    const noGroup = await kb(["register", "--kind", "sql", "--name", "HR 2", "--file", file, "--group", "Nobody"]);
    expect(noGroup.code).toBe(1);
    expect(noGroup.out).toContain('No group "Nobody"');

    const usage = await kb(["delete", "--kb", "HR"]);
    expect(usage.code).toBe(2);
    expect(usage.out).toContain("--yes");

    const deleted = await kb(["delete", "--kb", "HR", "--yes"]);
    expect(deleted.code, deleted.out).toBe(0);
    expect((await kb(["list"])).out).toContain("No knowledge bases.");
  }, 480_000);
});
