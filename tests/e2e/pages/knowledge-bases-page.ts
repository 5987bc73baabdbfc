import type { FileChooser, Locator, Page } from "playwright-core";

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
  async register(
    input: { source: string; name: string; description?: string; files?: UploadFile[]; via?: "input" | "drop" | "keyboard" },
    submit = true,
  ) {
    await this.page.goto("/knowledge-bases/new");
    const form = this.form();
    await form.getByText(input.source, { exact: true }).click();
    await form.getByLabel("Name").fill(input.name);
    if (input.description) await form.getByLabel("Description").fill(input.description);
    if (input.files) {
      if (input.via === "drop") await this.dropFiles(input.files);
      else if (input.via === "keyboard") {
        await (await this.chooseByKeyboard(form.getByLabel(/^Files?$/))).setFiles(input.files);
      } else await form.getByLabel(/^Files?$/).setInputFiles(input.files);
    }
    if (submit) await form.getByRole("button", { name: "Register" }).click();
  }

  /**
   * Space on the focused upload field opens the file dialog. Under load the form can re-render between
   * the focus and the key press (choosing the source swaps its fields in), and the press then lands
   * nowhere, so it is tried again on the field as it is now.
   */
  private async chooseByKeyboard(field: Locator): Promise<FileChooser> {
    for (let attempt = 1; attempt <= 3; attempt++) {
      await field.focus();
      const chooser = this.page.waitForEvent("filechooser", { timeout: 10_000 }).catch(() => null);
      await this.page.keyboard.press("Space");
      const opened = await chooser;
      if (opened) return opened;
    }
    throw new Error("Space on the focused upload field never opened the file dialog");
  }

  dropZone() {
    return this.page.getByTestId("kb-files-drop-zone");
  }

  /** Drags files from outside the browser onto the drop zone, as the desktop does. */
  async dropFiles(files: UploadFile[]) {
    const dataTransfer = await this.page.evaluateHandle(
      (list) => {
        const dt = new DataTransfer();
        for (const f of list)
          dt.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.mimeType }));
        return dt;
      },
      files.map((f) => ({ name: f.name, mimeType: f.mimeType, base64: f.buffer.toString("base64") })),
    );
    for (const type of ["dragenter", "dragover", "drop"]) await this.dropZone().dispatchEvent(type, { dataTransfer });
  }

  chosenFiles() {
    return this.form()
      .getByRole("list", { name: /^Chosen files?$/ })
      .getByRole("listitem");
  }

  /** The detail page's counts ("Passages 42"). */
  contents() {
    return this.page.getByTestId("kb-contents");
  }

  /** The descriptor, behind its "Descriptor" disclosure (opened here). */
  async descriptor() {
    const section = this.page.getByTestId("kb-descriptor-section");
    if ((await section.getAttribute("open")) === null) await section.locator("summary").click();
    return this.page.getByTestId("kb-descriptor");
  }

  /** The collection's documents, each with Preview and Remove. */
  documents() {
    return this.page.getByTestId("kb-document");
  }

  document(title: string) {
    return this.documents().filter({ has: this.page.getByText(title, { exact: true }) });
  }

  sourceObjects() {
    return this.page.getByTestId("source-object-list").getByRole("button");
  }
}
