import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { type AppServer, startAppServer } from "../support/app-server";
import { type TestIdp, startTestIdp } from "../support/oidc-idp";
import { freePort } from "../support/services/postgres";
import { launchBrowser, screenshot } from "./support/browser";

/**
 * Single sign-on end to end: Mosaic (production build) configured for a real OpenID Connect provider
 * (oidc-provider on a loopback port, started here), driven through Debian's Chromium. A second provider
 * with the same client plays the wrong issuer (an authorization-server mix-up). Then the audit log page
 * shows the sign-ins, and only to admins.
 */

const PROVIDER_NAME = "Acme ID";
const admin = DEMO_USERS.find((u) => u.role === "ADMIN")!;
const business = DEMO_USERS.find((u) => u.role === "USER")!;

let idp: TestIdp;
let rogue: TestIdp;
let app: AppServer;
let browser: Browser;

beforeAll(async () => {
  const port = await freePort();
  const callback = `http://localhost:${port}/api/auth/callback/oidc`;
  idp = await startTestIdp({ redirectUris: [callback] });
  rogue = await startTestIdp({ redirectUris: [callback] });
  app = await startAppServer(
    {
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      OIDC_NAME: PROVIDER_NAME,
      OIDC_ROLES_CLAIM: "roles",
      OIDC_GROUPS_CLAIM: "groups",
      OIDC_ROLE_MAP: "mosaic-admins=ADMIN,data-team=ANALYST",
    },
    { port },
  );
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await idp?.stop();
  await rogue?.stop();
});

async function fresh(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: app.baseUrl,
    viewport: { width: 1280, height: 800 },
    locale: "en-GB",
    timezoneId: "UTC",
  });
  return { context, page: await context.newPage() };
}

/** Clicks "Sign in with Acme ID" and signs in on the provider's own login form. */
async function ssoSignIn(page: Page, login: string) {
  await page.goto("/signin");
  await page.getByRole("button", { name: `Sign in with ${PROVIDER_NAME}`, exact: true }).click();
  await page.waitForURL((u) => !u.href.startsWith(app.baseUrl));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
}

function signInAlert(page: Page) {
  return page.getByRole("form", { name: "Sign in" }).getByRole("alert");
}

async function me(page: Page): Promise<{ email: string; role: string } | null> {
  const res = await page.request.get("/api/me");
  return res.ok() ? ((await res.json()) as { email: string; role: string }) : null;
}

async function groupsOf(email: string, page: Page): Promise<string[]> {
  const res = await page.request.get("/api/admin/users");
  const { users } = (await res.json()) as { users: { email: string; groups: { name: string }[] }[] };
  return (
    users
      .find((u) => u.email === email)
      ?.groups.map((g) => g.name)
      .sort() ?? []
  );
}

async function passwordSignIn(page: Page, email: string, password: string) {
  await page.goto("/signin");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(/\/ask$/);
}

describe("single sign-on through OpenID Connect", () => {
  it("creates the user at the first sign-in with the role and groups its claims map to", async () => {
    idp.accounts.set("carla", {
      email: "carla@acme.test",
      name: "Carla Ortiz",
      roles: ["data-team"],
      groups: ["Analysts", "Everyone", "Not-a-Mosaic-group"],
    });
    const { context, page } = await fresh();
    try {
      await page.goto("/signin");
      await expect.poll(() => page.getByRole("button", { name: `Sign in with ${PROVIDER_NAME}`, exact: true }).isVisible()).toBe(true);
      await screenshot(page, "sso-sign-in-page");
      await ssoSignIn(page, "carla");
      await page.waitForURL(/\/ask$/);
      expect(await me(page)).toMatchObject({ email: "carla@acme.test", role: "ANALYST" });
      await screenshot(page, "sso-signed-in-analyst");
    } finally {
      await context.close();
    }
    const { context: a, page: adminPage } = await fresh();
    try {
      await passwordSignIn(adminPage, admin.email, admin.password);
      expect(await groupsOf("carla@acme.test", adminPage)).toEqual(["Analysts", "Everyone"]);
    } finally {
      await a.close();
    }
  });

  it("changes the role at the next sign-in when the claim changed", async () => {
    idp.accounts.set("carla", { ...idp.accounts.get("carla")!, roles: ["mosaic-admins"], groups: ["Everyone"] });
    const { context, page } = await fresh();
    try {
      await ssoSignIn(page, "carla");
      await page.waitForURL(/\/ask$/);
      expect(await me(page)).toMatchObject({ email: "carla@acme.test", role: "ADMIN" });
      expect(await groupsOf("carla@acme.test", page)).toEqual(["Everyone"]);
    } finally {
      await context.close();
    }
  });

  it("gives the least role, business user, when the roles claim is missing or names no mapped role", async () => {
    idp.accounts.set("dev", { email: "dev@acme.test", name: "Dev Null" });
    idp.accounts.set("eve", { email: "eve@acme.test", name: "Eve", roles: ["admin", "root"] }); // "admin" is not in OIDC_ROLE_MAP
    for (const [login, email] of [
      ["dev", "dev@acme.test"],
      ["eve", "eve@acme.test"],
    ]) {
      const { context, page } = await fresh();
      try {
        await ssoSignIn(page, login);
        await page.waitForURL(/\/ask$/);
        expect(await me(page)).toMatchObject({ email, role: "USER" });
      } finally {
        await context.close();
      }
    }
  });

  it("refuses an answer whose state does not match the sign-in it started, with a clear message", async () => {
    idp.accounts.set("frank", { email: "frank@acme.test", name: "Frank", roles: ["data-team"] });
    // A genuine answer from the provider, taken from one browser's sign-in…
    let answer: string | undefined;
    const first = await fresh();
    try {
      first.page.on("request", (r) => {
        if (r.url().startsWith(`${app.baseUrl}/api/auth/callback/oidc?`)) answer ??= r.url();
      });
      await ssoSignIn(first.page, "frank");
      await first.page.waitForURL(/\/ask$/);
    } finally {
      await first.context.close();
    }
    expect(answer).toContain("state=");
    // …is played into another browser's sign-in, whose state is its own.
    const { context, page } = await fresh();
    try {
      await page.goto("/signin");
      await page.getByRole("button", { name: `Sign in with ${PROVIDER_NAME}`, exact: true }).click();
      await page.waitForURL((u) => !u.href.startsWith(app.baseUrl));
      await page.goto(answer!);
      await page.waitForURL(/\/signin\?.*error=OAuthCallback/);
      await expect.poll(() => signInAlert(page).innerText()).toContain("Single sign-on was refused");
      expect(await me(page)).toBeNull();
      await screenshot(page, "sso-refused-state");
    } finally {
      await context.close();
    }
  });

  it("refuses a code from another issuer (mix-up), with the same clear message", async () => {
    rogue.accounts.set("mallory", { email: "mallory@acme.test", name: "Mallory", roles: ["mosaic-admins"] });
    const { context, page } = await fresh();
    try {
      // The authorization request is sent to the rogue provider instead, which answers with its own code and issuer.
      await context.route(`${idp.issuer}/auth**`, (route) =>
        route.fulfill({ status: 302, headers: { location: route.request().url().replace(idp.issuer, rogue.issuer) } }),
      );
      await ssoSignIn(page, "mallory");
      await page.waitForURL(/\/signin\?.*error=OAuthCallback/);
      await expect.poll(() => signInAlert(page).innerText()).toContain("different issuer");
      expect(await me(page)).toBeNull();
    } finally {
      await context.close();
    }
  });
});

describe("audit log page", () => {
  it("shows admins the sign-ins with actor, address and before/after, filters them, and exports CSV", async () => {
    const { context, page } = await fresh();
    try {
      await passwordSignIn(page, admin.email, admin.password);
      await page.goto("/audit");
      await expect.poll(() => page.getByRole("heading", { level: 1 }).innerText()).toBe("Audit log");
      const table = page.getByRole("table", { name: "Audit records" });
      await expect.poll(() => table.innerText()).toContain("signin.success.created");
      const text = await table.innerText();
      expect(text).toContain("carla@acme.test");
      expect(text).toContain("signin.failure");
      expect(text).toMatch(/127\.0\.0\.1|::1/);
      // Carla's second sign-in changed her role: before and after are there.
      await page.getByLabel("Actor (email)", { exact: true }).fill("carla@acme.test");
      await page.getByLabel("Action", { exact: true }).selectOption("signin.success");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/actor=carla/);
      await page.getByText("Before and after").first().click();
      const row = await table.innerText();
      expect(row).toMatch(/role\s+ANALYST\s+ADMIN/);
      // The single sign-on's own address is recorded too.
      expect(row).toMatch(/127\.0\.0\.1|::1/);
      await screenshot(page, "audit-log-page");

      const csv = await page.request.get("/api/admin/audit/export?action=signin.");
      expect(csv.status()).toBe(200);
      expect(csv.headers()["content-type"]).toContain("text/csv");
      const body = await csv.text();
      expect(body.split("\r\n")[0]).toBe(
        "time,action,outcome,actor_email,actor_id,address,target_type,target_id,knowledge_bases,run_id,before,after,detail",
      );
      expect(body).toContain("carla@acme.test");
    } finally {
      await context.close();
    }
  });

  it("is closed to everyone but admins, page and export alike", async () => {
    const { context, page } = await fresh();
    try {
      await passwordSignIn(page, business.email, business.password);
      expect((await page.goto("/audit"))?.status()).toBe(403);
      expect((await page.request.get("/api/admin/audit/export")).status()).toBe(403);
    } finally {
      await context.close();
    }
    const { context: anon, page: anonPage } = await fresh();
    try {
      expect((await anonPage.request.get("/api/admin/audit/export")).status()).toBe(401);
    } finally {
      await anon.close();
    }
  });
});
