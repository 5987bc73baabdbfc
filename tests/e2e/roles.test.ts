import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { NAV_ITEMS, navItemsFor } from "@/lib/navigation";
import { Shell } from "./pages/shell";
import { SignInPage } from "./pages/sign-in-page";
import { launchBrowser, newPage, screenshot } from "./support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe.each(DEMO_USERS)("signed in as $role ($email)", (demo) => {
  it("sees exactly the navigation of the role, opens every allowed page and gets 403 on the others", async () => {
    const { context, page } = await newPage(browser);
    try {
      await new SignInPage(page).open();
      await new SignInPage(page).signIn(demo.email, demo.password);
      await page.waitForURL(/\/ask$/);
      const shell = new Shell(page);
      expect(await shell.navLabels()).toEqual(navItemsFor(demo.role).map((i) => i.label));
      await screenshot(page, `shell-${demo.role.toLowerCase()}`);

      for (const item of NAV_ITEMS) {
        const response = await page.goto(item.href);
        if (item.roles.includes(demo.role)) {
          expect(response?.status(), item.href).toBe(200);
          await expect.poll(() => page.getByRole("heading", { level: 1 }).innerText()).toBe(item.label);
        } else {
          expect(response?.status(), item.href).toBe(403);
          expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("You don’t have access to this page");
          // The page itself must not leak, and the navigation still offers only the role's pages.
          expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: item.label, exact: true }).count()).toBe(0);
        }
      }
      if (demo.role === "USER") {
        await page.goto("/users");
        await screenshot(page, "forbidden-user-opens-users");
      }
    } finally {
      await context.close();
    }
  });
});

describe("signing in", () => {
  it("sends a signed-out visitor to sign-in and back to the page they asked for", async () => {
    const { context, page } = await newPage(browser);
    try {
      await page.goto("/history");
      await page.waitForURL(/\/signin\?callbackUrl=%2Fhistory/);
      await new SignInPage(page).signIn(DEMO_USERS[2].email, DEMO_USERS[2].password);
      await page.waitForURL(/\/history$/);
      expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("History");
    } finally {
      await context.close();
    }
  });

  it("says 'Wrong email or password' for a wrong password and for an unknown user, and stays signed out", async () => {
    const { context, page } = await newPage(browser);
    try {
      const signIn = new SignInPage(page);
      await signIn.open();
      await signIn.signIn(DEMO_USERS[0].email, "not-the-password");
      await expect.poll(() => signIn.alert().innerText()).toContain("Wrong email or password.");
      await screenshot(page, "signin-wrong-password");
      await signIn.signIn("nobody@mosaic.local", "whatever-pass");
      await expect.poll(() => signIn.alert().innerText()).toContain("Wrong email or password.");
      const res = await page.goto("/ask");
      expect(page.url()).toContain("/signin");
      expect(res?.status()).toBe(200);
    } finally {
      await context.close();
    }
  });

  it("flags malformed input next to the field without calling the server", async () => {
    const { context, page } = await newPage(browser);
    try {
      const signIn = new SignInPage(page);
      await signIn.open();
      let authCalls = 0;
      page.on("request", (r) => {
        if (r.url().includes("/api/auth/callback")) authCalls++;
      });
      await signIn.signIn("not-an-email", "");
      expect(await page.getByText("Enter a valid email address.").isVisible()).toBe(true);
      expect(await page.getByText("Enter your password.").isVisible()).toBe(true);
      expect(authCalls).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("shows a plain 404 page, with no stack trace, for an unknown address", async () => {
    const { context, page } = await newPage(browser);
    try {
      await new SignInPage(page).open();
      await new SignInPage(page).signIn(DEMO_USERS[2].email, DEMO_USERS[2].password);
      await page.waitForURL(/\/ask$/);
      const res = await page.goto("/definitely-not-here");
      expect(res?.status()).toBe(404);
      const text = await page.locator("body").innerText();
      expect(text).toContain("This page does not exist");
      expect(text).not.toMatch(/at .*\.(js|ts):\d+/);
    } finally {
      await context.close();
    }
  });
});

describe("every page loads cleanly", () => {
  it("signed out and as an admin on every page: no console error, no failed request, the site icon included", async () => {
    const { context, page } = await newPage(browser);
    const problems: string[] = [];
    page.on("console", (m) => m.type() === "error" && problems.push(`${page.url()}: console error: ${m.text()}`));
    page.on("pageerror", (e) => problems.push(`${page.url()}: ${e.message}`));
    page.on("response", (r) => r.status() >= 400 && problems.push(`${page.url()}: ${r.status()} for ${r.url()}`));
    try {
      const signIn = new SignInPage(page);
      await signIn.open();
      await signIn.signIn(DEMO_USERS[0].email, DEMO_USERS[0].password);
      await page.waitForURL(/\/ask$/);
      for (const item of NAV_ITEMS) {
        await page.goto(item.href);
        await page.waitForLoadState("networkidle");
      }
      expect(problems).toEqual([]);

      expect(await page.locator('head link[rel="icon"]').count()).toBeGreaterThan(0);
      for (const path of ["/favicon.ico", await page.locator('head link[rel="icon"][type="image/svg+xml"]').getAttribute("href")]) {
        const icon = await page.request.get(path!);
        expect(icon.status(), path!).toBe(200);
        expect(icon.headers()["content-type"], path!).toMatch(/^image\//);
      }
    } finally {
      await context.close();
    }
  });
});
