import type { Page } from "playwright-core";

export class HistoryPage {
  constructor(private readonly page: Page) {}

  async open(query = "") {
    return this.page.goto(`/history${query}`);
  }

  searchBox() {
    return this.page.getByLabel("Search your questions");
  }

  async search(text: string) {
    await this.searchBox().fill(text);
  }

  rows() {
    return this.page.getByTestId("history-row");
  }

  count() {
    return this.page.getByTestId("history-count");
  }

  empty() {
    return this.page.getByTestId("history-empty");
  }

  async show(view: "Questions" | "Conversations") {
    await this.page.getByRole("group", { name: "Show" }).getByRole("button", { name: view }).click();
  }

  pageLabel() {
    return this.page.getByTestId("history-page");
  }
}
