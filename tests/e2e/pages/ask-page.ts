import type { Locator, Page } from "playwright-core";

export type EvidenceKind = "passage" | "row" | "triple" | "path";

export class AskPage {
  constructor(private readonly page: Page) {}

  async open(params: { run?: string; conversation?: string } = {}) {
    const qs = params.run
      ? `?run=${encodeURIComponent(params.run)}`
      : params.conversation
        ? `?conversation=${encodeURIComponent(params.conversation)}`
        : "";
    return this.page.goto(`/ask${qs}`);
  }

  form() {
    return this.page.getByRole("form", { name: "Ask a question" });
  }

  questionBox() {
    return this.form().getByRole("textbox");
  }

  /** Types the question and presses Enter (the keyboard path); returns without waiting for the answer. */
  async submit(question: string) {
    await this.questionBox().fill(question);
    await this.questionBox().press("Enter");
  }

  /** Asks and waits until the finished run is shown; returns its id. */
  async ask(question: string): Promise<string> {
    const before = (await this.result().count()) ? await this.result().getAttribute("data-run-id") : null;
    await this.submit(question);
    await this.page.waitForFunction(
      ([prev, q]) => {
        const el = document.querySelector('[data-testid="run-result"]');
        const shown = el?.querySelector('[data-testid="run-question"]')?.textContent ?? "";
        // A question over the limit is stored (and shown) cut, so the shown text is a prefix of the asked one.
        return !!el && el.getAttribute("data-run-id") !== prev && shown.length > 0 && q.startsWith(shown);
      },
      [before, question.replace(/\s+/g, " ").trim()] as const,
      { timeout: 60_000 },
    );
    return (await this.result().getAttribute("data-run-id"))!;
  }

  result() {
    return this.page.getByTestId("run-result");
  }

  live() {
    return this.page.getByTestId("live-run");
  }

  stage(id: string) {
    return this.page.getByTestId(`stage-${id}`);
  }

  cancelButton() {
    return this.form().getByRole("button", { name: "Cancel" });
  }

  answerCard() {
    return this.result().getByTestId("answer-card");
  }

  answerText() {
    return this.answerCard().getByTestId("answer-text").innerText();
  }

  citations() {
    return this.answerCard().getByTestId("citation");
  }

  /** Clicks the first citation marker whose evidence is of this kind; returns the panel it opened. */
  async openCitationOfKind(kind: EvidenceKind): Promise<Locator> {
    const labels = await this.citations().evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
    const index = labels.findIndex((l) => l.toLowerCase().includes(KIND_WORDS[kind]));
    if (index < 0) throw new Error(`No citation of kind ${kind} among: ${labels.join(" | ")}`);
    const number = Number(/^Evidence \[(\d+)\]:/.exec(labels[index])?.[1]);
    await this.citations().nth(index).click();
    return this.evidencePanel(number);
  }

  evidencePanel(number: number) {
    return this.page.getByRole("region", { name: new RegExp(`^Evidence ${number}: `) });
  }

  evidencePanels() {
    return this.page.getByTestId("evidence-panel");
  }

  /** Opens "Details" (ids, native queries, refinement path, candidate sources, trace) where it is closed: a business user's default. */
  async showDetails() {
    if ((await this.result().getAttribute("data-details")) === "closed") await this.result().getByTestId("details-toggle").click();
    await this.page.waitForFunction(() => document.querySelector('[data-testid="run-result"]')?.getAttribute("data-details") === "open");
  }

  refinementRounds() {
    return this.result().getByTestId("refinement-round");
  }

  thread() {
    return this.page.getByTestId("thread-turn");
  }

  feedback() {
    return this.result().getByTestId("feedback");
  }

  async newConversation() {
    await this.page.getByRole("button", { name: "New conversation" }).click();
  }
}

const KIND_WORDS: Record<EvidenceKind, string> = {
  passage: "document passage",
  row: "table row",
  triple: "graph fact",
  path: "graph path",
};
