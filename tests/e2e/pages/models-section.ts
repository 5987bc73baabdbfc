import type { Page } from "playwright-core";

/** Settings → Ranking models, and a document collection's "Semantic search" box on its page. */
export class ModelsSection {
  constructor(private readonly page: Page) {}

  form() {
    return this.page.getByRole("form", { name: "Model settings" });
  }

  status() {
    return this.form().getByTestId("models-status");
  }

  loadedModels() {
    return this.form().getByRole("table", { name: "Loaded models" });
  }

  runtime() {
    return this.form().getByTestId("model-runtime");
  }

  embedding() {
    return this.page.getByTestId("embedding-progress");
  }
}
