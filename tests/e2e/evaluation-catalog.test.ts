import { rmSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { type AppServer, startAppServer } from "../support/app-server";
import { smallDatasets } from "../support/small-datasets";
import { EvaluationPage } from "./pages/evaluation-page";
import { KnowledgeBasesPage } from "./pages/knowledge-bases-page";
import { SignInPage } from "./pages/sign-in-page";
import { launchBrowser, screenshot } from "./support/browser";

/**
 * The Evaluation page on a workspace of its own (a fresh server, so no run exists yet) whose
 * DATASETS_DIR is a small copy of the benchmark data: two Spider databases, ten SciFact abstracts and
 * one TAT-QA report, so loading the benchmark catalog from the page finishes in seconds.
 */
let browser: Browser;
let server: AppServer;
let datasets: string;
beforeAll(async () => {
  datasets = smallDatasets();
  [browser, server] = await Promise.all([launchBrowser(), startAppServer({ DATASETS_DIR: datasets, NEO4J_URI: "" })]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(datasets, { recursive: true, force: true });
});

async function signedIn(role: "ADMIN" | "ANALYST"): Promise<{ page: Page; close: () => Promise<void> }> {
  const demo = DEMO_USERS.find((u) => u.role === role)!;
  const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await new SignInPage(page).open();
  await new SignInPage(page).signIn(demo.email, demo.password);
  await page.waitForURL(/\/ask$/);
  return { page, close: () => context.close() };
}

describe("evaluation page: the first suite, what a suite misses, and loading the benchmark catalog", () => {
  it("starts with the demo suite, the one its empty state recommends", async () => {
    const { page, close } = await signedIn("ANALYST");
    try {
      const evaluation = new EvaluationPage(page);
      await evaluation.open();
      const suite = evaluation.runForm().getByLabel("Suite");
      expect(await suite.locator("option:checked").innerText()).toBe("Demo workspace");
      expect(await page.getByTestId("no-reports").innerText()).toMatch(
        /No evaluation runs yet\. Start with the Demo workspace suite \(82 questions\): it runs in under a minute\./,
      );
      expect(await evaluation.runForm().innerText()).toMatch(/82 questions\./);
      // An analyst sees why Spider cannot run and whom to ask; no load button.
      await suite.selectOption({ label: "Spider (text-to-SQL) — not loaded yet" });
      const missing = page.getByTestId("suite-unavailable");
      expect(await missing.innerText()).toMatch(
        /The Spider \(text-to-SQL\) knowledge bases are not loaded yet; the datasets are there \(.*mosaic-e2e-datasets-/,
      );
      expect(await missing.innerText()).toMatch(/Ask an admin to load the benchmark catalog on this page\./);
      expect(await page.getByRole("button", { name: "Load the benchmark catalog" }).count()).toBe(0);
      // Text2Cypher names the Neo4j server it needs.
      await suite.selectOption({ label: "Text2Cypher (Neo4j) — no Neo4j server" });
      expect(await missing.innerText()).toMatch(/no Neo4j server is configured \(NEO4J_URI is not set\)/);
      await screenshot(page, "evaluation-defaults-analyst");
    } finally {
      await close();
    }
  });

  it("lets an admin load the benchmark catalog in the background, with progress, after which the suite can run", async () => {
    const { page, close } = await signedIn("ADMIN");
    try {
      const evaluation = new EvaluationPage(page);
      await evaluation.open();
      const suite = evaluation.runForm().getByLabel("Suite");
      await suite.selectOption({ label: "Spider (text-to-SQL) — not loaded yet" });
      expect(await page.getByTestId("suite-unavailable").innerText()).toMatch(
        /Load the benchmark catalog: it registers SciFact, TAT-QA, every Spider database/,
      );
      await screenshot(page, "evaluation-suite-not-loaded");
      await page.getByRole("button", { name: "Load the benchmark catalog" }).click();
      const job = page.getByTestId("benchmark-load");
      // 2 document collections + 2 Spider databases + the RDF version of concert_singer (pets_1 has no dev questions).
      await expect
        .poll(() => job.innerText(), { timeout: 30_000, interval: 200 })
        .toMatch(/Loading the benchmark catalog…|Benchmark catalog loaded/);
      const progressSeen = (await job.innerText()).includes("Loading");
      if (progressSeen) await screenshot(page, "evaluation-catalog-loading");
      await expect.poll(() => job.innerText(), { timeout: 120_000, interval: 500 }).toMatch(/Benchmark catalog loaded/);
      expect(await job.innerText()).toBe("Benchmark catalog loaded: 5 knowledge bases added, 0 already there.");
      await screenshot(page, "evaluation-catalog-loaded");
      // The suite list is read again: Spider can run now, and the hint says how many questions it has.
      await expect
        .poll(async () => (await suite.locator("option").allInnerTexts()).find((t) => t.startsWith("Spider (text-to-SQL)")), {
          timeout: 10_000,
        })
        .toBe("Spider (text-to-SQL)");
      await suite.selectOption({ label: "Spider (text-to-SQL)" });
      expect(await page.getByTestId("suite-unavailable").count()).toBe(0);
      // A second load while none runs skips what is there.
      const again = await page.request.post("/api/eval/benchmark-catalog");
      expect(again.status()).toBe(200);
      await expect
        .poll(async () => (await (await page.request.get("/api/eval/benchmark-catalog")).json()).job, { timeout: 60_000 })
        .toMatchObject({
          kind: "catalog.load-benchmarks",
          status: "SUCCEEDED",
          progressDone: 5,
          progressTotal: 5,
          message: "Benchmark catalog loaded: 0 knowledge bases added, 5 already there.",
        });
      // Nothing to cancel once it is done.
      const cancel = await page.request.delete("/api/eval/benchmark-catalog");
      expect(cancel.status()).toBe(409);
      expect((await cancel.json()).error.message).toBe("No benchmark catalog load is going on.");
      console.log(`[evaluation-catalog] progress shown while loading: ${progressSeen}`);

      // The collection of one report counts in the singular on its knowledge-base page.
      await page.goto("/knowledge-bases");
      await page.getByRole("link", { name: "TAT-QA financial reports" }).click();
      await expect
        .poll(async () => (await new KnowledgeBasesPage(page).descriptor()).innerText(), { timeout: 15_000 })
        .toMatch(/^Document collection "TAT-QA financial reports": 1 document, \d+ passages?, 1 table \(\d+ table rows?\)\./);
      await screenshot(page, "kb-document-counts");
    } finally {
      await close();
    }
  }, 240_000);

  it("refuses the load to analysts", async () => {
    const { page, close } = await signedIn("ANALYST");
    try {
      const res = await page.request.post("/api/eval/benchmark-catalog");
      expect(res.status()).toBe(403);
    } finally {
      await close();
    }
  });
});
