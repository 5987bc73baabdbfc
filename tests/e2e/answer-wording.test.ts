import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { DEMO_KB_NAMES } from "@/lib/demo/seed-catalog";
import { AskPage } from "./pages/ask-page";
import { GuidesPage } from "./pages/guides-page";
import { SignInPage } from "./pages/sign-in-page";
import { launchBrowser, newPage, screenshot } from "./support/browser";

/** What the answer card says: identical evidence cited once, and refusals told by their cause in plain words. */

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function signedIn(
  role: "USER" | "ANALYST" = "USER",
): Promise<{ page: Page; context: BrowserContext; ask: AskPage; close: () => Promise<void> }> {
  const demo = DEMO_USERS.find((u) => u.role === role)!;
  const { context, page } = await newPage(browser);
  page.on("pageerror", (e) => console.log(`[pageerror] ${e.message}`));
  await new SignInPage(page).open();
  await new SignInPage(page).signIn(demo.email, demo.password);
  await page.waitForURL(/\/ask$/);
  return { page, context, ask: new AskPage(page), close: () => context.close() };
}

/** The internal vocabulary issue 17 found in answer explanations and reasons. */
const INTERNAL = /pieces|SQL aggregate|schema-linking|sparql-pattern|of the top \d|threshold|scored \d|\bstage\b/i;

describe("answer wording", () => {
  it("explains the source of an answer in plain words", async () => {
    const { page, ask, close } = await signedIn();
    try {
      await ask.open();
      await ask.ask("How many orders were returned?");
      expect(await ask.answerText()).toBe("7");
      expect(await ask.citations().count()).toBe(1);
      const card = await ask.answerCard().innerText();
      expect(card).toMatch(/From Aurora sales database: [a-z ,]+ matched the question best/);
      expect(card).not.toMatch(INTERNAL);
      await ask.showDetails();
      const panel = await ask.openCitationOfKind("row");
      // Retrieval modules are named in words, in the refinement path and in the stage list alike.
      const shown = await page.locator("main").innerText();
      expect(shown).toContain("Aurora sales database · database query");
      expect(shown).not.toMatch(/schema-linking|sparql-pattern/);
      // No ranking figures for people to read: not on the evidence, the candidate sources or the stages.
      expect(shown).not.toMatch(/relevance \d|score \d|similarity \d|confidence \d|\(\d\.\d+\)|\+\d\.\d{3}|\d+ rows\)|came back|\bok\b/);
      expect(await ask.result().getByTestId("candidate-match").first().innerText()).toBe("Best match");
      expect(await ask.stage("execute").getByTestId("stage-summary").innerText()).toMatch(/^Aurora sales database: returned 1 result/);
      await panel.scrollIntoViewIfNeeded();
      await screenshot(page, "ask-plain-source");
    } finally {
      await close();
    }
  });

  it("cites the same row once when an analyst's saved query and the pipeline's own query both return it, listing both queries", async () => {
    // An analyst writes a guide for the question, with a saved query of their own on the orders table.
    const savedQuery = "SELECT COUNT(*) AS \"number of orders\" FROM orders WHERE status = 'returned'";
    const analyst = await signedIn("ANALYST");
    try {
      const guides = new GuidesPage(analyst.page);
      await analyst.page.goto("/guides/new");
      await guides.field("Question").fill("How many orders were returned?");
      await guides.setKb(1, DEMO_KB_NAMES.sql);
      const object = guides.source(1).getByLabel("Source object of source 1 (optional)");
      await expect.poll(() => object.locator("option", { hasText: /^orders$/ }).count()).toBe(1);
      await object.selectOption({ label: "orders" });
      await guides.action(1, 1).getByLabel("SQL query").fill(savedQuery);
      await guides.runAction(1, 1);
      await expect.poll(() => guides.action(1, 1).getByTestId("produced-context").innerText()).toContain("number of orders: 7");
      await guides.save();
      await analyst.page.waitForURL(/\/guides\/[^/]+\?saved=1$/);
    } finally {
      await analyst.close();
    }

    // A business user asks it: the pipeline writes its own query too, and both return the row "number of orders: 7".
    const { page, ask, close } = await signedIn();
    try {
      await ask.open();
      await ask.ask("How many orders were returned?");
      expect(await ask.answerText()).toBe("7");
      expect(await ask.citations().count()).toBe(1);
      await ask.showDetails();
      const panel = await ask.openCitationOfKind("row");
      await expect.poll(() => panel.getByTestId("row-view").isVisible()).toBe(true);
      // One panel for the row, nowhere else among the evidence, naming every query that returned it.
      expect(await ask.evidencePanels().filter({ hasText: "number of orders: 7" }).count()).toBe(1);
      expect(await panel.getByTestId("evidence-query-count").innerText()).toMatch(/^returned by [2-9] queries$/);
      const queries = (await panel.getByTestId("native-query").locator("code").allInnerTexts()).map((q) => q.replace(/\s+/g, " ").trim());
      expect(queries.length).toBeGreaterThanOrEqual(2);
      expect(queries).toContain(savedQuery);
      expect(queries.some((q) => q !== savedQuery && /COUNT\(\*\)/i.test(q) && /returned/.test(q))).toBe(true);
      expect(await panel.getByTestId("native-query").first().locator("figcaption").innerText()).toMatch(/^Query 1 of \d · SQL/);
      await panel.scrollIntoViewIfNeeded();
      await screenshot(page, "ask-merged-citation");
    } finally {
      await close();
    }
  });

  it("a question no source knows the words of: one message, the same in the answer and in Candidate sources, saying what to do", async () => {
    const { page, ask, close } = await signedIn();
    try {
      await ask.open();
      // (A misspelling of the sources' words is read as them: "How many oders were retruned?" is answered.)
      await ask.ask("How many zorblaxes were frobnicated?");
      await ask.showDetails();
      // With the models' catalog embeddings such a question may still reach a source by meaning; when no
      // source matched, the answer and Candidate sources say the same thing.
      if ((await ask.result().getByTestId("no-candidate-sources").count()) > 0) {
        const reason = await ask.answerCard().getByTestId("refusal-reason").innerText();
        expect(reason).toBe(
          "Why: None of your sources mentions 'zorblaxes' and 'frobnicated', so no source was searched. Check the spelling, or choose the knowledge bases to search under “Knowledge bases” and ask again.",
        );
        expect(await ask.result().getByTestId("no-candidate-sources").innerText()).toBe(
          "No source matched the words of this question, so none was searched.",
        );
      }
      expect(await ask.result().innerText()).not.toMatch(/returned no evidence|No source was selected/);
      await screenshot(page, "ask-misspelt");
    } finally {
      await close();
    }
  });

  it("a question in German is told so, with no reason about what the sources hold", async () => {
    const { page, ask, close } = await signedIn();
    try {
      await ask.open();
      await ask.ask("Wie hoch war der Umsatz in Mitteleuropa im Jahr 2025?");
      const reason = await ask.answerCard().getByTestId("refusal-reason").innerText();
      expect(reason).toMatch(/^Why: This question looks like it is in German\. .*Please ask the question in English\.$/);
      expect(reason).not.toMatch(/region|Mitteleuropa|evidence/i);
      await screenshot(page, "ask-german");
    } finally {
      await close();
    }
  });

  it("a question the sources cannot answer is refused in plain words; an uncertain answer says it is the closest one", async () => {
    const { page, ask, close } = await signedIn();
    try {
      await ask.open();
      await ask.ask("What was the revenue of the Asia region in 2025?");
      expect(await ask.answerCard().getAttribute("data-status")).toBe("REFRAINED");
      expect(await ask.answerCard().getByTestId("refusal-reason").innerText()).toMatch(/Asia/);
      expect(await ask.answerCard().innerText()).not.toMatch(INTERNAL);
      // No source is marked as the one the answer came from when there is no answer.
      expect(await ask.result().getByText("Answered from here").count()).toBe(0);
      // The critic's rounds (one of them sends the question away from the database query) name no internal module.
      expect(await ask.result().innerText()).not.toMatch(/schema-linking|sparql-pattern|retrieval module/);
      await screenshot(page, "ask-refused-plain");
      await ask.ask("Who owns the travel policy?");
      expect(await ask.answerCard().getAttribute("data-certainty")).toBe("uncertain");
      expect(await ask.answerCard().getByTestId("uncertainty-note").innerText()).toMatch(
        /^Not certain — the closest answer in the sources is .+\.$/,
      );
      expect(await ask.answerCard().innerText()).not.toMatch(INTERNAL);
      await screenshot(page, "ask-uncertain-plain");
    } finally {
      await close();
    }
  });
});
