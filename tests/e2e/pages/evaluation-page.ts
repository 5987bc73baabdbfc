import type { Page } from "playwright-core";

export class EvaluationPage {
  constructor(private readonly page: Page) {}

  async open(query = "") {
    await this.page.goto(`/evaluation${query}`);
  }

  tab(name: "Runs and reports" | "Compare" | "Author a suite") {
    return this.page.getByRole("tab", { name });
  }

  runForm() {
    return this.page.getByRole("form", { name: "Run a suite" });
  }

  async startRun(input: { suite: string; questions?: string; seed?: string; label?: string; config?: string }) {
    const form = this.runForm();
    await form.getByLabel("Suite").selectOption({ label: input.suite });
    if (input.questions !== undefined) await form.getByLabel("Questions").fill(input.questions);
    if (input.seed !== undefined) await form.getByLabel("Seed").fill(input.seed);
    if (input.label !== undefined) await form.getByLabel("Label (optional)").fill(input.label);
    if (input.config !== undefined) {
      await form.getByText("Pipeline settings").click();
      await form.getByLabel("Overrides (JSON)").fill(input.config);
    }
    await form.getByRole("button", { name: "Start run" }).click();
  }

  reportList() {
    return this.page.getByTestId("report-list");
  }

  report() {
    return this.page.getByTestId("report-view");
  }

  status() {
    return this.report()
      .locator("header")
      .getByText(/^(Queued|Running|Done|Failed|Cancelled|Interrupted)$/);
  }

  metricCards() {
    return this.page.getByTestId("metric-cards");
  }

  questionTable() {
    return this.page.getByTestId("question-table");
  }

  async showQuestions(filter: "Wrong" | "All" | "Right" | "Refrained" | "Errors") {
    await this.page.getByRole("group", { name: "Show" }).getByRole("button", { name: filter, exact: true }).click();
  }

  chart(title: string) {
    return this.page.locator("figure").filter({ has: this.page.getByText(title, { exact: true }) });
  }
}
