import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { DEMO_KB_NAMES } from "@/lib/demo/seed-catalog";
import { createDemoSalesDatabase } from "@/lib/demo/sales-database";
import { KnowledgeBasesPage } from "./pages/knowledge-bases-page";
import { SignInPage } from "./pages/sign-in-page";
import { launchBrowser, newPage, screenshot } from "./support/browser";
import { type OpenSearchServer, startOpenSearch } from "../support/services/opensearch";
import { startAppServer } from "../support/app-server";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await ownOpenSearch?.stop();
});

/**
 * The re-index test needs an OpenSearch node: TEST_OPENSEARCH_URL when one runs already, else the test
 * node (Java 17 + Maven, as test:services builds it), started on first use. CI always has them.
 */
const hasCommand = (cmd: string) => spawnSync(cmd, ["-version"], { stdio: "ignore" }).status === 0;
const canRunOpenSearch = Boolean(process.env.TEST_OPENSEARCH_URL) || process.env.CI === "true" || (hasCommand("java") && hasCommand("mvn"));
let ownOpenSearch: OpenSearchServer | undefined;
async function openSearchUrl(): Promise<string> {
  if (process.env.TEST_OPENSEARCH_URL) return process.env.TEST_OPENSEARCH_URL;
  ownOpenSearch ??= await startOpenSearch();
  return ownOpenSearch.url;
}

async function signedIn(role: "ADMIN" | "ANALYST"): Promise<{ page: Page; close: () => Promise<void> }> {
  const demo = DEMO_USERS.find((u) => u.role === role)!;
  const { context, page } = await newPage(browser);
  await new SignInPage(page).open();
  await new SignInPage(page).signIn(demo.email, demo.password);
  await page.waitForURL(/\/ask$/);
  return { page, close: () => context.close() };
}

describe("admin knowledge-base registry", () => {
  it("lists the demo catalog with health, and opens a KB's descriptor and source objects with a preview", async () => {
    const { page, close } = await signedIn("ADMIN");
    try {
      const kbs = new KnowledgeBasesPage(page);
      await kbs.open();
      for (const name of Object.values(DEMO_KB_NAMES)) {
        expect(await kbs.row(name).getByTestId("kb-status").innerText()).toBe("Healthy");
      }
      // Counts in words, singular for one: "3 documents · 12 passages · 1 table".
      expect(await kbs.row(DEMO_KB_NAMES.documents).getByTestId("kb-stats").innerText()).toMatch(
        /^\d+ documents? · \d+ passages? · \d+ tables?$/,
      );
      expect(await kbs.row(DEMO_KB_NAMES.sql).getByTestId("kb-stats").innerText()).toMatch(/^\d+ tables? · \d+ columns? · [\d,]+ rows?$/);
      const listText = await page.locator("main").innerText();
      expect(listText).not.toMatch(
        /\b1 (documents|passages|tables|rows|columns|source objects)\b|tableRows|failedDocuments|foreignKeys|chunks/,
      );
      await screenshot(page, "knowledge-bases-list");
      await kbs.openKb(DEMO_KB_NAMES.sql);
      // The page opens with what a person needs; the descriptor (DDL and all) is behind "Descriptor".
      expect(await page.getByTestId("kb-descriptor").isVisible()).toBe(false);
      expect(await page.getByTestId("kb-overview").innerText()).toMatch(
        /Health\s+Healthy[\s\S]+Size\s+\d+ tables[\s\S]+Who may use it\s+Every signed-in user/i, // labels are shown upper-case
      );
      expect(await (await kbs.descriptor()).innerText()).toContain("CREATE TABLE");
      expect(await kbs.contents().innerText()).toMatch(
        /Tables\s+\d+\s+Columns\s+\d+\s+Rows\s+[\d,]+\s+Foreign keys\s+\d+\s+Source objects\s+5\s+Indexed names/,
      );
      expect(await page.getByRole("region", { name: "Contents" }).innerText()).toContain("Engine");
      expect(await kbs.sourceObjects().count()).toBe(5);
      await kbs
        .sourceObjects()
        .filter({ has: page.getByText("products", { exact: true }) })
        .click();
      const grid = page.getByRole("table", { name: /Preview of/ });
      await expect.poll(() => grid.getByRole("row").count()).toBeGreaterThan(3);
      expect(await grid.innerText()).toContain("Summit 2 Tent");
      await screenshot(page, "knowledge-base-detail");

      await kbs.open();
      await kbs.openKb(DEMO_KB_NAMES.documents);
      const contents = await kbs.contents().innerText();
      expect(contents).toMatch(/Documents\s+\d+\s+Passages\s+\d+\s+Tables\s+\d+\s+Table rows\s+\d+\s+Unreadable documents\s+0/);
      expect(await kbs.contents().innerText()).not.toMatch(/tableRows|failedDocuments|foreignKeys|chunks/);
      await screenshot(page, "knowledge-base-detail-documents");
    } finally {
      await close();
    }
  });

  it("registers documents dropped on the upload zone (listed before sending, wrong types refused), then deletes the KB after typing its name", async () => {
    const { page, close } = await signedIn("ADMIN");
    try {
      const kbs = new KnowledgeBasesPage(page);
      const stoves = {
        name: "stoves.md",
        mimeType: "text/markdown",
        buffer: Buffer.from(
          "# Stove safety\n\nNever use a gas stove inside a tent. Ventilate well.\n\n| Stove | Max output (kW) |\n| --- | --- |\n| Flame One | 2.8 |\n| Flame Two | 3.4 |\n",
        ),
      };
      const picture = { name: "stove.png", mimeType: "image/png", buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47]) };
      await kbs.register(
        {
          source: "Documents",
          name: "Safety manuals",
          description: "Handling instructions for gas stoves",
          files: [stoves, picture],
          via: "drop",
        },
        false,
      );
      expect(await kbs.chosenFiles().allInnerTexts()).toEqual([expect.stringMatching(/^stoves\.md\s+\d+ bytes\s+Remove$/)]);
      expect(await kbs.form().getByRole("alert").innerText()).toContain(
        "Not added (only .txt, .md, .markdown, .html, .htm, .pdf, .csv, .json): stove.png",
      );
      await screenshot(page, "knowledge-base-upload-drop-zone");
      await kbs.form().getByRole("button", { name: "Register" }).click();
      await page.waitForURL(/\/knowledge-bases\/(?!new$)[^/]+$/, { timeout: 60_000 });
      expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Safety manuals");
      expect(await page.getByTestId("kb-status").first().innerText()).toBe("Healthy");
      await expect.poll(() => kbs.sourceObjects().count()).toBeGreaterThanOrEqual(2);
      expect(await kbs.contents().innerText()).toMatch(/Documents\s+1\s+Passages\s+\d+/);
      await kbs.open();
      expect(await kbs.row("Safety manuals").getByTestId("kb-stats").innerText()).toMatch(/^1 document · \d+ passages? · 1 table$/);
      await kbs.openKb("Safety manuals");

      await page.getByRole("button", { name: "Delete knowledge base…" }).click();
      const confirm = page.getByRole("button", { name: "Delete permanently" });
      expect(await confirm.isDisabled()).toBe(true);
      await page.getByLabel('Type "Safety manuals" to confirm').fill("Safety manuals");
      await confirm.click();
      await page.waitForURL(/\/knowledge-bases$/);
      expect(await kbs.row("Safety manuals").count()).toBe(0);
    } finally {
      await close();
    }
  });

  it("offers an OpenSearch cluster for a document collection and names why a connection test fails", async () => {
    const { page, close } = await signedIn("ADMIN");
    try {
      await page.goto("/knowledge-bases/new");
      const form = page.getByRole("form", { name: "Register a knowledge base" });
      await form.getByText("Documents", { exact: true }).click();
      // On this server by default: no cluster fields, no connection test.
      expect(await form.getByLabel("On this server").isChecked()).toBe(true);
      expect(await form.getByLabel("Cluster address (optional)").count()).toBe(0);
      await form.getByLabel(/In an OpenSearch cluster/).check();
      await form.getByLabel("Name").fill("Contracts archive");
      await form.getByLabel("Cluster address (optional)").fill("http://127.0.0.1:9");
      await form.getByLabel("User (optional)").fill("mosaic");
      await form.getByLabel("Password").fill("not-shown-again");
      await form.getByRole("button", { name: "Test connection" }).click();
      const alert = page.getByRole("alert").filter({ hasText: "Connection failed" });
      await expect.poll(() => alert.count(), { timeout: 30_000 }).toBe(1);
      expect(await alert.innerText()).toMatch(/OpenSearch at http:\/\/127\.0\.0\.1:9 refused the connection/);
      await screenshot(page, "knowledge-base-register-opensearch");
    } finally {
      await close();
    }
  });

  it("adds documents to a collection in the background and shows when they are in", async () => {
    const { page, close } = await signedIn("ADMIN");
    try {
      const kbs = new KnowledgeBasesPage(page);
      await kbs.register({
        source: "Documents",
        name: "Trail notes",
        files: [{ name: "trail.md", mimeType: "text/markdown", buffer: Buffer.from("# Trail\n\nThe north trail closes at dusk.\n") }],
      });
      await page.waitForURL(/\/knowledge-bases\/(?!new$)[^/]+$/, { timeout: 60_000 });
      const panel = page.getByTestId("add-documents");
      await panel
        .getByLabel(/^Files$/)
        .setInputFiles([
          { name: "huts.md", mimeType: "text/markdown", buffer: Buffer.from("# Huts\n\nThe ridge hut sleeps twelve and opens in June.\n") },
        ]);
      await panel.getByRole("button", { name: "Add to the collection" }).click();
      // Kept by the server, then added by its job processor; the page follows the job.
      await expect
        .poll(
          async () => (await panel.getByTestId("add-documents-status").count()) && panel.getByTestId("add-documents-status").innerText(),
          { timeout: 60_000 },
        )
        .toMatch(/^1 added, 0 replaced, 0 unchanged\.$/);
      await expect
        .poll(async () => (await kbs.descriptor()).innerText(), { timeout: 20_000 })
        .toMatch(/^Document collection "Trail notes": 2 documents/);
      await screenshot(page, "knowledge-base-add-documents");
    } finally {
      await close();
    }
  });

  it.skipIf(!canRunOpenSearch)(
    "re-indexes a collection in OpenSearch from its page, with its progress",
    async () => {
      const clusterUrl = await openSearchUrl();
      const { page, close } = await signedIn("ADMIN");
      try {
        const kbs = new KnowledgeBasesPage(page);
        await kbs.register(
          {
            source: "Documents",
            name: "Clustered notes",
            files: [{ name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from("# Notes\n\nThe east gate opens at seven.\n") }],
          },
          false,
        );
        const form = page.getByRole("form", { name: "Register a knowledge base" });
        await form.getByLabel(/In an OpenSearch cluster/).check();
        await form.getByLabel("Cluster address (optional)").fill(clusterUrl);
        await form.getByRole("button", { name: "Register" }).click();
        await page.waitForURL(/\/knowledge-bases\/(?!new$)[^/]+$/, { timeout: 60_000 });
        const panel = page.getByTestId("reindex");
        expect(await page.getByTestId("move-to-opensearch").count()).toBe(0);
        await panel.getByRole("button", { name: "Rebuild the index" }).click();
        await expect
          .poll(async () => (await panel.getByTestId("reindex-status").count()) && panel.getByTestId("reindex-status").innerText(), {
            timeout: 60_000,
          })
          .toMatch(/^Re-indexed with index layout \d+; the previous indexes were removed\./);
        await screenshot(page, "knowledge-base-reindex");
        await page.getByRole("button", { name: "Delete knowledge base…" }).click();
        await page.getByLabel('Type "Clustered notes" to confirm').fill("Clustered notes");
        await page.getByRole("button", { name: "Delete permanently" }).click();
        await page.waitForURL(/\/knowledge-bases$/);
      } finally {
        await close();
      }
      // Starting the test node (and building it where CI has not) comes on top of the test itself.
    },
    240_000,
  );

  it("offers to move a collection kept on this server to OpenSearch only where a cluster is configured, as a background job", async () => {
    // This server has no cluster (SEARCH_URL unset): a collection's page shows no OpenSearch panel.
    const plain = await signedIn("ADMIN");
    try {
      const kbs = new KnowledgeBasesPage(plain.page);
      await kbs.open();
      await kbs.openKb(DEMO_KB_NAMES.documents);
      expect(await plain.page.getByTestId("move-to-opensearch").count()).toBe(0);
      expect(await plain.page.getByText(/OpenSearch/).count()).toBe(0);
    } finally {
      await plain.close();
    }
    // A server configured with a cluster (here an address that refuses) offers the move.
    const configured = await startAppServer({ SEARCH_URL: "http://127.0.0.1:9" });
    const context = await browser.newContext({ baseURL: configured.baseUrl, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const close = async () => {
      await context.close();
      await configured.stop();
    };
    try {
      await new SignInPage(page).open();
      await new SignInPage(page).signIn("admin@mosaic.local", "admin-demo-pass");
      await page.waitForURL(/\/ask$/);
      const kbs = new KnowledgeBasesPage(page);
      await kbs.register({
        source: "Documents",
        name: "Field guides",
        files: [
          { name: "guide.md", mimeType: "text/markdown", buffer: Buffer.from("# Field guide\n\nPitch the tent away from the river.\n") },
        ],
      });
      await page.waitForURL(/\/knowledge-bases\/(?!new$)[^/]+$/, { timeout: 60_000 });
      const panel = page.getByTestId("move-to-opensearch");
      expect(await panel.getByRole("heading", { name: "Move to an OpenSearch cluster" }).count()).toBe(1);
      await panel.getByLabel("Cluster address (optional)").fill("http://127.0.0.1:9");
      await panel.getByRole("button", { name: "Move to OpenSearch" }).click();
      // Queued, then tried by the app's job processor (the address refuses, so it is retried, then fails with the cause).
      await expect.poll(() => panel.getByTestId("move-status").count(), { timeout: 20_000 }).toBe(1);
      expect((await panel.getByTestId("move-status").innerText()).length).toBeGreaterThan(5);
      await screenshot(page, "knowledge-base-move-to-opensearch");
      // The collection still answers from this server meanwhile.
      expect(await page.getByText("Document collection (SQLite FTS5 index)").count()).toBe(1);
      await page.getByRole("button", { name: "Delete knowledge base…" }).click();
      await page.getByLabel('Type "Field guides" to confirm').fill("Field guides");
      await page.getByRole("button", { name: "Delete permanently" }).click();
      await page.waitForURL(/\/knowledge-bases$/);
    } finally {
      await close();
    }
    // A second app instance starts and seeds on top of the test itself.
  }, 300_000);

  it("lists a collection's documents with their preview, and removes one after a confirmation", async () => {
    const { page, close } = await signedIn("ADMIN");
    try {
      const kbs = new KnowledgeBasesPage(page);
      const md = (name: string, text: string) => ({ name, mimeType: "text/markdown", buffer: Buffer.from(text) });
      await kbs.register({
        source: "Documents",
        name: "Orchard notes",
        files: [
          md("apples.md", "# Apples\n\nThe orchard grows apples on the north slope.\n"),
          md("pears.md", "# Pears\n\nPears ripen on the south slope in August.\n"),
        ],
      });
      await page.waitForURL(/\/knowledge-bases\/(?!new$)[^/]+$/, { timeout: 60_000 });
      expect(await kbs.documents().count()).toBe(2);
      expect(await page.getByTestId("kb-size").innerText()).toMatch(/^2 documents · /);

      const apples = kbs.document("Apples");
      await apples.getByRole("button", { name: "Preview Apples" }).click();
      await expect.poll(() => apples.getByTestId("document-preview").count()).toBe(1);
      expect(await apples.getByTestId("document-preview").innerText()).toContain("The orchard grows apples on the north slope.");

      // Removing asks first; "Keep it" keeps it.
      await apples.getByRole("button", { name: "Remove Apples" }).click();
      const dialog = page.getByRole("alertdialog", { name: "Remove Apples?" });
      expect(await dialog.innerText()).toContain("Its passages and vectors are deleted");
      await screenshot(page, "knowledge-base-document-remove-confirm");
      await dialog.getByRole("button", { name: "Keep it" }).click();
      expect(await dialog.count()).toBe(0);
      expect(await kbs.documents().count()).toBe(2);

      await apples.getByRole("button", { name: "Remove Apples" }).click();
      await page.getByRole("alertdialog", { name: "Remove Apples?" }).getByRole("button", { name: "Remove document" }).click();
      await expect.poll(() => page.getByTestId("document-removed").count(), { timeout: 30_000 }).toBe(1);
      expect(await page.getByTestId("document-removed").innerText()).toBe("Removed “Apples” from the collection.");
      await expect.poll(() => kbs.documents().allInnerTexts()).toEqual([expect.stringMatching(/^Pears\n/)]);
      await expect.poll(() => page.getByTestId("kb-size").innerText()).toMatch(/^1 document · /);
      expect(await (await kbs.descriptor()).innerText()).not.toContain("Apples");
      await screenshot(page, "knowledge-base-documents");

      await page.getByRole("button", { name: "Delete knowledge base…" }).click();
      await page.getByLabel('Type "Orchard notes" to confirm').fill("Orchard notes");
      await page.getByRole("button", { name: "Delete permanently" }).click();
      await page.waitForURL(/\/knowledge-bases$/);
    } finally {
      await close();
    }
  });

  it("names the uploaded file when a SQLite upload is cut short", async () => {
    const { page, close } = await signedIn("ADMIN");
    try {
      const kbs = new KnowledgeBasesPage(page);
      const dir = mkdtempSync(path.join(tmpdir(), "mosaic-e2e-sqlite-"));
      const file = path.join(dir, "shop-2025.sqlite");
      createDemoSalesDatabase(file);
      const bytes = readFileSync(file).subarray(0, 3000);
      rmSync(dir, { recursive: true, force: true });
      await kbs.register(
        {
          source: "SQLite database",
          name: "Shop copy",
          files: [{ name: "shop-2025.sqlite", mimeType: "application/octet-stream", buffer: Buffer.from(bytes) }],
        },
        true,
      );
      const alert = page.getByRole("alert").filter({ hasText: "shop-2025.sqlite is cut short" });
      await expect.poll(() => alert.count(), { timeout: 30_000 }).toBe(1);
      expect(await alert.innerText()).not.toContain("database.sqlite");
      await screenshot(page, "knowledge-base-upload-truncated-sqlite");
      await kbs.open();
      expect(await kbs.row("Shop copy").count()).toBe(0);
    } finally {
      await close();
    }
  });

  it("explains a malformed upload and registers nothing", async () => {
    const { page, close } = await signedIn("ADMIN");
    try {
      const kbs = new KnowledgeBasesPage(page);
      // Chosen from the keyboard: Tab reaches the upload zone and Space opens the file dialog.
      await kbs.register(
        {
          source: "SQLite database",
          name: "Not a database",
          files: [{ name: "fake.sqlite", mimeType: "application/octet-stream", buffer: Buffer.from("hello ".repeat(50)) }],
          via: "keyboard",
        },
        false,
      );
      expect(await kbs.chosenFiles().allInnerTexts()).toEqual([expect.stringMatching(/^fake\.sqlite\s+300 bytes\s+Remove$/)]);
      await kbs.form().getByRole("button", { name: "Register" }).click();
      await expect.poll(() => page.getByRole("alert").filter({ hasText: "fake.sqlite is not a SQLite database" }).count()).toBe(1);
      await kbs.open();
      expect(await kbs.row("Not a database").count()).toBe(0);
    } finally {
      await close();
    }
  });
});

describe("analyst source objects", () => {
  it("saves a query as a dynamic source object and refreshes it", async () => {
    const { page, close } = await signedIn("ANALYST");
    try {
      await page.goto("/source-objects");
      await page.getByRole("button", { name: "New saved query" }).click();
      const form = page.getByRole("form", { name: "New saved query" });
      await form.getByLabel("Knowledge base").selectOption({ label: DEMO_KB_NAMES.sql });
      await form.getByLabel("Name").fill("Orders per status");
      await form.getByLabel("Query").fill("DROP TABLE orders");
      await form.getByRole("button", { name: "Save query" }).click();
      await expect.poll(() => form.getByText(/refused/).count()).toBeGreaterThan(0);
      await form
        .getByLabel("Query")
        .fill(
          "SELECT status, COUNT(*) AS orders, MIN(order_date) AS first_order_date, MAX(order_date) AS last_order_date FROM orders WHERE status IS NOT NULL GROUP BY status ORDER BY status",
        );
      await form.getByRole("button", { name: "Save query" }).click();
      await expect.poll(() => page.getByRole("heading", { name: "Orders per status" }).count()).toBe(1);
      expect(await page.getByRole("table", { name: /Preview of/ }).innerText()).toContain("shipped");
      await page.getByRole("button", { name: "Refresh" }).click();
      await expect.poll(() => page.getByText(/Refreshed: 2 rows/).count()).toBe(1);
      // The one-line query wraps inside its box instead of running out of it.
      const saved = page.getByTestId("saved-query");
      expect(await saved.innerText()).toContain("last_order_date FROM orders");
      expect(await saved.evaluate((el) => el.scrollWidth <= el.clientWidth && getComputedStyle(el).whiteSpace === "pre-wrap")).toBe(true);
      expect(
        await page
          .getByRole("table", { name: /Preview of/ })
          .getByRole("rowheader")
          .first()
          .innerText(),
      ).toBe("1");
      await screenshot(page, "source-objects-dynamic");
    } finally {
      await close();
    }
  });
});
