import type { Page } from "playwright-core";

export class KnowledgeBasesPage {
  constructor(private readonly page: Page) {}

  async open() {
    await this.page.goto("/knowledge-bases");
  }

  row(name: string) {
    return this.page.getByTestId(`kb-row-${name}`);
  }

  async openKb(name: string) {
    await this.page.getByRole("link", { name, exact: true }).click();
    await this.page.waitForURL(/\/knowledge-bases\/(?!new$)[^/]+$/);
  }

  async register(input: { source: string; name: string; description?: string; files?: { name: string; mimeType: string; buffer: Buffer }[] }) {
    await this.page.goto("/knowledge-bases/new");
    const form = this.page.getByRole("form", { name: "Register a knowledge base" });
    await form.getByText(input.source, { exact: true }).click();
    await form.getByLabel("Name").fill(input.name);
    if (input.description) await form.getByLabel("Description").fill(input.description);
    if (input.files) await form.getByLabel(/^Files?$/).setInputFiles(input.files);
    await form.getByRole("button", { name: "Register" }).click();
  }

  descriptor() {
    return this.page.getByTestId("kb-descriptor");
  }

  sourceObjects() {
    return this.page.getByTestId("source-object-list").getByRole("button");
  }
}
