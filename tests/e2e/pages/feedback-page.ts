import type { Page } from "playwright-core";

export class FeedbackPage {
  constructor(private readonly page: Page) {}

  async open() {
    await this.page.goto("/feedback");
  }

  items() {
    return this.page.getByTestId("review-item");
  }

  item(question: string) {
    return this.items().filter({ has: this.page.getByRole("heading", { name: question, exact: true }) });
  }

  async showResolved() {
    await this.page.getByRole("group", { name: "Show reports" }).getByRole("button", { name: "Resolved" }).click();
  }

  async turnIntoGuide(question: string) {
    await this.item(question)
      .getByRole("link", { name: /^Turn into a guide/ })
      .click();
    await this.page.waitForURL(/\/guides\/new\?fromFeedback=/);
  }
}
