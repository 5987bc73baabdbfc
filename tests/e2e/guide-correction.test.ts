import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { DEMO_KB_NAMES } from "@/lib/demo/seed-catalog";
import { AskPage } from "./pages/ask-page";
import { FeedbackPage } from "./pages/feedback-page";
import { GuidesPage } from "./pages/guides-page";
import { SignInPage } from "./pages/sign-in-page";
import { launchBrowser, newPage, screenshot } from "./support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function signedIn(role: "ANALYST" | "USER"): Promise<{ page: Page; close: () => Promise<void> }> {
  const demo = DEMO_USERS.find((u) => u.role === role)!;
  const { context, page } = await newPage(browser);
  await new SignInPage(page).open();
  await new SignInPage(page).signIn(demo.email, demo.password);
  await page.waitForURL(/\/ask$/);
  return { page, close: () => context.close() };
}

/**
 * The scenario, in the browser: a business user marks an answer Wrong with the right one; the
 * analyst turns the report into a guide with the query that answers it; asked again word for word, the
 * answer is the guide's result and says which guide gave it.
 */
describe("from a correction to a guide", () => {
  it("a Wrong report with the correct answer becomes a guide, and the next ask answers from it", async () => {
    const question = "What was the highest-selling product in 2024?";
    const correct = "Basecamp 4 Tent";
    const user = await signedIn("USER");
    try {
      const ask = new AskPage(user.page);
      await ask.open();
      const runId = await ask.ask(question);
      expect(await ask.result().innerText()).not.toMatch(new RegExp(`Answered with the analyst's guide`));
      await user.page.goto(`/ask?run=${runId}`);
      const feedback = user.page.getByTestId("feedback");
      await feedback.getByRole("button", { name: "Wrong" }).click();
      await feedback.getByLabel("Correct answer (optional)").fill(correct);
      await feedback.getByRole("button", { name: "Send feedback" }).click();
      await feedback.getByTestId("feedback-saved").waitFor();
    } finally {
      await user.close();
    }

    const analyst = await signedIn("ANALYST");
    try {
      const queue = new FeedbackPage(analyst.page);
      await queue.open();
      await queue.item(question).waitFor();
      await queue.turnIntoGuide(question);
      const guides = new GuidesPage(analyst.page);
      expect(await guides.field("Question").inputValue()).toBe(question);
      expect(await guides.field("Correct answer").inputValue()).toBe(correct);
      // The schema beside the editor: the demo SQL database's tables and columns.
      const schema = analyst.page.getByTestId("guide-schema");
      expect(await schema.innerText()).toContain(DEMO_KB_NAMES.sql);
      expect(await schema.innerText()).toMatch(/order_items[\s\S]*unit_price/);
      // None of the run's queries returns the corrected answer alone: the editor says so and waits for the analyst's query.
      expect(await analyst.page.getByText(/write the query that answers the question/).count()).toBe(1);
      if ((await guides.source(1).count()) === 0) await guides.editor().getByRole("button", { name: "Add a source" }).click();
      await guides.setKb(1, DEMO_KB_NAMES.sql);
      await guides
        .action(1, 1)
        .getByLabel("SQL query")
        .fill(
          "SELECT p.name, SUM(oi.quantity * oi.unit_price) AS revenue FROM order_items oi JOIN orders o ON o.order_id = oi.order_id JOIN products p ON p.product_id = oi.product_id WHERE strftime('%Y', o.order_date) = '2024' GROUP BY p.name ORDER BY revenue DESC LIMIT 1",
        );
      await guides.runAction(1, 1);
      await expect.poll(() => guides.action(1, 1).getByTestId("produced-context").innerText(), { timeout: 20_000 }).toContain(correct);
      await screenshot(analyst.page, "guide-from-correction-editor");
      await guides.save("Save guide and resolve report");
      await analyst.page.waitForURL(/\/guides\/[^/]+\?resolved=1$/);
      // "Check now" re-runs the guide's query: it runs, so no "no longer runs" flag.
      const health = analyst.page.getByTestId("guide-health");
      await health.getByRole("button", { name: "Check now" }).click();
      await expect.poll(() => health.innerText(), { timeout: 20_000 }).toContain("Its query runs.");
      expect(await health.innerText()).not.toContain("no longer runs");
      await screenshot(analyst.page, "guide-check-now");
    } finally {
      await analyst.close();
    }

    const again = await signedIn("USER");
    try {
      const ask = new AskPage(again.page);
      await ask.open();
      await ask.ask(question);
      const card = ask.result();
      await expect.poll(() => card.getByTestId("answer-guide").innerText()).toContain(`Answered with the analyst's guide ‘${question}’`);
      expect(await card.innerText()).toContain(correct);
      await screenshot(again.page, "answer-from-guide");
    } finally {
      await again.close();
    }
  });
});
