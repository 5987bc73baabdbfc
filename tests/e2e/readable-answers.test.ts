import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { AskPage } from "./pages/ask-page";
import { HistoryPage } from "./pages/history-page";
import { SignInPage } from "./pages/sign-in-page";
import { launchBrowser, newPage, screenshot } from "./support/browser";

/**
 * Answers as a business user reads them (issue 30): figures in the reader's locale with the unit and
 * currency the source states, a total for a breakdown that adds up; the answer, its citations and the
 * evidence in words by default, with ids, queries, linked names, scores and the refinement path behind
 * "Details"; no confidence on a refusal; graph facts called so; History saying what the answer card
 * said; one date format, the reader's.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function signedIn(role: "USER" | "ANALYST", reader?: { locale: string; timezoneId: string }) {
  const demo = DEMO_USERS.find((u) => u.role === role)!;
  const { context, page } = await newPage(browser, reader);
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  await new SignInPage(page).open();
  await new SignInPage(page).signIn(demo.email, demo.password);
  await page.waitForURL(/\/ask$/);
  return { page, ask: new AskPage(page), errors, close: () => context.close() };
}

async function statusOf(page: Page, question: string): Promise<string> {
  const history = new HistoryPage(page);
  await history.open(`?q=${encodeURIComponent(question)}`);
  const row = history.rows().filter({ hasText: question }).first();
  await row.waitFor();
  return row.getByTestId("run-status").innerText();
}

describe("answers a business user can read", () => {
  it("shows the answer, its citations and the evidence in words; ids, queries, scores and the refinement path under Details", async () => {
    const { page, ask, errors, close } = await signedIn("USER");
    try {
      await ask.open();
      await ask.ask("What was total revenue in 2024 by region?");
      const result = ask.result();
      expect(await result.getAttribute("data-details")).toBe("closed");
      expect(await ask.answerText()).toBe("Nordics: €24.1m; Central Europe: €11.0m; United Kingdom: €7.9m");
      expect(await ask.citations().count()).toBeGreaterThan(0);
      expect(await ask.answerCard().getByTestId("answer-total-row").innerText()).toBe("Total\t43.0");
      // The evidence reads as words: its kind, its source and what it says; no ids, no query code.
      const panel = await ask.openCitationOfKind("row");
      await expect.poll(() => panel.getByTestId("row-view").isVisible()).toBe(true);
      expect(await panel.getByTestId("evidence-kb").count()).toBe(1);
      expect(await panel.getByTestId("evidence-source-object").count()).toBe(0);
      expect(await panel.getByTestId("native-query").count()).toBe(0);
      const shown = await result.innerText();
      expect(shown).not.toMatch(/annual-report-2025-md#table-1|Linked entity|Refinement path|Candidate sources|Trace \(/);
      await screenshot(page, "ask-business-user-default");

      await result.getByTestId("details-toggle").click();
      expect(await result.getAttribute("data-details")).toBe("open");
      expect(await result.getByRole("heading", { name: "Refinement path" }).count()).toBe(1);
      expect(await result.getByRole("heading", { name: "Candidate sources" }).count()).toBe(1);
      expect(await panel.getByTestId("evidence-source-object").innerText()).toMatch(/#table-1$/);
      expect(await panel.getByTestId("native-query").count()).toBeGreaterThan(0);
      await screenshot(page, "ask-business-user-details");
      // Details stay open for the next question of the session, and close again on request.
      await result.getByTestId("details-toggle").click();
      expect(await result.getAttribute("data-details")).toBe("closed");
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("formats figures with the currency the source states, shows no confidence on a refusal, and calls graph facts so", async () => {
    const { page, ask, errors, close } = await signedIn("USER");
    try {
      await ask.open();
      // The sales database's description says its prices are in euros; an average is rounded to cents.
      await ask.ask("What is the average list price of products?");
      expect(await ask.answerText()).toMatch(/^€\d{1,3}(,\d{3})*(\.\d{2})?$/);
      await screenshot(page, "ask-currency");
      const priceCard = await ask.answerText();

      // Averages computed to many decimals: the card and the Stages panel's summaries show them rounded.
      await ask.ask("What is the average order value per customer segment?");
      expect(await ask.answerText()).toMatch(/€\d+\.\d{2}\b/);
      const summaries = await page.getByTestId("stage-summary").allInnerTexts();
      expect(summaries.join(" | ")).not.toMatch(/\d\.\d{3,}/);

      // History writes the figure as the card did, currency included.
      const history = new HistoryPage(page);
      await history.open(`?q=${encodeURIComponent("average list price")}`);
      const row = history.rows().filter({ hasText: "What is the average list price of products?" }).first();
      await row.waitFor();
      expect(await row.innerText()).toContain(priceCard);
      await ask.open();

      await ask.ask("What was the revenue of the Asia region in 2025?");
      expect(await ask.answerCard().getAttribute("data-status")).toBe("REFRAINED");
      expect(await ask.answerCard().getByTestId("answer-confidence").count()).toBe(0);
      await screenshot(page, "ask-refusal-no-confidence");

      await ask.ask("In which city is the company that makes the Fjord Down Jacket located?");
      const labels = await ask.citations().evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
      expect(labels.length).toBeGreaterThan(0);
      expect(labels.every((l) => !l.includes("Table row"))).toBe(true);
      expect(labels.some((l) => /Graph (fact|path) from Aurora product and organisation graph/.test(l))).toBe(true);
      // No "note" badge that cannot be opened: the run's notes are in the trace.
      expect(await ask.result().getByTestId("progress-round").innerText()).not.toMatch(/note/);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("lists each run in History with what its answer card said: answered, not certain, or no answer", async () => {
    const { page, ask, errors, close } = await signedIn("USER");
    try {
      await ask.open();
      await ask.ask("How many orders were returned?");
      expect(await ask.answerCard().getAttribute("data-certainty")).toBeNull();
      await ask.ask("Who owns the travel policy?");
      const uncertain = (await ask.answerCard().getAttribute("data-certainty")) === "uncertain";
      await ask.ask("What was the revenue of the Asia region in 2025?");

      expect(await statusOf(page, "How many orders were returned?")).toBe("Answered");
      // Whatever the card said of this one, History says the same.
      expect(await statusOf(page, "Who owns the travel policy?")).toBe(uncertain ? "Not certain" : "Answered");
      expect(await statusOf(page, "What was the revenue of the Asia region in 2025?")).toBe("No answer");
      await new HistoryPage(page).open();
      await screenshot(page, "history-status");
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("writes dates one way, the reader's: the answer's date and History's agree, in a German browser too", async () => {
    for (const [reader, pattern] of [
      [{ locale: "en-GB", timezoneId: "Europe/London" }, /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}$/],
      [{ locale: "de-DE", timezoneId: "Europe/Berlin" }, /^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/],
    ] as const) {
      const { page, ask, errors, close } = await signedIn("ANALYST", reader);
      try {
        await ask.open();
        const runId = await ask.ask("How many orders were returned?");
        const asked = await ask.result().getByTestId("run-question").locator("xpath=..").locator("time").first().innerText();
        expect(asked).toMatch(pattern);
        const history = new HistoryPage(page);
        await history.open();
        const row = history.rows().first();
        expect(await row.locator("time").innerText()).toMatch(pattern);
        // The same instant reads the same on both screens.
        await page.goto(`/ask?run=${runId}`);
        expect(await ask.result().locator("time").first().innerText()).toBe(asked);
        if (reader.locale === "de-DE") await screenshot(page, "history-dates-de");
        // No hydration mismatch between the server's first render and the reader's clock.
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }
  });
});
