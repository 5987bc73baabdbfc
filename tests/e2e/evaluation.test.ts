import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { EvaluationPage } from "./pages/evaluation-page";
import { SignInPage } from "./pages/sign-in-page";
import { launchBrowser, newPage, screenshot } from "./support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function signedIn(role: "ADMIN" | "ANALYST" | "USER"): Promise<{ page: Page; close: () => Promise<void> }> {
  const demo = DEMO_USERS.find((u) => u.role === role)!;
  const { context, page } = await newPage(browser);
  await new SignInPage(page).open();
  await new SignInPage(page).signIn(demo.email, demo.password);
  await page.waitForURL(/\/ask$/);
  return { page, close: () => context.close() };
}

/** Waits until the report shown is the one just started (its heading names it) and it has finished. */
async function waitForDone(evaluation: EvaluationPage, heading: RegExp) {
  await expect.poll(() => evaluation.report().locator("header").innerText(), { timeout: 20_000 }).toMatch(heading);
  await expect.poll(() => evaluation.status().innerText(), { timeout: 120_000, interval: 1000 }).toBe("Done");
}

describe("evaluation dashboard", () => {
  it("runs the demo suite from the browser with progress, shows metrics as charts and drills into a question's run", async () => {
    const { page, close } = await signedIn("ANALYST");
    try {
      const evaluation = new EvaluationPage(page);
      await evaluation.open();
      // Benchmark suites whose KBs are not registered say what is missing and who can fix it.
      await evaluation.runForm().getByLabel("Suite").selectOption("spider");
      expect(await evaluation.runForm().getByTestId("suite-unavailable").innerText()).toMatch(
        /not loaded yet[\s\S]*Ask an admin to load the benchmark catalog|datasets folder was not found/,
      );

      // The form's defaults are what its labels say: a small suite runs whole when Questions is empty.
      await evaluation.runForm().getByLabel("Suite").selectOption({ label: "Demo workspace" });
      expect(await evaluation.runForm().getByLabel("Questions").inputValue()).toBe("");
      expect(
        await evaluation
          .runForm()
          .getByText(/^Empty: all \d+ questions$/)
          .count(),
      ).toBe(1);
      await evaluation.runForm().getByLabel("Questions").fill("8");
      expect(
        await evaluation
          .runForm()
          .getByText(/^8 of \d+ \(empty: all\)$/)
          .count(),
      ).toBe(1);
      await evaluation.startRun({ suite: "Demo workspace", questions: "8", seed: "4", label: "baseline" });
      await expect.poll(() => evaluation.report().isVisible(), { timeout: 15_000 }).toBe(true);
      await waitForDone(evaluation, /Demo workspace\s*· baseline/);
      expect(await evaluation.metricCards().innerText()).toMatch(/P@1 \(answer correct\)/);
      for (const title of [
        "Metrics",
        "Answer presence (AP@k)",
        "Reliability diagram",
        "Risk–coverage",
        "By source kind",
        "Latency per stage",
      ]) {
        await expect.poll(() => evaluation.chart(title).count(), { timeout: 10_000 }).toBe(1);
      }
      // No "unknown" group: questions without a gold source (to refrain from) are left out, and counted.
      expect(await evaluation.chart("By source kind").innerText()).not.toMatch(/unknown/i);
      await expect
        .poll(() => evaluation.chart("Metrics").locator(".recharts-bar-rectangle").count(), { timeout: 10_000 })
        .toBeGreaterThan(3);
      // Document questions name their gold document: retrieval is measured after every ranking stage, with the change from the stage before.
      const stages = page.getByTestId("stage-table");
      await expect.poll(() => stages.isVisible(), { timeout: 10_000 }).toBe(true);
      expect(await stages.innerText()).toMatch(/first-stage retrieval[\s\S]*pool[\s\S]*re-rank 1[\s\S]*answer evidence/);
      expect(await stages.innerText()).toMatch(/NDCG@10/);

      await evaluation.showQuestions("All");
      await expect.poll(() => evaluation.questionTable().locator("tbody > tr").count(), { timeout: 10_000 }).toBe(8);
      const runLink = evaluation.questionTable().getByRole("link", { name: "Open run" }).first();
      expect(await runLink.getAttribute("href")).toMatch(/^\/ask\?run=\w+/);
      // A question's details: gold source, candidates, and where the answer first appeared.
      await evaluation.questionTable().locator("tbody > tr").first().getByRole("button").click();
      expect(await evaluation.questionTable().innerText()).toMatch(/First piece holding the answer|Gold source|Withheld answer/);
      await screenshot(page, "evaluation-report");
      // Calibration: the reliability diagram's bars and the risk–coverage curve are drawn.
      expect(await evaluation.chart("Reliability diagram").innerText()).toMatch(/share right/);
      await expect
        .poll(() => evaluation.chart("Risk–coverage").locator(".recharts-line-curve").count(), { timeout: 10_000 })
        .toBeGreaterThan(0);
      await evaluation.chart("Reliability diagram").scrollIntoViewIfNeeded();
      // No tooltip left open over a chart where the pointer happened to rest.
      await page.mouse.move(0, 0);
      await screenshot(page, "evaluation-calibration");

      // The same run as a file in the command line's shape.
      const exported = await page.request.get(`/api/eval/reports/${new URL(page.url()).searchParams.get("report")}/export`);
      expect(exported.status()).toBe(200);
      const json = await exported.json();
      expect(json).toMatchObject({ suite: "demo", n: 8, seed: 4 });
      expect(json.perQuestion).toHaveLength(8);
      for (const q of json.perQuestion) expect(q.confidence).toBeGreaterThanOrEqual(0);
      expect(json.metrics.calibration.values).toHaveProperty("ece");
    } finally {
      await close();
    }
  });

  it("compares two reports: per-metric deltas and the questions that changed", async () => {
    const { page, close } = await signedIn("ANALYST");
    try {
      const evaluation = new EvaluationPage(page);
      await evaluation.open();
      // Same questions, a stricter answer threshold: more refusals.
      await evaluation.startRun({
        suite: "Demo workspace",
        questions: "8",
        seed: "4",
        label: "strict",
        config: '{"answerThreshold": 0.95}',
      });
      await waitForDone(evaluation, /· strict/);
      await evaluation.tab("Compare").click();
      await page
        .getByLabel("Report A (before)")
        .selectOption({ label: await page.getByLabel("Report A (before)").locator("option", { hasText: "baseline" }).innerText() });
      await page
        .getByLabel("Report B (after)")
        .selectOption({ label: await page.getByLabel("Report B (after)").locator("option", { hasText: "strict" }).innerText() });
      const table = page.getByTestId("delta-table");
      await expect.poll(() => table.isVisible(), { timeout: 20_000 }).toBe(true);
      expect(await table.innerText()).toMatch(/refrain rate/);
      expect(await page.getByTestId("comparison").innerText()).toMatch(/8 questions in both/);
      await screenshot(page, "evaluation-compare");

      // A bad config is refused with a message on the field, and nothing starts.
      await evaluation.tab("Runs and reports").click();
      await evaluation.startRun({ suite: "Demo workspace", questions: "2", config: '{"candidate": 5}' });
      await expect.poll(() => evaluation.runForm().getByRole("alert").first().innerText(), { timeout: 10_000 }).toMatch(/candidates/);
    } finally {
      await close();
    }
  });

  it("authors a suite from written questions and runs it", async () => {
    const { page, close } = await signedIn("ADMIN");
    try {
      const evaluation = new EvaluationPage(page);
      await evaluation.open("?tab=author");
      const form = page.getByRole("form", { name: "Author a suite" });
      await form.getByLabel("Name").fill("Sales smoke test");
      await form.getByRole("button", { name: "Add a question" }).click();
      await form.getByLabel("Question 1", { exact: true }).fill("How many customers are there?");
      await form.getByLabel("Accepted answers for question 1, one per line").fill("12");
      await form.getByRole("button", { name: "Add a question" }).click();
      await form.getByLabel("Question 2", { exact: true }).fill("What is the warranty of the Quantum Flux Capacitor?");
      await form.getByText("Should refrain").nth(1).click();
      await form.getByRole("button", { name: "Create suite" }).click();
      await expect
        .poll(() => page.getByTestId("authored-suites").innerText(), { timeout: 10_000 })
        .toMatch(/Sales smoke test\s+2 questions/);
      await screenshot(page, "evaluation-author");

      await evaluation.tab("Runs and reports").click();
      await evaluation.startRun({ suite: "Sales smoke test (authored)", questions: "" });
      await waitForDone(evaluation, /Sales smoke test/);
      await evaluation.showQuestions("All");
      await expect.poll(() => evaluation.questionTable().locator("tbody > tr").count(), { timeout: 10_000 }).toBe(2);
      expect(await evaluation.questionTable().innerText()).toContain("(should refrain)");
    } finally {
      await close();
    }
  });

  it("is for analysts and admins only", async () => {
    const { page, close } = await signedIn("USER");
    try {
      const res = await page.goto("/evaluation");
      expect(res?.status()).toBe(403);
      expect((await page.request.get("/api/eval/reports")).status()).toBe(403);
      expect((await page.request.post("/api/eval/reports", { data: { suite: "demo" } })).status()).toBe(403);
    } finally {
      await close();
    }
  });
});
