import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { AskPage } from "./pages/ask-page";
import { HistoryPage } from "./pages/history-page";
import { SignInPage } from "./pages/sign-in-page";
import { UsersPage } from "./pages/users-page";
import { launchBrowser, newPage, screenshot } from "./support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function signIn(page: Page, email: string, password: string) {
  await new SignInPage(page).open();
  await new SignInPage(page).signIn(email, password);
  await page.waitForURL(/\/ask$/);
}

/** Asks through the same streaming endpoint the Ask screen uses; returns the result line. */
async function askApi(
  page: Page,
  question: string,
  conversationId?: string,
): Promise<{ runId: string; conversationId: string; status: string }> {
  const res = await page.request.post("/api/runs", { data: { question, conversationId } });
  expect(res.status()).toBe(200);
  const lines = (await res.text())
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { result?: { runId: string; conversationId: string; status: string } });
  const result = lines.at(-1)?.result;
  if (!result) throw new Error(`No result for "${question}"`);
  return result;
}

describe("history", () => {
  it("lists a person's runs a page at a time, searches them on the server and reopens one in full", async () => {
    const { context, page } = await newPage(browser);
    try {
      await signIn(page, "admin@mosaic.local", "admin-demo-pass");
      const users = new UsersPage(page);
      await users.open();
      await users.createUser({
        email: "hana@example.com",
        name: "Hana History",
        password: "hana-pass-123",
        role: "Business user",
        groups: ["Everyone"],
      });
      await expect.poll(() => users.createForm().getByRole("status").innerText()).toContain("Created hana@example.com");
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL(/\/signin/);
      await signIn(page, "hana@example.com", "hana-pass-123");

      const history = new HistoryPage(page);
      await history.open();
      expect(await history.empty().innerText()).toContain("You have not asked anything yet");
      expect(await history.empty().getByRole("link", { name: "Ask your first question" }).getAttribute("href")).toBe("/ask");
      await screenshot(page, "history-empty");

      const returned = await askApi(page, "How many orders were returned?");
      const ceo = await askApi(page, "Who is the chief executive of Aurora Outfitters AB?");
      await askApi(page, "Where is it located?", ceo.conversationId);
      for (let i = 1; i <= 19; i++) await askApi(page, `How many orders were shipped in region ${i}?`);

      await history.open();
      expect(await history.count().innerText()).toBe("22 questions");
      expect(await history.rows().count()).toBe(20);
      expect(await history.pageLabel().innerText()).toBe("Page 1 of 2");
      expect(await history.rows().first().innerText()).toContain("region 19");
      await screenshot(page, "history");
      await page.getByRole("button", { name: "Next" }).click();
      await expect.poll(() => history.pageLabel().innerText()).toBe("Page 2 of 2");
      await expect.poll(() => history.rows().count()).toBe(2);
      expect(await history.rows().allInnerTexts()).toEqual([
        expect.stringContaining("Aurora Outfitters AB"),
        expect.stringContaining("orders were returned"),
      ]);
      expect(page.url()).toMatch(/page=2/);

      await history.search("RETURNED");
      await expect.poll(() => history.count().innerText()).toBe("1 question matching “RETURNED”");
      expect(await history.rows().first().innerText()).toContain("Answered");
      await history.rows().first().getByRole("link").click();
      await page.waitForURL(new RegExp(`/ask\\?run=${returned.runId}$`));
      const ask = new AskPage(page);
      expect(await ask.answerText()).toMatch(/^7\b/);
      await ask.showDetails();
      const panel = await ask.openCitationOfKind("row");
      expect(await panel.getByTestId("query-language").first().innerText()).toBe("SQL");
      expect(await ask.refinementRounds().count()).toBeGreaterThanOrEqual(1);
      expect(await ask.result().getByTestId("stage-answer").getAttribute("data-status")).toBe("done");

      await page.goBack();
      await history.open("?q=zzz-nothing-like-this");
      expect(await history.empty().innerText()).toContain("Nothing matches “zzz-nothing-like-this”");
      await history.empty().getByRole("button", { name: "clear the search" }).click();
      await expect.poll(() => history.rows().count()).toBe(20);
    } finally {
      await context.close();
    }
  });

  it("lists conversations and reopens one to continue it, with its earlier questions as the thread", async () => {
    const { context, page } = await newPage(browser);
    try {
      await signIn(page, "hana@example.com", "hana-pass-123");
      const history = new HistoryPage(page);
      await history.open();
      await history.show("Conversations");
      await expect.poll(() => history.count().innerText()).toBe("21 conversations");
      await history.search("located");
      await expect.poll(() => history.rows().count()).toBe(1);
      const row = history.rows().first();
      expect(await row.innerText()).toContain("2 questions");
      expect(await row.innerText()).toContain("Who is the chief executive of Aurora Outfitters AB?");
      await screenshot(page, "history-conversations");
      await row.getByRole("link").click();
      await page.waitForURL(/\/ask\?conversation=/);
      const ask = new AskPage(page);
      expect(await ask.answerText()).toContain("Stockholm");
      expect(await ask.thread().count()).toBe(1);
      await ask.ask("When was it founded?");
      expect(await ask.thread().count()).toBe(2);
      expect(await ask.result().getByTestId("understood-as").innerText()).toContain("Aurora Outfitters AB");
      expect(await ask.answerText()).toContain("2004");

      await history.open("?view=conversations&q=located");
      await expect.poll(() => history.rows().first().innerText()).toContain("3 questions");
    } finally {
      await context.close();
    }
  });

  it("refuses to reopen another user's run", async () => {
    const { context, page } = await newPage(browser);
    try {
      await signIn(page, "hana@example.com", "hana-pass-123");
      const mine = await askApi(page, "How many customers are there?");
      await context.clearCookies();
      const demoUser = DEMO_USERS.find((u) => u.role === "USER")!;
      await signIn(page, demoUser.email, demoUser.password);
      const ask = new AskPage(page);
      await ask.open({ run: mine.runId });
      expect(await page.getByRole("alert").filter({ hasText: "does not exist or you may not open it" }).count()).toBe(1);
      expect(await ask.result().count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
