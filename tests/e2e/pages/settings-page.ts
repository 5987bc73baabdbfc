import type { Page } from "playwright-core";

/** The Settings page: LLM endpoint, key, stages, requests and prices. */
export class SettingsPage {
  constructor(private readonly page: Page) {}

  async open() {
    return this.page.goto("/settings");
  }

  form() {
    return this.page.getByRole("form", { name: "LLM settings" });
  }

  status() {
    return this.page.getByTestId("llm-status");
  }

  keyStatus() {
    return this.page.getByTestId("llm-key-status");
  }

  testResult() {
    return this.page.getByTestId("llm-test-result");
  }

  async setEndpoint(baseUrl: string, model: string) {
    await this.form().getByLabel("Base URL").fill(baseUrl);
    await this.form().getByLabel("Default model").fill(model);
  }

  async setEnabled(on: boolean) {
    await this.form().getByLabel("Use an LLM for the enabled stages").setChecked(on);
  }

  /** Opens the key field (Replace key / Add a key) and types the key. */
  async typeKey(key: string) {
    const field = this.form().getByLabel("New API key");
    if (!(await field.isVisible()))
      await this.form()
        .getByRole("button", { name: /^(Replace key|Add a key)$/ })
        .click();
    await field.fill(key);
  }

  async clearKey() {
    await this.form().getByRole("button", { name: "Clear key" }).click();
  }

  async testConnection() {
    await this.form().getByRole("button", { name: "Test connection" }).click();
  }

  async setStage(label: string, on: boolean, model?: string) {
    await this.form().getByLabel(`Use the LLM for ${label.toLowerCase()}`).setChecked(on);
    if (model !== undefined) await this.form().getByLabel(`Model for ${label.toLowerCase()}`).fill(model);
  }

  stageModel(label: string) {
    return this.form().getByLabel(`Model for ${label.toLowerCase()}`);
  }

  stageEnabled(label: string) {
    return this.form().getByLabel(`Use the LLM for ${label.toLowerCase()}`);
  }

  async addPrice(model: string, input: string, output: string) {
    await this.form().getByRole("button", { name: "Add a price" }).click();
    const rows = this.form().getByLabel(/^Model of price \d+$/);
    const i = (await rows.count()) - 1;
    await rows.nth(i).fill(model);
    await this.form().getByLabel(`Input price of ${model}`).fill(input);
    await this.form().getByLabel(`Output price of ${model}`).fill(output);
  }

  async save() {
    await this.form().getByRole("button", { name: "Save settings" }).click();
  }
}
