import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { DEMO_KB_NAMES } from "@/lib/demo/seed-catalog";
import { FeedbackPage } from "./pages/feedback-page";
import { GuidesPage } from "./pages/guides-page";
import { SignInPage } from "./pages/sign-in-page";
import { SourceObjectsPage } from "./pages/source-objects-page";
import { launchBrowser, newPage, screenshot } from "./support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

type Role = "ADMIN" | "ANALYST" | "USER";

async function signedIn(role: Role): Promise<{ page: Page; context: BrowserContext; close: () => Promise<void> }> {
  const demo = DEMO_USERS.find((u) => u.role === role)!;
  const { context, page } = await newPage(browser);
  await new SignInPage(page).open();
  await new SignInPage(page).signIn(demo.email, demo.password);
  await page.waitForURL(/\/ask$/);
  return { page, context, close: () => context.close() };
}

/** Asks through the streaming API as the signed-in user and returns the finished run's id. */
async function askViaApi(page: Page, question: string): Promise<string> {
  const res = await page.request.post("/api/runs", { data: { question } });
  expect(res.status()).toBe(200);
  const lines = (await res.text())
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { result?: { runId: string }; error?: { message: string } });
  const last = lines.at(-1)!;
  if (!last.result) throw new Error(`The run failed: ${last.error?.message}`);
  return last.result.runId;
}

/** The stored run as GET /api/runs/[id] returns it (its result carries the guides the run used). */
async function storedRun(
  page: Page,
  runId: string,
): Promise<{ result: { guides: { guideId: string; question: string }[]; answer: { text: string } } }> {
  const res = await page.request.get(`/api/runs/${runId}`);
  expect(res.status()).toBe(200);
  return res.json();
}

const until = (fn: () => Promise<number>, expected: number) => expect.poll(fn, { timeout: 20_000 }).toBe(expected);

describe("analyst source objects", () => {
  it("filters, then picks table cells in a document by keyboard and shows the produced context, rows numbered from 1", async () => {
    const { page, close } = await signedIn("ANALYST");
    try {
      const so = new SourceObjectsPage(page);
      await so.open();
      await so.filter({ kb: DEMO_KB_NAMES.documents, type: "Table" });
      await until(() => so.items().count(), 3);
      await so.filter({ search: "annual report" });
      await until(() => so.items().count(), 1);
      await so.choose("Table 1 of Aurora Outfitters Annual Report 2025");
      await expect.poll(() => so.grid().getByRole("row").count()).toBe(5);

      // Keyboard only: focus each checkbox and press Space.
      expect(
        await so
          .grid()
          .getByRole("checkbox", { name: /^Row 0:/ })
          .count(),
      ).toBe(0);
      for (const box of [so.row(2), so.row(4), so.column("Region"), so.column("Revenue 2025 (EUR million)")]) {
        await box.focus();
        await page.keyboard.press("Space");
        expect(await box.isChecked()).toBe(true);
      }
      await page.keyboard.press("Tab");
      await so.pick("cells");
      const context = so.producedContext();
      await context.waitFor();
      const text = await context.innerText();
      expect(await context.getByTestId("action-description").innerText()).toBe(
        "Pick table cells: Table 1 of Aurora Outfitters Annual Report 2025, rows 2 and 4; columns Region and Revenue 2025 (EUR million)",
      );
      expect(text).toContain("Region: Central Europe, Revenue 2025 (EUR million): 13.6");
      expect(text).toContain("Region: Total, Revenue 2025 (EUR million): 48.2");
      expect(text).not.toContain("Nordics");
      await screenshot(page, "source-objects-select-coordinates");
    } finally {
      await close();
    }
  });

  it("picks cells of a database table as the SQL that reads those cells by key", async () => {
    const { page, close } = await signedIn("ANALYST");
    try {
      const so = new SourceObjectsPage(page);
      await so.open();
      await so.filter({ kb: DEMO_KB_NAMES.sql });
      await so.choose("products");
      await so.row(1).check();
      await so.row(3).check();
      await so.column("name").check();
      await so.column("list_price").check();
      await so.pick("cells");
      await so.producedContext().waitFor();
      await so.producedContext().getByText("Native query it ran (SQL)").click();
      const text = await so.producedContext().innerText();
      expect(text).toMatch(/WHERE "product_id" = 1\s+OR "product_id" = 3/);
      expect(text).toContain("name: Summit 2 Tent");
      await screenshot(page, "source-objects-select-coordinates-sql");
    } finally {
      await close();
    }
  });

  it("picks sentences of a document, then starts a guide with that action", async () => {
    const { page, close } = await signedIn("ANALYST");
    try {
      const so = new SourceObjectsPage(page);
      await so.open();
      await so.filter({ type: "Text" });
      await until(() => so.items().count(), 1);
      await so.choose(DEMO_KB_NAMES.documents);
      await so.chooseDocument("Travel and Expense Policy");
      await so.sentence(/reimbursed up to the nightly cap/).check();
      await so.sentence(/^For cities not listed/).check();
      await so.pick("sentences");
      await so.producedContext().waitFor();
      const text = await so.producedContext().innerText();
      expect(text).toMatch(
        /Travel and Expense Policy: Hotel costs are reimbursed up to the nightly cap for the city\. .*For cities not listed, the cap is 150 EUR per night/s,
      );
      await screenshot(page, "source-objects-select-sentences");

      await so.startGuideLink().click();
      await page.waitForURL(/\/guides\/new\?/);
      const guides = new GuidesPage(page);
      expect(await guides.source(1).getByLabel("Knowledge base of source 1").inputValue()).not.toBe("");
      expect(await guides.action(1, 1).getByLabel("Action 1 of source 1: kind").inputValue()).toBe("SELECT_SENTENCE_IDXS");
      await expect.poll(() => guides.action(1, 1).getByRole("checkbox", { checked: true }).count()).toBe(2);
      await guides.field("Question").fill("What is the hotel cap in a city that is not listed?");
      await guides.field("Answer (optional)").fill("150 EUR per night");
      await guides.save();
      await page.waitForURL(/\/guides\/[^/]+\?saved=1$/);
      expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("What is the hotel cap in a city that is not listed?");
      expect(await page.getByRole("article").innerText()).toContain("For cities not listed, the cap is 150 EUR per night");
    } finally {
      await close();
    }
  });

  it("notes a database table's columns and measures: a measure over a column the table lacks is refused at its field, a sound one is saved", async () => {
    const { page, close } = await signedIn("ANALYST");
    try {
      const so = new SourceObjectsPage(page);
      await so.open();
      await so.filter({ kb: DEMO_KB_NAMES.sql });
      await so.choose("order_items");
      const notes = so.notesForm();
      // The demo's analyst already wrote units sold.
      await expect.poll(() => notes.getByTestId("measure").count()).toBe(1);
      expect(await notes.getByLabel("Name").first().inputValue()).toBe("units sold");
      await notes.getByLabel("Synonyms of unit_price").fill("price paid");
      await notes.getByRole("button", { name: "Add a measure" }).click();
      await notes.getByRole("button", { name: "Save notes" }).click();
      await notes.getByText("Name the measure.").waitFor();
      await notes.getByLabel("Name").nth(1).fill("margin");
      await notes.getByLabel("Expression over this table's columns").nth(1).fill("unit_price - cost");
      await notes.getByRole("button", { name: "Save notes" }).click();
      await notes.getByText(/"cost" is not a column of this table/).waitFor();
      await notes.getByLabel("Expression over this table's columns").nth(1).fill("unit_price * 0.4");
      await notes.getByRole("button", { name: "Save notes" }).click();
      await notes.getByText("Saved. The next question on this table uses these notes.").waitFor();
      await screenshot(page, "source-objects-table-notes");
      await page.reload();
      await so.filter({ kb: DEMO_KB_NAMES.sql });
      await so.choose("order_items");
      await expect.poll(() => so.notesForm().getByTestId("measure").count()).toBe(2);
      expect(await so.notesForm().getByLabel("Synonyms of unit_price").inputValue()).toBe("price paid");
    } finally {
      await close();
    }
  });

  it("edits a description and tags, which the tag filter then finds", async () => {
    const { page, close } = await signedIn("ANALYST");
    try {
      const so = new SourceObjectsPage(page);
      await so.open();
      await so.choose("orders");
      const form = so.editForm();
      await form.getByLabel("Description").fill("Every order with its customer, date and status (shipped or returned).");
      await form.getByLabel("Tags").fill("sales, fulfilment");
      await form.getByRole("button", { name: "Save" }).click();
      await form.getByText("Saved.").waitFor();
      await page.reload();
      await so.filter({ tag: "fulfilment" });
      await until(() => so.items().count(), 1);
      expect(await so.items().first().innerText()).toContain("Every order with its customer, date and status");
    } finally {
      await close();
    }
  });
});

describe("extraction guides", () => {
  it("names the retrieval actions in plain words and says next to each field what an action still needs", async () => {
    const { page, close } = await signedIn("ANALYST");
    try {
      const guides = new GuidesPage(page);
      await page.goto("/guides/new");
      await guides.setKb(1, DEMO_KB_NAMES.documents);
      const kind = guides.action(1, 1).getByLabel("Action 1 of source 1: kind");
      expect(await kind.locator("option").allInnerTexts()).toEqual(["Saved query", "Pick table cells", "Pick sentences"]);

      // Run with nothing chosen: the messages sit next to the fields.
      await guides.setKind(1, 1, "Pick table cells");
      await guides.runAction(1, 1);
      const action = guides.action(1, 1);
      await expect.poll(() => action.getByText("Choose a table.").count()).toBe(1);
      expect(await action.getByLabel("Table").getAttribute("aria-invalid")).toBe("true");
      const table = action.getByLabel("Table");
      await table.selectOption((await table.locator("option", { hasText: "Annual Report 2025" }).getAttribute("value"))!);
      await action.getByRole("table", { name: /^Preview of/ }).waitFor();
      await guides.runAction(1, 1);
      await expect.poll(() => action.getByRole("alert").allInnerTexts()).toEqual(["Tick at least one row.", "Tick at least one column."]);

      // Saving checks every action the same way: an empty SQL query is named under its field.
      await guides.editor().getByRole("button", { name: "Add a source" }).click();
      await guides.setKb(2, DEMO_KB_NAMES.sql);
      await guides.field("Question").fill("Which regions grew fastest?");
      await guides.save();
      await expect
        .poll(() => guides.editor().getByText("Some retrieval actions are incomplete: see the messages next to them.").count())
        .toBe(1);
      expect(await guides.action(2, 1).getByText("Write the query.").count()).toBe(1);
      const text = await page.locator("main").innerText();
      expect(text).not.toMatch(/NativeQuery|SelectCoordinates|SelectSentenceIdxs|Too small|expected string|is incomplete \(/);
      expect(page.url()).toMatch(/\/guides\/new$/);
      await screenshot(page, "guide-editor-incomplete-actions");
    } finally {
      await close();
    }
  });

  it("creates a guide from scratch: an unsafe query is refused with its reason, contexts are captured by running the actions", async () => {
    const { page, close } = await signedIn("ANALYST");
    try {
      const guides = new GuidesPage(page);
      await page.goto("/guides/new");
      const editor = guides.editor();
      await guides.field("Question").fill("How many orders were shipped?");
      await guides.field("Answer (optional)").fill("113");
      await guides.setKb(1, DEMO_KB_NAMES.sql);
      const query = guides.action(1, 1).getByLabel("SQL query");
      await query.fill("DELETE FROM orders WHERE status = 'shipped'");
      await guides.runAction(1, 1);
      await expect.poll(() => guides.action(1, 1).getByRole("alert").innerText()).toMatch(/Query refused/);
      await query.fill("SELECT COUNT(*) AS shipped FROM orders WHERE status = 'shipped'");
      await guides.runAction(1, 1);
      await expect.poll(() => guides.action(1, 1).getByTestId("produced-context").innerText()).toContain("shipped: 113");

      await editor.getByRole("button", { name: "Add a source" }).click();
      await guides.setKb(2, DEMO_KB_NAMES.documents);
      await guides.setKind(2, 1, "Pick table cells");
      const table = guides.action(2, 1).getByLabel("Table");
      const key = await table.locator("option", { hasText: "Annual Report 2025" }).getAttribute("value");
      await table.selectOption(key!);
      const grid = guides.action(2, 1).getByRole("table", { name: /^Preview of/ });
      await grid.getByRole("checkbox", { name: /^Row 4:/ }).check();
      await grid.getByRole("checkbox", { name: "Column Region", exact: true }).check();
      await grid.getByRole("checkbox", { name: "Column Growth", exact: true }).check();
      await guides.runAction(2, 1);
      await expect.poll(() => guides.action(2, 1).getByTestId("produced-context").innerText()).toContain("Region: Total, Growth: 12%");
      await screenshot(page, "guide-editor");

      await guides.save();
      await page.waitForURL(/\/guides\/[^/]+\?saved=1$/);
      const sources = page.getByRole("article");
      expect(await sources.count()).toBe(2);
      expect(await sources.nth(0).innerText()).toContain("shipped: 113");
      expect(await sources.nth(1).innerText()).toContain("Region: Total, Growth: 12%");
      await screenshot(page, "guide-detail");
      const detailUrl = new URL(page.url()).pathname;

      // Edit: saved contexts show without re-running; the change is saved.
      await page.getByRole("link", { name: "Edit", exact: true }).click();
      await page.waitForURL(/\/edit$/);
      expect(await guides.action(1, 1).innerText()).toContain("Saved context");
      await guides.field("Answer (optional)").fill("113 orders");
      await guides.save("Save changes");
      await page.waitForURL(/\?saved=1$/);
      expect(await page.getByRole("region", { name: "Answer" }).innerText()).toContain("113 orders");

      await guides.open();
      await guides.search("orders shipped");
      await expect.poll(() => guides.rows().first().innerText()).toContain("How many orders were shipped?");
      await guides.search("");
      await expect.poll(() => guides.rows().count()).toBeGreaterThanOrEqual(2);
      await screenshot(page, "guides-list");
      const before = await guides.rows().count();

      // Delete asks once more, then the guide is gone from the library.
      await page.goto(detailUrl);
      await page.getByRole("button", { name: "Delete…" }).click();
      await page.getByRole("button", { name: "Delete permanently" }).click();
      await page.waitForURL(/\/guides$/);
      await expect.poll(() => guides.rows().count()).toBe(before - 1);
      expect(await page.getByText("How many orders were shipped?").count()).toBe(0);
    } finally {
      await close();
    }
  });

  it("saves a run as a guide from /guides/new?fromRun, edited before saving, and the next similar question uses it", async () => {
    const { page, close } = await signedIn("ANALYST");
    try {
      const runId = await askViaApi(page, "How many orders were returned?");
      const guides = new GuidesPage(page);
      await page.goto(`/guides/new?fromRun=${runId}`);
      expect(await guides.field("Question").inputValue()).toBe("How many orders were returned?");
      expect(await guides.action(1, 1).getByLabel("SQL query").inputValue()).toMatch(/returned/);
      expect(await guides.action(1, 1).innerText()).toContain("Context from the run");
      await guides.field("Notes (optional)").fill("Returned orders have status 'returned'.");
      await guides.save();
      await page.waitForURL(/\/guides\/[^/]+\?saved=1$/);
      const guideId = new URL(page.url()).pathname.split("/").at(-1)!;

      const next = await askViaApi(page, "How many orders were returned in total?");
      const run = await storedRun(page, next);
      expect(run.result.guides.map((g) => g.guideId)).toContain(guideId);
      await page.goto(`/guides/${guideId}`);
      await expect.poll(() => guides.helpedRuns().count()).toBe(1);
      expect(await guides.helpedRuns().first().getAttribute("href")).toBe(`/ask?run=${next}`);
      expect(await page.getByText("Returned orders have status 'returned'.").count()).toBe(1);

      // The run it came from cannot be saved twice.
      await page.goto(`/guides/new?fromRun=${runId}`);
      expect(await page.getByRole("status").innerText()).toMatch(/already saved as the guide/);
    } finally {
      await close();
    }
  });
});

describe("feedback review", () => {
  it("a wrong-answer report reaches the analyst's queue, opens as its run, and is resolved into a guide", async () => {
    const question = "What is the hotel cap per night in Oslo?";
    const reporter = await signedIn("USER");
    let runId: string;
    try {
      runId = await askViaApi(reporter.page, question);
      await reporter.page.goto(`/ask?run=${runId}`);
      const feedback = reporter.page.getByTestId("feedback");
      await feedback.getByRole("button", { name: "Wrong" }).click();
      await feedback.getByLabel("Correct answer (optional)").fill("230 EUR");
      await feedback.getByLabel("Comment (optional)").fill("The cap was raised this year.");
      await feedback.getByRole("button", { name: "Send feedback" }).click();
      await feedback.getByTestId("feedback-saved").waitFor();
      // Business users have no review queue.
      const denied = await reporter.page.goto("/feedback");
      expect(denied?.status()).toBe(403);
    } finally {
      await reporter.close();
    }

    const { page, close } = await signedIn("ANALYST");
    try {
      const queue = new FeedbackPage(page);
      await queue.open();
      const item = queue.item(question);
      await item.waitFor();
      const text = await item.innerText();
      expect(text).toContain("Reported by Bo User");
      expect(text).toContain("210");
      expect(text).toContain("230 EUR");
      expect(text).toContain("The cap was raised this year.");
      expect(await item.getByRole("link", { name: /^Open run/ }).getAttribute("href")).toBe(`/ask?run=${runId}`);
      await screenshot(page, "feedback-queue");

      await queue.turnIntoGuide(question);
      const guides = new GuidesPage(page);
      expect(await guides.field("Correct answer").inputValue()).toBe("230 EUR");
      expect(await page.getByRole("region", { name: "Wrong-answer report" }).innerText()).toContain("The cap was raised this year.");
      await screenshot(page, "feedback-resolve-editor");
      await guides.save("Save guide and resolve report");
      await page.waitForURL(/\/guides\/[^/]+\?resolved=1$/);
      expect(await page.getByRole("status").first().innerText()).toContain("the report resolved");
      const answer = await page.getByRole("region", { name: "Answer" }).innerText();
      expect(answer).toMatch(/Corrections[\s\S]*The run answered[\s\S]*210[\s\S]*correct:\s*230 EUR/);

      await queue.open();
      await page.getByText("No open reports.").waitFor();
      await queue.showResolved();
      await expect.poll(() => queue.item(question).innerText()).toContain("Resolved with the guide");
    } finally {
      await close();
    }
  });
});
