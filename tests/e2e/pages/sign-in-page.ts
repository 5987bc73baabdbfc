import type { Page } from "playwright-core";

export class SignInPage {
  constructor(private readonly page: Page) {}

  async open(callbackUrl?: string) {
    await this.page.goto(callbackUrl ? `/signin?callbackUrl=${encodeURIComponent(callbackUrl)}` : "/signin");
  }

  async signIn(email: string, password: string) {
    await this.page.getByLabel("Email").fill(email);
    await this.page.getByLabel("Password").fill(password);
    await this.page.getByRole("button", { name: "Sign in" }).click();
  }

  alert() {
    return this.page.getByRole("form", { name: "Sign in" }).getByRole("alert");
  }
}
