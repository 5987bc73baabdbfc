import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { DEMO_KB_NAMES } from "@/lib/demo/seed-catalog";
import { AskPage } from "./pages/ask-page";
import { HistoryPage } from "./pages/history-page";
import { SignInPage } from "./pages/sign-in-page";
import { launchBrowser, newPage, screenshot } from "./support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

type Role = "ADMIN" | "ANALYST" | "USER";

async function signedIn(role: Role): Promise<{ page: Page; context: BrowserContext; ask: AskPage; close: () => Promise<void> }> {
  const demo = DEMO_USERS.find((u) => u.role === role)!;
  const { context, page } = await newPage(browser);
  page.on("pageerror", (e) => console.log(`[pageerror] ${e.message}`));
  page.on("console", (m) => m.type() === "error" && console.log(`[console] ${m.text()}`));
  await new SignInPage(page).open();
  await new SignInPage(page).signIn(demo.email, demo.password);
  await page.waitForURL(/\/ask$/);
  return { page, context, ask: new AskPage(page), close: () => context.close() };
}

/**
 * Records, on every change of a stage row's status, how many stages are done / pending and where the
 * answer box and the stage panel sit: streamed progress shows intermediate states, and a stable layout
 * keeps those positions fixed while events arrive.
 */
async function watchRun(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as {
      __watch: { done: number; pending: number; answerTop: number | null; panelHeight: number | null; live: boolean }[];
      __shift: number;
    };
    w.__watch = [];
    w.__shift = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & { value: number })[]) w.__shift += e.value;
    }).observe({ type: "layout-shift", buffered: false });
    new MutationObserver(() => {
      const live = document.querySelector('[data-testid="live-run"]');
      const scope = live ?? document;
      const rows = [...scope.querySelectorAll('[data-testid^="stage-"][data-status]')];
      if (!rows.length) return;
      const count = (s: string) => rows.filter((r) => r.getAttribute("data-status") === s).length;
      const box = document.querySelector('[data-testid="answer-placeholder"], [data-testid="run-result"] [data-testid="answer-card"]');
      const panel = scope.querySelector('[data-testid="stage-progress"]');
      w.__watch.push({
        done: count("done"),
        pending: count("pending"),
        answerTop: box ? Math.round(box.getBoundingClientRect().top + window.scrollY) : null,
        panelHeight: panel ? Math.round(panel.getBoundingClientRect().height) : null,
        live: !!live,
      });
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-status", "data-phase"] });
  });
  return async () =>
    page.evaluate(() => {
      const w = window as unknown as {
        __watch: { done: number; pending: number; answerTop: number | null; panelHeight: number | null; live: boolean }[];
        __shift: number;
      };
      return { snapshots: w.__watch, layoutShift: w.__shift };
    });
}

describe("asking on the demo catalog", () => {
  it("streams the stages, answers from a document passage and opens its panel from the citation (keyboard)", async () => {
    const { page, ask, close } = await signedIn("USER");
    try {
      await ask.open();
      expect(await page.getByTestId("ask-empty").innerText()).toContain(DEMO_KB_NAMES.sql);
      await screenshot(page, "ask-empty");

      const watched = await watchRun(page);
      const t0 = Date.now();
      await ask.ask("What percentage of products contained recycled or certified materials in 2025?");
      console.log(`[ask] answered after ${Date.now() - t0} ms`);
      const { snapshots, layoutShift } = await watched();
      const live = snapshots.filter((s) => s.live);
      // Streamed, not all at once: the browser showed the run part-way through, several times.
      expect(live.some((s) => s.done > 0 && s.pending > 0)).toBe(true);
      // Nothing jumps: the answer box keeps its place from placeholder to answer, the stage panel its height.
      const tops = new Set(snapshots.map((s) => s.answerTop).filter((t) => t !== null));
      expect([...tops]).toHaveLength(1);
      expect(new Set(live.map((s) => s.panelHeight)).size).toBe(1);
      console.log(`[ask] ${live.length} live progress states observed; layout shift during the run: ${layoutShift.toFixed(4)}`);

      expect(await ask.answerText()).toMatch(/68\s*(percent|%)/);
      // The confidence in words, the figure on hover.
      const confidence = ask.answerCard().getByTestId("answer-confidence");
      expect(await confidence.innerText()).toMatch(/likely right|may be right|not certain/);
      expect(await confidence.getAttribute("title")).toMatch(/^\d+% likely to be right$/);
      for (const stage of ["understand", "select", "formulate", "execute", "pool", "rerank", "select-evidence", "answer", "critique"]) {
        expect(await ask.result().getByTestId(`stage-${stage}`).getAttribute("data-status"), stage).toBe("done");
        expect(await ask.result().getByTestId(`stage-${stage}`).getByTestId("stage-duration").innerText(), stage).toMatch(
          /\d+(\.\d+)? (ms|s)/,
        );
      }
      expect(await ask.result().getByTestId("progress-total").innerText()).toMatch(/Total \d/);
      await ask.showDetails();

      // Keyboard: focus the citation marker, press Enter; the panel opens and takes focus.
      const labels = await ask.citations().evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
      const index = labels.findIndex((l) => l.includes("Document passage"));
      expect(index).toBeGreaterThanOrEqual(0);
      await ask.citations().nth(index).focus();
      await page.keyboard.press("Enter");
      const panel = ask.evidencePanel(index + 1);
      await expect.poll(() => panel.getByTestId("passage-view").isVisible()).toBe(true);
      expect(await panel.evaluate((el) => el.contains(document.activeElement))).toBe(true);
      expect(await panel.getByTestId("passage-document").innerText()).toBe("Aurora Outfitters Annual Report 2025");
      const marks = (await panel.getByTestId("term-hit").allInnerTexts()).map((t) => t.toLowerCase());
      expect(marks).toEqual(expect.arrayContaining(["recycled", "certified", "2025"]));
      expect(await panel.getByTestId("evidence-kb").innerText()).toContain(DEMO_KB_NAMES.documents);
      expect(await panel.getByTestId("query-language").innerText()).toBe("Search text");
      await screenshot(page, "ask-answer");
      await panel.scrollIntoViewIfNeeded();
      await page.screenshot({ path: "test-results/screenshots/ask-evidence-passage.png" });
      // Enter on the open panel's header closes it again.
      await page.keyboard.press("Enter");
      await expect.poll(() => panel.getByTestId("passage-view").count()).toBe(0);
    } finally {
      await close();
    }
  });

  it("answers from a table row inside a document, showing the table's name and column headers", async () => {
    const { page, ask, close } = await signedIn("USER");
    try {
      await ask.open();
      await ask.ask("What is the hotel cap per night in Oslo?");
      expect(await ask.answerText()).toContain("210");
      const panel = await ask.openCitationOfKind("row");
      await expect.poll(() => panel.getByTestId("row-view").isVisible()).toBe(true);
      expect(await panel.getByTestId("row-table").innerText()).toBe("Table 1 of Travel and Expense Policy");
      expect(await panel.getByRole("columnheader").allInnerTexts()).toEqual(["City", "Hotel cap per night (EUR)", "Per diem (EUR)"]);
      expect(await panel.locator("td[data-answer-cell]").allInnerTexts()).toContain("210");
      expect(await panel.getByRole("cell").first().innerText()).toBe("Oslo");
      await panel.scrollIntoViewIfNeeded();
      await page.screenshot({ path: "test-results/screenshots/ask-evidence-row.png" });
    } finally {
      await close();
    }
  });

  it("answers an SQL aggregate and shows the highlighted, copyable SQL that produced the row", async () => {
    const { page, context, ask, close } = await signedIn("USER");
    try {
      await context.grantPermissions(["clipboard-read", "clipboard-write"]);
      await ask.open();
      await ask.ask("How many orders were returned?");
      expect(await ask.answerText()).toMatch(/^7\b/);
      expect(await ask.answerCard().getByTestId("answer-source").innerText()).toBe(DEMO_KB_NAMES.sql);
      // The native query is a detail: a business user opens "Details" to see it.
      await ask.showDetails();
      const panel = await ask.openCitationOfKind("row");
      await expect.poll(() => panel.getByTestId("row-view").isVisible()).toBe(true);
      // The answer query returns exactly the count asked for.
      expect(await panel.getByRole("columnheader").allInnerTexts()).toEqual(["number of orders"]);
      // A count is computed by the query: the row names no stored table.
      expect(await panel.getByTestId("row-table").innerText()).toBe("Row computed by the query");
      expect(await panel.locator("h3").innerText()).toContain("number of orders: 7");
      expect(await panel.locator("h3").innerText()).not.toContain("Query result");
      expect(await panel.getByTestId("query-language").first().innerText()).toBe("SQL");
      // The same row may have come back from two queries: one panel, the first query first.
      const code = panel.getByTestId("native-query").first().locator("code");
      expect(await code.innerText()).toMatch(/COUNT\(\*\)/i);
      expect((await code.locator(".hljs-keyword").allInnerTexts()).map((k) => k.toUpperCase())).toEqual(
        expect.arrayContaining(["SELECT", "FROM", "WHERE"]),
      );
      await panel.getByRole("button", { name: "Copy the SQL query" }).first().click();
      await expect.poll(() => panel.getByRole("button", { name: "Copy the SQL query" }).first().innerText()).toBe("Copied");
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await code.innerText());
      await panel.scrollIntoViewIfNeeded();
      await page.screenshot({ path: "test-results/screenshots/ask-evidence-sql.png" });
    } finally {
      await close();
    }
  });

  it("answers an RDF fact with a readable triple, and shows candidate sources, a refusal and the refinement path", async () => {
    const { page, ask, close } = await signedIn("USER");
    try {
      await ask.open();
      await ask.ask("Who is the chief executive of Aurora Outfitters GmbH?");
      expect(await ask.answerText()).toContain("Anke Vogel");
      await ask.showDetails();
      const panel = await ask.openCitationOfKind("triple");
      await expect.poll(() => panel.getByTestId("triple-view").isVisible()).toBe(true);
      expect(await panel.getByTestId("triple-subject").innerText()).toBe("Anke Vogel");
      expect(await panel.getByTestId("triple-predicate").innerText()).toBe("chief executive of");
      expect(await panel.getByTestId("triple-object").innerText()).toBe("Aurora Outfitters GmbH");
      // The fact may have come back from two queries (the answer query and the entity's neighbourhood): one panel listing both.
      expect(new Set(await panel.getByTestId("query-language").allInnerTexts())).toEqual(new Set(["SPARQL"]));
      expect(await panel.getByTestId("native-query").first().locator(".hljs-variable").first().innerText()).toMatch(/^\?/);
      await panel.scrollIntoViewIfNeeded();
      await page.screenshot({ path: "test-results/screenshots/ask-evidence-triple.png" });

      const winner = ask.result().getByTestId("candidate").filter({ hasText: "Answered from here" });
      expect(await winner.innerText()).toContain(DEMO_KB_NAMES.sparql);
      expect(await ask.result().getByText("Answer kept").count()).toBe(1);

      // A question the critic sends back: the refusal with its reason, and every round as stored.
      const runId = await ask.ask("Where is Aurora Outfitters GmbH based?");
      const card = ask.answerCard();
      if ((await card.getAttribute("data-status")) === "REFRAINED")
        expect(await card.getByTestId("refusal-reason").innerText()).not.toBe("");
      const stored = (await (await page.request.get(`/api/runs/${runId}`)).json()) as {
        result: { iterations: { round: number; accepted: boolean; feedback: { detail: string } | null; change: string | null }[] };
      };
      const rounds = ask.refinementRounds();
      expect(await rounds.count()).toBe(stored.result.iterations.length);
      for (const [i, it] of stored.result.iterations.entries()) {
        const round = rounds.nth(i);
        expect(await round.getByRole("heading").innerText()).toBe(`Round ${it.round}`);
        if (it.feedback) expect(await round.getByTestId("round-feedback").innerText()).toContain(it.feedback.detail);
        if (it.change) expect(await round.getByTestId("round-change").innerText()).toBe(it.change);
        if (it.accepted) expect(await round.innerText()).toContain("Critic accepted");
      }
      console.log(`[ask] refinement path of "Where is Aurora Outfitters GmbH based?": ${stored.result.iterations.length} round(s)`);
      await screenshot(page, "ask-refusal");
      await page.getByRole("heading", { name: "Refinement path" }).evaluate((el) => el.scrollIntoView({ block: "start" }));
      await page.screenshot({ path: "test-results/screenshots/ask-refinement.png" });
    } finally {
      await close();
    }
  });

  it("shows a list answer with its count and every value behind 'Show all', and a breakdown as a table with a bar chart and its source", async () => {
    const { page, ask, close } = await signedIn("USER");
    try {
      await ask.open();
      await ask.ask("List the names of all customers.");
      const card = ask.answerCard();
      const shape = card.getByTestId("answer-shape");
      expect(await shape.getAttribute("data-shape")).toBe("list");
      expect(await card.getByTestId("answer-count").innerText()).toBe("12 values");
      expect(await card.getByTestId("answer-list-item").count()).toBe(10);
      await card.getByTestId("answer-show-all").click();
      await expect.poll(() => card.getByTestId("answer-list-item").count()).toBe(12);
      expect(await card.getByTestId("answer-list-item").allInnerTexts()).toEqual(
        expect.arrayContaining(["Alpenweg GmbH", "London Ramblers"]),
      );
      await card.getByTestId("answer-query").locator("summary").click();
      expect(await card.getByTestId("answer-query").innerText()).toMatch(/SELECT "name"\s+FROM "customers"/);
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: "test-results/screenshots/ask-answer-list.png" });

      await ask.ask("What was total revenue in 2024 by region?");
      const table = ask.answerCard().getByTestId("answer-table");
      expect(await table.getByRole("columnheader").allTextContents()).toEqual(["Region", "Revenue 2024 (EUR million)"]);
      // The header states the unit, the cells the figures; the breakdown adds up, so it has a total row.
      expect(await table.getByTestId("answer-table-row").allInnerTexts()).toEqual([
        "Nordics\t24.1",
        "Central Europe\t11.0",
        "United Kingdom\t7.9",
      ]);
      expect(await table.getByTestId("answer-total-row").innerText()).toBe("Total\t43.0");
      expect(await ask.answerText()).toMatch(/^Nordics: €24\.1m; Central Europe: €11\.0m; United Kingdom: €7\.9m$/);
      const chart = ask.answerCard().getByTestId("answer-chart");
      expect(await chart.getAttribute("data-chart-kind")).toBe("bar");
      await expect.poll(() => chart.locator(".recharts-bar-rectangle").count()).toBe(3);
      expect(await ask.answerText()).not.toContain("43.0");
      await ask.answerCard().scrollIntoViewIfNeeded();
      await page.screenshot({ path: "test-results/screenshots/ask-answer-breakdown.png" });
    } finally {
      await close();
    }
  });

  it("answers along a graph path and draws it as nodes and edges", async () => {
    const { page, ask, close } = await signedIn("USER");
    try {
      await ask.open();
      await ask.ask("In which city is the company that makes the Fjord Down Jacket located?");
      expect(await ask.answerText()).toContain("Oslo");
      await ask.showDetails();
      const panel = await ask.openCitationOfKind("path");
      const view = panel.getByTestId("path-view");
      await expect.poll(() => view.isVisible()).toBe(true);
      expect(await view.locator('svg[role="img"]').count()).toBe(1);
      const steps = await view.getByRole("list", { name: "Path as text" }).innerText();
      for (const name of ["Fjord Down Jacket", "made by", "Fjelltex Textiles", "located in", "Oslo"]) expect(steps).toContain(name);
      expect(await panel.getByTestId("query-language").innerText()).toBe("SPARQL");
      await panel.scrollIntoViewIfNeeded();
      await page.screenshot({ path: "test-results/screenshots/ask-evidence-path.png" });
    } finally {
      await close();
    }
  });

  it("continues a conversation with a follow-up completed from the thread, and starts a new one clean", async () => {
    const { page, ask, close } = await signedIn("USER");
    try {
      await ask.open();
      const first = "Who is the chief executive of Aurora Outfitters AB?";
      await ask.ask(first);
      expect(await ask.answerText()).toContain("Maria Lindqvist");
      expect(await page.getByText("Ask a follow-up").count()).toBe(1);
      await ask.ask("Where is it located?");
      expect(await ask.answerText()).toContain("Stockholm");
      expect(await ask.result().getByTestId("understood-as").innerText()).toContain("Aurora Outfitters AB");
      expect(await ask.thread().count()).toBe(1);
      expect(await ask.thread().first().innerText()).toContain(first);
      expect(await ask.thread().first().innerText()).toContain("Maria Lindqvist");
      await screenshot(page, "ask-follow-up");

      // The address reopens the run with its conversation.
      expect(page.url()).toMatch(/\/ask\?run=/);
      await page.reload();
      expect(await ask.answerText()).toContain("Stockholm");
      expect(await ask.thread().count()).toBe(1);
      await ask.ask("When was it founded?");
      expect(await ask.thread().count()).toBe(2);
      expect(await ask.result().getByTestId("understood-as").innerText()).toContain("When was Aurora Outfitters AB founded?");
      expect(await ask.answerText()).toContain("2004");

      await ask.newConversation();
      expect(await ask.thread().count()).toBe(0);
      expect(await page.getByText("Your question", { exact: true }).count()).toBe(1);
      expect(page.url()).toMatch(/\/ask$/);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("question");
    } finally {
      await close();
    }
  });

  it("cancels a run: the stream stops, the question comes back, and the run is stored as cancelled", async () => {
    const { page, ask, close } = await signedIn("USER");
    try {
      await ask.open();
      const question =
        "Which products, customers, orders, regions and categories of Aurora Outfitters GmbH, Aurora Outfitters AB, Summit 2 Tent, Trail Runner 2, Oslo, Stockholm, Munich, Anke Vogel and Maria Lindqvist were returned, shipped or cancelled in 2024 and 2025, with the hotel cap per night and per diem in EUR?";
      const t0 = Date.now();
      await ask.submit(question);
      await ask.live().waitFor();
      console.log(`[cancel] live after ${Date.now() - t0} ms`);
      await ask.cancelButton().click();
      console.log(`[cancel] clicked after ${Date.now() - t0} ms; phase ${await ask.live().getAttribute("data-phase")}`);
      await expect.poll(() => ask.live().getAttribute("data-phase"), { timeout: 20_000 }).toBe("cancelled");
      console.log(`[cancel] cancelled after ${Date.now() - t0} ms`);
      expect(await page.getByTestId("cancelled-notice").innerText()).toContain("You cancelled this run.");
      expect(await ask.questionBox().inputValue()).toBe(question);
      await screenshot(page, "ask-cancelled");

      // The server stopped the run when the request closed; History (read fresh each time) says so.
      const history = new HistoryPage(page);
      await expect
        .poll(
          async () => {
            await history.open(`?q=${encodeURIComponent("Summit 2 Tent, Trail Runner 2")}`);
            return (await history.rows().count()) === 1 ? history.rows().first().getByTestId("run-status").innerText() : "missing";
          },
          { timeout: 20_000, interval: 1_000 },
        )
        .toBe("Cancelled");
    } finally {
      await close();
    }
  });

  it("takes feedback: wrong with the correct answer, kept on reopening, and updated on resubmit", async () => {
    const { page, ask, close } = await signedIn("USER");
    try {
      await ask.open();
      const runId = await ask.ask("How many orders were returned?");
      const feedback = ask.feedback();
      await feedback.getByRole("button", { name: "Wrong" }).click();
      await feedback.getByLabel("Correct answer (optional)").fill("8");
      await feedback.getByLabel("Comment (optional)").fill("One return was booked in January.");
      await feedback.getByRole("button", { name: "Send feedback" }).click();
      await expect.poll(() => feedback.getByTestId("feedback-saved").innerText()).toContain("you marked this wrong (correct answer: 8)");
      await screenshot(page, "ask-feedback");

      await ask.open({ run: runId });
      expect(await ask.feedback().getByTestId("feedback-saved").innerText()).toContain("correct answer: 8");
      expect(await ask.feedback().getByRole("button", { name: "Wrong" }).getAttribute("aria-pressed")).toBe("true");
      await ask.feedback().getByRole("button", { name: "Helpful" }).click();
      await ask.feedback().getByRole("button", { name: "Update feedback" }).click();
      await expect.poll(() => ask.feedback().getByTestId("feedback-saved").innerText()).toContain("you marked this helpful");

      const history = new HistoryPage(page);
      await history.open();
      await history.search("orders were returned");
      await expect.poll(() => history.rows().filter({ hasText: "Marked helpful" }).count()).toBe(1);
    } finally {
      await close();
    }
  });

  it("shows what went wrong without stopping the run (a question cut to the limit) as a notice", async () => {
    const { ask, close } = await signedIn("USER");
    try {
      await ask.ask(`How many orders were returned? ${"Please count carefully. ".repeat(60)}`);
      expect(await ask.result().getByTestId("degradations").innerText()).toMatch(/only the first 1000 were used/);
      expect(await ask.answerText()).toMatch(/^7\b/);
    } finally {
      await close();
    }
  });

  it("offers 'Save as guide' to analysts only", async () => {
    const analyst = await signedIn("ANALYST");
    try {
      const runId = await analyst.ask.ask("How many customers are there?");
      const link = analyst.ask.answerCard().getByRole("link", { name: "Save as guide" });
      expect(await link.getAttribute("href")).toBe(`/guides/new?fromRun=${runId}`);
    } finally {
      await analyst.close();
    }
    const user = await signedIn("USER");
    try {
      await user.ask.ask("How many customers are there?");
      expect(await user.ask.answerCard().getByRole("link", { name: "Save as guide" }).count()).toBe(0);
    } finally {
      await user.close();
    }
  });
});

describe("access", () => {
  it("a user who may not use a KB never sees it or its evidence, nor other people's runs; an admin may open them", async () => {
    const kbName = "Project Nightjar files";
    const admin = await signedIn("ADMIN");
    try {
      await admin.page.goto("/knowledge-bases/new");
      const form = admin.page.getByRole("form", { name: "Register a knowledge base" });
      await form.getByText("Documents", { exact: true }).click();
      await form.getByLabel("Name").fill(kbName);
      await form.getByLabel("Description").fill("Confidential plans of Project Nightjar");
      await form.getByLabel(/^Files?$/).setInputFiles([
        {
          name: "nightjar.md",
          mimeType: "text/markdown",
          buffer: Buffer.from(
            "# Project Nightjar\n\nProject Nightjar is a confidential expansion plan into Iceland.\n\nThe budget of Project Nightjar is 4.2 million EUR, approved in March 2025.\n",
          ),
        },
      ]);
      await form.getByRole("group", { name: "Who may use it" }).getByLabel("Analysts", { exact: true }).check();
      await form.getByRole("button", { name: "Register" }).click();
      await admin.page.waitForURL(/\/knowledge-bases\/(?!new$)[^/]+$/, { timeout: 60_000 });
    } finally {
      await admin.close();
    }

    const question = "What is the budget of Project Nightjar?";
    let analystRunId: string;
    const analyst = await signedIn("ANALYST");
    try {
      // The KB answers for those who may use it, so the user's side below is not vacuous.
      analystRunId = await analyst.ask.ask(question);
      expect(await analyst.ask.answerText()).toContain("4.2");
      const panel = await analyst.ask.openCitationOfKind("passage");
      expect(await panel.getByTestId("evidence-kb").innerText()).toContain(kbName);
    } finally {
      await analyst.close();
    }

    const user = await signedIn("USER");
    try {
      await user.page.getByTestId("kb-picker-toggle").click();
      const offered = await user.page
        .getByTestId("kb-picker")
        .getByRole("checkbox")
        .evaluateAll((els) => els.map((e) => e.closest("label")?.textContent ?? ""));
      expect(offered).toHaveLength(3);
      expect(offered.join(" ")).not.toContain("Nightjar");
      await user.ask.ask(question);
      const kbsShown = await user.ask.evidencePanels().evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
      expect(kbsShown.every((l) => !l.includes(kbName))).toBe(true);
      expect(await user.ask.result().innerText()).not.toContain("Nightjar files");
      expect(await user.ask.result().innerText()).not.toMatch(/4\.2 (million|EUR)/);
      await screenshot(user.page, "ask-restricted-user");

      // Someone else's run is refused, whatever the address.
      await user.ask.open({ run: analystRunId });
      expect(await user.page.getByRole("alert").filter({ hasText: "does not exist or you may not open it" }).count()).toBe(1);
      expect(await user.ask.result().count()).toBe(0);
    } finally {
      await user.close();
    }

    const admin2 = await signedIn("ADMIN");
    try {
      await admin2.ask.open({ run: analystRunId });
      expect(await admin2.ask.answerText()).toContain("4.2");
      expect(await admin2.page.getByText(/Asked by Ana Analyst/).count()).toBe(1);
      // Leave the shared catalog as it was for the other suites.
      await admin2.page.goto("/knowledge-bases");
      await admin2.page.getByRole("link", { name: kbName, exact: true }).click();
      await admin2.page.getByRole("button", { name: "Delete knowledge base…" }).click();
      await admin2.page.getByLabel(`Type "${kbName}" to confirm`).fill(kbName);
      await admin2.page.getByRole("button", { name: "Delete permanently" }).click();
      await admin2.page.waitForURL(/\/knowledge-bases$/);
    } finally {
      await admin2.close();
    }
  }, 240_000);
});
