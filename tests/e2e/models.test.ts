import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { DEMO_KB_NAMES } from "@/lib/demo/seed-catalog";
import { AskPage } from "./pages/ask-page";
import { KnowledgeBasesPage } from "./pages/knowledge-bases-page";
import { ModelsSection } from "./pages/models-section";
import { SignInPage } from "./pages/sign-in-page";
import { launchBrowser, newPage, screenshot } from "./support/browser";

/**
 * The model runtime as an admin and a user meet it in the built app (models from ../shared/models):
 * Settings shows the loaded embedder with its precision and checksum and the worker pool; the demo
 * collection is embedded in the background with its progress on its page; a document answer's
 * evidence says its search was hybrid, with the weights.
 */

let browser: Browser;
const admin = DEMO_USERS.find((u) => u.role === "ADMIN")!;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function signIn(page: Page) {
  await new SignInPage(page).open();
  await new SignInPage(page).signIn(admin.email, admin.password);
  await page.waitForURL(/\/ask$/);
}

describe("ranking models", () => {
  it("Settings shows the loaded embedder (name, precision, size, where it runs); checksum, graph and queue under Technical details", async () => {
    const { context, page } = await newPage(browser);
    try {
      await signIn(page);
      await page.goto("/settings");
      const models = new ModelsSection(page);
      await expect.poll(() => models.status().innerText()).toBe("On");
      const row = models.loadedModels().getByTestId("loaded-model").first();
      expect(await row.innerText()).toMatch(/Embedding\s+all-MiniLM-L6-v2\s+int8\s+21\.9 MB\s+models folder/);
      expect(await models.runtime().innerText()).toMatch(/this server's worker threads/);
      // Internals (checksums, the fused graph's check, batches) are not in the main view.
      const technical = models.form().getByTestId("model-technical");
      expect(await technical.getByTestId("model-queue").isVisible()).toBe(false);
      await technical.locator("summary").click();
      expect(await technical.getByTestId("model-checksum").first().innerText()).toMatch(/^sha256 d43d6b239de5449c/);
      expect(await technical.getByTestId("model-graph").first().innerText()).toMatch(/^Graph: self-attention fused in 6 layers/);
      expect(await technical.getByTestId("model-queue").innerText()).toMatch(/\d+ texts? waiting/);
      await models.form().scrollIntoViewIfNeeded();
      await screenshot(page, "settings-models");
    } finally {
      await context.close();
    }
  });

  it("the demo collection is embedded in the background, with its progress on its page, then searched hybrid", async () => {
    const { context, page } = await newPage(browser);
    try {
      await signIn(page);
      const kbs = new KnowledgeBasesPage(page);
      await kbs.open();
      await kbs.openKb(DEMO_KB_NAMES.documents);
      const box = new ModelsSection(page).embedding();
      expect(await box.getByRole("heading").innerText()).toBe("Semantic search");
      await expect
        .poll(() => box.getByTestId("embedding-status").innerText(), { timeout: 120_000, interval: 1_000 })
        .toBe("Searched by keywords and by meaning (hybrid).");
      expect(await box.getByTestId("embedding-count").innerText()).toMatch(
        /^(\d+) of \1 passages and table rows embedded \(100%\) with all-MiniLM-L6-v2 \(int8\)$/,
      );
      await screenshot(page, "kb-embedding-done");

      const ask = new AskPage(page);
      await ask.open();
      await ask.ask("What percentage of products contained recycled or certified materials in 2025?");
      expect(await ask.answerText()).toMatch(/68\s*(percent|%)/);
      const panel = await ask.openCitationOfKind("passage");
      const code = panel.getByTestId("native-query").first().locator("code");
      // The search's keywords for BM25; the vectors were searched with the question as asked, and the note says so.
      expect(await code.innerText()).toContain(
        '[hybrid search: BM25 (SQLite FTS5) + vector similarity (all-MiniLM-L6-v2, int8), weighted blend of normalised BM25 and cosine similarity, weights BM25 0.50 : vector 0.50; vector similarity to "What percentage of products contained recycled or certified materials in 2025?"]',
      );
      await panel.scrollIntoViewIfNeeded();
      await screenshot(page, "ask-evidence-hybrid");
    } finally {
      await context.close();
    }
  });
});
