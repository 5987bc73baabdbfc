import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { AskPage } from "./pages/ask-page";
import { SignInPage } from "./pages/sign-in-page";
import { launchBrowser, newPage } from "./support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function signedIn(): Promise<{ page: Page; ask: AskPage; close: () => Promise<void> }> {
  const demo = DEMO_USERS.find((u) => u.role === "ANALYST")!;
  const { context, page } = await newPage(browser);
  await new SignInPage(page).open();
  await new SignInPage(page).signIn(demo.email, demo.password);
  await page.waitForURL(/\/ask$/);
  return { page, ask: new AskPage(page), close: () => context.close() };
}

interface StoredRun {
  status: string;
  result: { winner: { kbName: string } | null; evidence: { piece: { provenance: { language: string; query: string } } }[] };
}

describe("candidate sources and document searches on the Ask screen", () => {
  it("marks no candidate source 'Answered from here' on a run that gave no answer", async () => {
    const { page, ask, close } = await signedIn();
    try {
      await ask.open();
      const runId = await ask.ask("What is the warranty of the Quantum Flux Capacitor?");
      expect(await ask.answerCard().getAttribute("data-status")).toBe("REFRAINED");
      // Evidence selection still named a best source: that is what the badge used to show.
      const stored = (await (await page.request.get(`/api/runs/${runId}`)).json()) as StoredRun;
      expect(stored.result.winner).not.toBeNull();
      const candidates = ask.result().getByTestId("candidate");
      expect(await candidates.count()).toBeGreaterThan(0);
      expect(await ask.result().getByTestId("answered-from-here").count()).toBe(0);
      expect(await ask.result().getByTestId("candidate-sources").innerText()).not.toContain("Answered from here");
      await page.getByRole("heading", { name: "Candidate sources" }).evaluate((el) => el.scrollIntoView({ block: "start" }));
      await page.screenshot({ path: "test-results/screenshots/ask-candidates-refused.png" });

      // An answered run keeps the badge on the source it answered from.
      await ask.ask("Who is the chief executive of Aurora Outfitters GmbH?");
      expect(await ask.answerCard().getAttribute("data-status")).toBe("ANSWERED");
      expect(await ask.result().getByTestId("answered-from-here").count()).toBe(1);
    } finally {
      await close();
    }
  });

  it("shows a document search in the question's own words, not their stems", async () => {
    const { page, ask, close } = await signedIn();
    try {
      await ask.open();
      await ask.ask("What is the refund policy for returned orders?");
      // What people read has the words alone, in the refinement path and on the evidence (the search that
      // ran keeps its stems: components/evidence/search-words.ts changes only what is shown).
      const round = ask.refinementRounds().first();
      const search = round.locator("details").filter({ hasText: "· search" }).first();
      await search.locator("summary").click();
      const shown = await search.getByTestId("native-query").locator("pre").innerText();
      expect(shown).toMatch(/\bpolicy\b/);
      expect(shown.split(/\s+/)).not.toContain("polici");
      expect(shown.split(/\s+/).filter((w) => w === "return" || w === "order")).toEqual([]);
      await search.scrollIntoViewIfNeeded();
      await page.screenshot({ path: "test-results/screenshots/ask-search-words.png" });
      const panels = page
        .getByTestId("native-query")
        .filter({ has: page.getByTestId("query-language").getByText("Search text", { exact: true }) });
      for (const text of await panels.locator("pre").allInnerTexts()) expect(text.split(/\s+/)).not.toContain("polici");
    } finally {
      await close();
    }
  });
});
