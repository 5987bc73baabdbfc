import type { Page } from "playwright-core";

export type UploadFile = { name: string; mimeType: string; buffer: Buffer };

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

  form() {
    return this.page.getByRole("form", { name: "Register a knowledge base" });
  }

  /** Fills the registration form and submits it. Files go in through the file field, or `via` a drop on its zone or the keyboard (Tab to it, Space, the file dialog). */
  async register(input: { source: string; name: string; description?: string; files?: UploadFile[]; via?: "input" | "drop" | "keyboard" }, submit = true) {
    await this.page.goto("/knowledge-bases/new");
    const form = this.form();
    await form.getByText(input.source, { exact: true }).click();
    await form.getByLabel("Name").fill(input.name);
    if (input.description) await form.getByLabel("Description").fill(input.description);
    if (input.files) {
      if (input.via === "drop") await this.dropFiles(input.files);
      else if (input.via === "keyboard") {
        await form.getByLabel(/^Files?$/).focus();
        const chooser = this.page.waitForEvent("filechooser");
        await this.page.keyboard.press("Space");
        await (await chooser).setFiles(input.files);
      } else await form.getByLabel(/^Files?$/).setInputFiles(input.files);
    }
    if (submit) await form.getByRole("button", { name: "Register" }).click();
  }

  dropZone() {
    return this.page.getByTestId("kb-files-drop-zone");
  }

  /** Drags files from outside the browser onto the drop zone, as the desktop does. */
  async dropFiles(files: UploadFile[]) {
    const dataTransfer = await this.page.evaluateHandle((list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.mimeType }));
      return dt;
    }, files.map((f) => ({ name: f.name, mimeType: f.mimeType, base64: f.buffer.toString("base64") })));
    for (const type of ["dragenter", "dragover", "drop"]) await this.dropZone().dispatchEvent(type, { dataTransfer });
  }

  chosenFiles() {
    return this.form().getByRole("list", { name: /^Chosen files?$/ }).getByRole("listitem");
  }

  /** The detail page's counts ("Passages 42"). */
  contents() {
    return this.page.getByTestId("kb-contents");
  }

  descriptor() {
    return this.page.getByTestId("kb-descriptor");
  }

  sourceObjects() {
    return this.page.getByTestId("source-object-list").getByRole("button");
  }
}
