import type { Page } from "playwright-core";

export class GuidesPage {
  constructor(private readonly page: Page) {}

  async open() {
    await this.page.goto("/guides");
  }

  async search(q: string) {
    await this.page.getByLabel("Search").fill(q);
  }

  rows() {
    return this.page.getByTestId("guide-list").getByRole("listitem");
  }

  editor() {
    return this.page.getByRole("form", { name: "Extraction guide" });
  }

  /** A text field of the question-and-answer section, by its exact label ("Question", "Correct answer"...). */
  field(label: string) {
    return this.editor().getByRole("textbox", { name: label, exact: true });
  }

  source(n: number) {
    return this.page.getByTestId(`guide-source-${n}`);
  }

  action(n: number, j: number) {
    return this.page.getByTestId(`guide-action-${n}-${j}`);
  }

  async setKb(n: number, name: string) {
    await this.source(n).getByLabel(`Knowledge base of source ${n}`).selectOption({ label: name });
  }

  async setKind(n: number, j: number, kind: "Saved query" | "Pick table cells" | "Pick sentences" | "Graph neighborhood") {
    await this.action(n, j).getByLabel(`Action ${j} of source ${n}: kind`).selectOption({ label: kind });
  }

  async runAction(n: number, j: number) {
    await this.action(n, j)
      .getByRole("button", { name: `Run action ${j} of source ${n}` })
      .click();
  }

  async save(label = "Save guide") {
    await this.editor().getByRole("button", { name: label }).click();
  }

  helpedRuns() {
    return this.page.getByTestId("helped-runs").getByRole("link");
  }
}
