import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pgliteDir } from "@/lib/db/connect";
import { lockPathFor, readLock } from "@/lib/db/pglite-lock";
import { DEMO_USERS } from "@/lib/db/seed";
import { spawnApp, startAppServer } from "../support/app-server";
import { freePort } from "../support/services/postgres";

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), "mosaic-start-"));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function signInCookie(baseUrl: string, email: string, password: string): Promise<string> {
  const csrfRes = await fetch(`${baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const cookie = csrfRes.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const res = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  return [cookie, ...res.headers.getSetCookie().map((c) => c.split(";")[0])].join("; ");
}

describe("server start", () => {
  it("stops with a message naming an invalid variable, and writes nothing", async () => {
    const dataDir = path.join(tempDir(), "never-created");
    const app = await spawnApp(dataDir, { MOSAIC_ENCRYPTION_KEY: "too-short" });
    const code = await app.exited;
    expect(code).toBe(1);
    expect(app.output()).toContain("MOSAIC_ENCRYPTION_KEY: must be 32 bytes");
    expect(app.output()).toContain(".env.example");
    expect(app.output()).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("refuses a second server on the same data directory and keeps the first one serving", async () => {
    const dataDir = tempDir();
    const first = await startAppServer({}, { dataDir, keepData: true });
    try {
      const second = await spawnApp(dataDir);
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain("is in use by another Mosaic process");
      expect((await fetch(`${first.baseUrl}/api/health`)).status).toBe(200);
    } finally {
      await first.stop();
    }
  });

  it("keeps users, sessions and data across a restart on the same data directory", async () => {
    const dataDir = tempDir();
    const admin = DEMO_USERS[0];
    const first = await startAppServer({}, { dataDir, keepData: true });
    let cookie: string;
    try {
      cookie = await signInCookie(first.baseUrl, admin.email, admin.password);
      const created = await fetch(`${first.baseUrl}/api/admin/users`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({ email: "kept@example.com", name: "Kept", password: "kept-pass-1", role: "USER" }),
      });
      expect(created.status).toBe(201);
    } finally {
      await first.stop();
    }
    const second = await startAppServer({}, { dataDir, keepData: true });
    try {
      // The session signed by the first run still works: the generated secret was kept in DATA_DIR.
      const me = await fetch(`${second.baseUrl}/api/me`, { headers: { cookie } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { role: string }).role).toBe("ADMIN");
      const list = await fetch(`${second.baseUrl}/api/admin/users`, { headers: { cookie } });
      const { users } = (await list.json()) as { users: { email: string }[] };
      expect(users.map((u) => u.email)).toContain("kept@example.com");
      expect(users).toHaveLength(4);
    } finally {
      await second.stop();
    }
  });

  it("answers API calls by role: 401 signed out, 403 for a user on an admin endpoint, 400 on malformed input", async () => {
    const server = await startAppServer();
    try {
      expect((await fetch(`${server.baseUrl}/api/admin/users`)).status).toBe(401);
      const userCookie = await signInCookie(server.baseUrl, DEMO_USERS[2].email, DEMO_USERS[2].password);
      const forbidden = await fetch(`${server.baseUrl}/api/admin/users`, { headers: { cookie: userCookie } });
      expect(forbidden.status).toBe(403);
      const adminCookie = await signInCookie(server.baseUrl, DEMO_USERS[0].email, DEMO_USERS[0].password);
      const bad = await fetch(`${server.baseUrl}/api/admin/users`, {
        method: "POST",
        headers: { cookie: adminCookie, "content-type": "application/json" },
        body: JSON.stringify({ email: "nope", role: "KING" }),
      });
      expect(bad.status).toBe(400);
      const body = (await bad.json()) as { error: { code: string; fields: Record<string, string> } };
      expect(body.error.code).toBe("VALIDATION");
      expect(Object.keys(body.error.fields)).toEqual(expect.arrayContaining(["email", "role", "name", "password"]));
    } finally {
      await server.stop();
    }
  });
});

describe("asking over HTTP", () => {
  it("streams the run stage by stage as NDJSON and ends with the answer", async () => {
    const server = await startAppServer();
    try {
      const cookie = await signInCookie(server.baseUrl, DEMO_USERS[2].email, DEMO_USERS[2].password);
      const res = await fetch(`${server.baseUrl}/api/runs`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({ question: "How many orders were returned?" }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/x-ndjson");
      const lines = (await res.text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      const stages = lines.filter((l) => l.event?.type === "END").map((l) => l.event.stage);
      expect(stages).toEqual(
        expect.arrayContaining(["understand", "select", "formulate", "execute", "pool", "rerank", "answer", "critique"]),
      );
      const result = lines.at(-1).result;
      expect(result.answer).toMatch(/\b7\b/);
      expect(result.evidence.length).toBeGreaterThan(0);
      const empty = await fetch(`${server.baseUrl}/api/runs`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({ question: "  " }),
      });
      expect(empty.status).toBe(400);

      // The stored run reopens as it was, for its owner only.
      const reopened = await fetch(`${server.baseUrl}/api/runs/${result.runId}`, { headers: { cookie } });
      expect(reopened.status).toBe(200);
      const stored = (await reopened.json()) as { status: string; traceEvents: { stage: string }[] };
      expect(stored.status).toBe(result.status);
      expect(stored.traceEvents.length).toBeGreaterThan(10);
      const analystCookie = await signInCookie(server.baseUrl, DEMO_USERS[1].email, DEMO_USERS[1].password);
      expect((await fetch(`${server.baseUrl}/api/runs/${result.runId}`, { headers: { cookie: analystCookie } })).status).toBe(404);
      // Saving as a guide is for analysts and admins.
      const asUser = await fetch(`${server.baseUrl}/api/runs/${result.runId}/guide`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: "{}",
      });
      expect(asUser.status).toBe(403);
    } finally {
      await server.stop();
    }
  });
});

/** Whether nothing listens on the port any more (binding it succeeds). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, () => srv.close(() => resolve(true)));
  });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs a start command (as a user would: its own process group) on a free port and a fresh data directory, and waits until it serves. */
async function launch(command: string, args: string[]) {
  const port = await freePort();
  const dataDir = tempDir();
  let output = "";
  const child: ChildProcess = spawn(command, args, {
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      LOG_LEVEL: "warn",
      NEXTAUTH_URL: `http://localhost:${port}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const lockFile = lockPathFor(pgliteDir({ DATA_DIR: dataDir }));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} ${args.join(" ")} exited during start:\n${output}`);
    if (Date.now() > deadline) throw new Error(`${command} ${args.join(" ")} did not serve in 120 s:\n${output}`);
    const ok = await fetch(`http://localhost:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 300));
  }
  const serverPid = readLock(pgliteDir({ DATA_DIR: dataDir }))?.pid;
  if (!serverPid) throw new Error(`No lock at ${lockFile} while serving:\n${output}`);
  return {
    child,
    port,
    lockFile,
    serverPid,
    exited,
    output: () => output,
    /** Kills whatever is left (the test failed half-way). */
    cleanup() {
      for (const pid of [serverPid, child.pid]) if (pid && isRunning(pid)) process.kill(pid, "SIGKILL");
    },
  };
}

const eventually = (fn: () => boolean | Promise<boolean>, timeout = 30_000) => expect.poll(fn, { timeout, interval: 200 }).toBe(true);

describe("npm start", () => {
  it("stops the server on SIGTERM: the port and the embedded database's lock are released", async () => {
    const app = await launch("npm", ["start"]);
    try {
      expect(existsSync(app.lockFile)).toBe(true);
      process.kill(app.child.pid!, "SIGTERM");
      await eventually(() => !isRunning(app.serverPid));
      await eventually(() => portIsFree(app.port));
      expect(existsSync(app.lockFile)).toBe(false);
      expect(app.output()).toContain("stopping Mosaic");
      // Stopped while the demo collection's embedding job was likely mid-batch: Mosaic's shutdown ran to
      // its end before the process exited (an exit during an onnxruntime batch aborts with this message).
      expect(app.output()).not.toMatch(/terminate called|Napi::Error/);
    } finally {
      app.cleanup();
    }
  });

  it("stops at once on a second signal when the server does not stop, and releases the lock it held", async () => {
    const app = await launch(process.execPath, ["--import", "tsx", "scripts/start.ts"]);
    try {
      // A server that cannot react: it neither closes its port nor releases its lock by itself.
      process.kill(app.serverPid, "SIGSTOP");
      process.kill(app.child.pid!, "SIGTERM");
      await new Promise((r) => setTimeout(r, 1500));
      expect(app.child.exitCode).toBeNull();
      expect(existsSync(app.lockFile)).toBe(true);
      process.kill(app.child.pid!, "SIGTERM");
      expect(await app.exited).toBe(137);
      expect(isRunning(app.serverPid)).toBe(false);
      await eventually(() => portIsFree(app.port));
      expect(existsSync(app.lockFile)).toBe(false);
      expect(app.output()).toContain("stopping Mosaic at once");
    } finally {
      app.cleanup();
    }
  });
});
