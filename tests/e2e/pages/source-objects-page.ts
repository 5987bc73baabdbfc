import type { Page } from "playwright-core";

export class SourceObjectsPage {
  constructor(private readonly page: Page) {}

  async open() {
    await this.page.goto("/source-objects");
  }

  async filter(f: { kb?: string; type?: "Text" | "Table" | "Graph" | "All"; tag?: string; search?: string }) {
    const bar = this.page.getByRole("region", { name: "Source objects" });
    if (f.kb) await bar.getByLabel("Knowledge base").selectOption({ label: f.kb });
    if (f.type) await bar.getByLabel("Type").selectOption({ label: f.type });
    if (f.tag) await bar.getByLabel("Tag").selectOption({ label: f.tag });
    if (f.search !== undefined) await bar.getByLabel("Search").fill(f.search);
  }

  items() {
    return this.page.getByTestId("source-object-list").getByRole("button");
  }

  async choose(name: string) {
    await this.items()
      .filter({ has: this.page.getByText(name, { exact: true }) })
      .click();
    await this.page.getByRole("heading", { level: 2, name }).waitFor();
  }

  detail() {
    return this.page.getByRole("region", { name: "Source object details" });
  }

  grid() {
    return this.detail().getByRole("table", { name: /^Preview of/ });
  }

  /** A row's checkbox by the number the preview shows (from 1). */
  row(index: number) {
    return this.grid().getByRole("checkbox", { name: new RegExp(`^Row ${index}:`) });
  }

  column(name: string) {
    return this.grid().getByRole("checkbox", { name: `Column ${name}`, exact: true });
  }

  async chooseDocument(title: string) {
    const select = this.detail().getByLabel("Document");
    const value = await select
      .locator("option", { hasText: `${title} (` })
      .first()
      .getAttribute("value");
    await select.selectOption(value!);
  }

  sentence(text: RegExp) {
    return this.detail().getByRole("checkbox", { name: text });
  }

  /** "Pick table cells" or "Pick sentences": the button that runs the selection. */
  async pick(what: "cells" | "sentences") {
    await this.detail()
      .getByRole("button", { name: `Pick these ${what}` })
      .click();
  }

  producedContext() {
    return this.detail().getByTestId("produced-context");
  }

  startGuideLink() {
    return this.detail().getByRole("link", { name: /Start an extraction guide with this action/ });
  }

  /** A database table's column notes and measures. */
  notesForm() {
    return this.detail().getByRole("form", { name: "Column notes and measures" });
  }

  editForm() {
    return this.detail().getByRole("form", { name: "Edit source object" });
  }
}
