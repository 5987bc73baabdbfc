import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { Shell } from "./pages/shell";
import { SignInPage } from "./pages/sign-in-page";
import { UsersPage } from "./pages/users-page";
import { launchBrowser, newPage, screenshot } from "./support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const admin = DEMO_USERS.find((u) => u.role === "ADMIN")!;

describe("an admin manages users", () => {
  it("creates a user with a role and a group; the new user signs in and sees their role's pages", async () => {
    const { context, page } = await newPage(browser);
    try {
      await new SignInPage(page).open();
      await new SignInPage(page).signIn(admin.email, admin.password);
      await page.waitForURL(/\/ask$/);
      const users = new UsersPage(page);
      await users.open();
      await screenshot(page, "users-admin");

      // Malformed input: field messages, nothing created.
      await users.createUser({ email: "bad", name: "", password: "short", role: "Analyst" });
      expect(await users.createForm().getByText("Enter a valid email address.").isVisible()).toBe(true);
      expect(await users.createForm().getByText("Use at least 8 characters.").isVisible()).toBe(true);

      // Duplicate email: the server's conflict shows on the email field.
      await users.createUser({ email: DEMO_USERS[1].email, name: "Copy", password: "long enough", role: "Analyst" });
      await expect.poll(() => users.createForm().getByText("This email is taken.").isVisible()).toBe(true);

      await users.createUser({
        email: "carla@example.com",
        name: "Carla Controller",
        password: "carla-pass-123",
        role: "Analyst",
        groups: ["Analysts"],
      });
      await expect.poll(() => users.createForm().getByRole("status").innerText()).toContain("Created carla@example.com");
      await expect.poll(() => users.row("carla@example.com").getByTestId("user-role").innerText()).toBe("Analyst");
      expect(await users.row("carla@example.com").innerText()).toContain("Analysts");

      await users.changeRole("carla@example.com", "Business user");
      await expect.poll(() => users.row("carla@example.com").getByTestId("user-role").innerText()).toBe("Business user");

      await new Shell(page).signOut();
      await new SignInPage(page).signIn("carla@example.com", "carla-pass-123");
      await page.waitForURL(/\/ask$/);
      expect(await new Shell(page).navLabels()).toEqual(["Ask", "History"]);
      expect((await page.goto("/users"))?.status()).toBe(403);
    } finally {
      await context.close();
    }
  });

  it("cannot demote the last admin", async () => {
    const { context, page } = await newPage(browser);
    try {
      await new SignInPage(page).open();
      await new SignInPage(page).signIn(admin.email, admin.password);
      await page.waitForURL(/\/ask$/);
      const users = new UsersPage(page);
      await users.open();
      await users.changeRole(admin.email, "Business user");
      await expect.poll(() => page.getByTestId(`user-edit-${admin.email}`).getByRole("alert").innerText()).toContain("last active admin");
    } finally {
      await context.close();
    }
  });
});
