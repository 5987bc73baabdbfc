import type { Page } from "playwright-core";

export class UsersPage {
  constructor(private readonly page: Page) {}

  async open() {
    await this.page.goto("/users");
  }

  async createUser(input: { email: string; name: string; password: string; role: string; groups?: string[] }) {
    const form = this.page.getByRole("form", { name: "Create a user" });
    await form.getByLabel("Email").fill(input.email);
    await form.getByLabel("Name").fill(input.name);
    await form.getByLabel("Initial password").fill(input.password);
    await form.getByLabel("Role").selectOption({ label: input.role });
    for (const g of input.groups ?? []) await form.getByLabel(g, { exact: true }).check();
    await form.getByRole("button", { name: "Create user" }).click();
  }

  createForm() {
    return this.page.getByRole("form", { name: "Create a user" });
  }

  row(email: string) {
    return this.page.getByTestId(`user-row-${email}`);
  }

  async changeRole(email: string, roleLabel: string) {
    await this.page.getByRole("button", { name: `Edit ${email}` }).click();
    const editor = this.page.getByTestId(`user-edit-${email}`);
    await editor.getByLabel("Role").selectOption({ label: roleLabel });
    await editor.getByRole("button", { name: "Save" }).click();
  }
}
