import type { Page } from "playwright-core";

export class Shell {
  constructor(private readonly page: Page) {}

  async navLabels(): Promise<string[]> {
    return this.page.getByRole("navigation", { name: "Main" }).getByRole("link").allInnerTexts();
  }

  currentRole() {
    return this.page.getByTestId("current-user-role");
  }

  async signOut() {
    await this.page.getByRole("button", { name: "Sign out" }).click();
    await this.page.waitForURL(/\/signin/);
  }
}
