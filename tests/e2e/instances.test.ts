import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import pg from "pg";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { AppClient } from "../support/app-client";
import type { AppServer } from "../support/app-server";
import { type SharedServices, startInstance, startSharedServices } from "../support/instances";
import { SHARED_MODELS_DIR, sharedModelsAvailable } from "../support/models/fixtures";
import { launchBrowser, screenshot } from "./support/browser";
import { SignInPage } from "./pages/sign-in-page";

/**
 * Two app instances (production build, two ports, each its own DATA_DIR) on one PostgreSQL server and
 * one OpenSearch node, as behind a load balancer: a user signed in on A is signed in on B; a document
 * collection uploaded through A answers through B; a job A was running when it was killed is finished
 * by B once A's lease on it has run out (JOB_LEASE_MS, short here).
 */

const LEASE_MS = 4_000;
const MODELS = { MODELS_ENABLED: "true", MODELS_DIR: SHARED_MODELS_DIR, MODEL_WORKERS: "1", MODELS_PRECISION: "int8" };
const admin = DEMO_USERS.find((u) => u.role === "ADMIN")!;

/** One-sentence notes: each is one passage, so the embedding job has many steps of 128 rows and a kill lands mid-job. */
const NOTES = 400;
const PROJECTS = ["bridge repair", "library roof", "harbour lights", "school garden", "river survey"];
const notes = () =>
  Array.from({ length: NOTES }, (_, i) => ({
    name: `note-${String(i).padStart(4, "0")}.txt`,
    bytes: Buffer.from(`Note ${i}: the committee approved budget line ${1000 + i} for the ${PROJECTS[i % PROJECTS.length]} project.`),
  }));

const LIGHTHOUSE = [
  {
    name: "lighthouse-maintenance.md",
    bytes: Buffer.from(
      "# Northpoint lighthouse maintenance\n\nThe Northpoint lighthouse lamp is replaced every 14 months by the Selwick harbour crew.\n\n" +
        "The fog signal is tested on the first Monday of each month.\n",
    ),
  },
  {
    name: "harbour-fees.md",
    bytes: Buffer.from("# Selwick harbour fees\n\nA mooring at Selwick harbour costs 38 euros a night in summer.\n"),
  },
];

interface JobRow {
  status: string;
  lockedBy: string | null;
  attempts: number;
  progressDone: number;
  progressTotal: number | null;
  message: string;
}

interface RunLine {
  result?: { refrained: boolean; answer: string | null; evidence: { kb: string; text: string }[] };
  error?: { message: string };
}

/** PostgreSQL's server binaries, Java 17 + Maven (the OpenSearch node) and the shared embedder: CI has them all; elsewhere the test is skipped without them. */
function servicesAvailable(): boolean {
  const has = (cmd: string) => spawnSync(cmd, ["-version"], { stdio: "ignore" }).status === 0;
  return existsSync("/usr/lib/postgresql") && has("java") && has("mvn") && sharedModelsAvailable();
}
const runServices = process.env.CI === "true" || servicesAvailable();

describe.skipIf(!runServices)("several instances on one PostgreSQL and one OpenSearch", () => {
  let shared: SharedServices;
  let db: pg.Client;
  let browser: Browser;
  const instances: AppServer[] = [];
  let a: AppServer;
  let b: AppServer;
  let cookie = "";

  const job = async (kbId: string): Promise<JobRow | undefined> =>
    (
      await db.query<JobRow>(
        `SELECT status, "lockedBy", attempts, "progressDone", "progressTotal", message FROM "Job" WHERE "kbId" = $1 AND kind = 'documents.embed' ORDER BY "createdAt" DESC LIMIT 1`,
        [kbId],
      )
    ).rows[0];

  async function start(): Promise<AppServer> {
    const server = await startInstance(shared, { ...MODELS, JOB_LEASE_MS: String(LEASE_MS) });
    instances.push(server);
    return server;
  }

  async function register(on: AppServer, name: string, files: { name: string; bytes: Buffer }[]): Promise<string> {
    const r = await new AppClient(on.baseUrl).register(
      cookie,
      { kind: "DOCUMENTS", name, connection: { language: "en", engine: "opensearch", opensearch: { replicas: 0 } } },
      files,
    );
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    return r.json!.id as string;
  }

  beforeAll(async () => {
    shared = await startSharedServices();
    db = new pg.Client({ connectionString: shared.postgres.url });
    await db.connect();
    // Started together: the instance that migrates and seeds holds the start-up lock, the other waits.
    [a, b] = await Promise.all([start(), start()]);
    browser = await launchBrowser();
  }, 420_000);

  afterAll(async () => {
    await browser?.close();
    for (const s of instances) await s.stop().catch(() => undefined);
    await db?.end().catch(() => undefined);
    await shared?.stop();
  }, 120_000);

  it("keeps a user signed in on A signed in on B, where a collection uploaded through A is listed and answers", async () => {
    const context = await browser.newContext({ baseURL: a.baseUrl, viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await new SignInPage(page).open();
      await new SignInPage(page).signIn(admin.email, admin.password);
      await page.waitForURL(/\/ask$/);
      cookie = (await context.cookies(a.baseUrl)).map((c) => `${c.name}=${c.value}`).join("; ");
      expect(cookie).toContain("session-token=");
      const name = "Selwick harbour notes";
      const kbId = await register(a, name, LIGHTHOUSE);

      // Cookies are kept per host, not per port: B receives A's session cookie, as behind a load balancer.
      await page.goto(`${b.baseUrl}/knowledge-bases`);
      expect(new URL(page.url()).pathname).toBe("/knowledge-bases");
      await expect.poll(() => page.getByText(admin.name).count()).toBeGreaterThan(0);
      await expect.poll(() => page.getByRole("link", { name }).count()).toBe(1);
      await screenshot(page, "instances-kb-from-a-listed-on-b");

      const res = await page.request.post(`${b.baseUrl}/api/runs`, {
        data: { question: "How often is the Northpoint lighthouse lamp replaced?", kbIds: [kbId] },
      });
      expect(res.status()).toBe(200);
      const last = (await res.text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as RunLine)
        .at(-1)!;
      expect(last.error).toBeUndefined();
      expect(last.result!.refrained).toBe(false);
      expect(last.result!.evidence.some((e) => e.kb === name && e.text.includes("every 14 months"))).toBe(true);
    } finally {
      await context.close();
    }
  }, 180_000);

  it("finishes on B a job A was running when A was killed", async () => {
    // B goes away for a moment so that A alone claims the job (either would; the test must know which).
    await b.stop();
    const kbId = await register(a, "Committee notes", notes());
    let running: JobRow | undefined;
    await expect
      .poll(
        async () => {
          running = await job(kbId);
          return running?.status === "RUNNING" && running.progressDone >= 128;
        },
        { timeout: 240_000, interval: 50 },
      )
      .toBe(true);
    await a.kill();
    const atKill = (await job(kbId))!;
    expect(atKill.status).toBe("RUNNING");
    expect(atKill.progressDone).toBeLessThan(NOTES);
    expect(atKill.lockedBy).toBe(running!.lockedBy);

    b = await start();
    // B takes the job over once A's lease has run out, and goes on from what A committed (no row embedded again).
    let takenOver: JobRow | undefined;
    await expect
      .poll(
        async () => {
          const row = await job(kbId);
          if (row?.status === "RUNNING" && row.lockedBy && row.lockedBy !== atKill.lockedBy) takenOver = row;
          return takenOver ? "taken over" : row?.status;
        },
        { timeout: 240_000, interval: 100 },
      )
      .toBe("taken over");
    expect(takenOver!.attempts).toBe(2);
    expect(takenOver!.progressDone).toBeGreaterThanOrEqual(atKill.progressDone);
    await expect.poll(async () => (await job(kbId))?.status, { timeout: 240_000, interval: 250 }).toBe("SUCCEEDED");
    const done = (await job(kbId))!;
    expect(done.progressDone).toBe(NOTES);
    expect(done.progressTotal).toBe(NOTES);
    expect(done.message).toMatch(/400 passages and table rows embedded/);

    // The session signed on A (now gone) still works on the new B.
    const me = await fetch(`${b.baseUrl}/api/me`, { headers: { Cookie: cookie } });
    expect(me.status).toBe(200);
  }, 600_000);
});
