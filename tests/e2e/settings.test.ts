import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { type FakeOpenAi, startFakeOpenAi } from "../support/fake-openai/server";
import { SettingsPage } from "./pages/settings-page";
import { SignInPage } from "./pages/sign-in-page";
import { launchBrowser, newPage, screenshot } from "./support/browser";

/**
 * An admin configures the LLM endpoint on the Settings page against the fake OpenAI-compatible server
 * (started here; the app reaches it over localhost): a wrong key reads as a 401 in Settings, the right
 * one connects, the key is stored and never sent back to the browser.
 */

let browser: Browser;
let fake: FakeOpenAi;
const admin = DEMO_USERS.find((u) => u.role === "ADMIN")!;
const analyst = DEMO_USERS.find((u) => u.role === "ANALYST")!;

beforeAll(async () => {
  browser = await launchBrowser();
  fake = await startFakeOpenAi({ apiKey: "sk-right-e2e-0123456789", models: ["gpt-4o-mini", "gpt-4o"] });
  fake.otherwise({ content: "OK" });
});
afterAll(async () => {
  await browser?.close();
  await fake?.close();
});

async function signIn(page: Page, who: { email: string; password: string }) {
  await new SignInPage(page).open();
  await new SignInPage(page).signIn(who.email, who.password);
  await page.waitForURL(/\/ask$/);
}

describe("LLM settings", () => {
  it("an admin tests the connection, sees a wrong key as a 401, saves, and the key never comes back to the browser", async () => {
    const { context, page } = await newPage(browser);
    const settings = new SettingsPage(page);
    try {
      await signIn(page, admin);
      expect((await settings.open())?.status()).toBe(200);
      await expect.poll(() => settings.status().innerText()).toBe("Off");
      expect(await settings.keyStatus().innerText()).toBe("Not set");
      // "Off" above ticked stages says why, and what each stage runs now.
      expect(await settings.status().locator("..").innerText()).toMatch(
        /^Off: no endpoint and model are saved, so every stage runs its classical strategy\. The stages ticked below will ask the LLM once an endpoint and a model are saved\./,
      );
      expect(await page.getByTestId("llm-stage-now-answer").innerText()).toBe("Classical");
      await screenshot(page, "settings-llm-empty");

      // A malformed URL is caught in the form.
      await settings.setEndpoint("localhost:11434", "gpt-4o-mini");
      await settings.save();
      await expect
        .poll(() =>
          settings
            .form()
            .getByText(/Enter an http:\/\/ or https:\/\/ URL/)
            .isVisible(),
        )
        .toBe(true);

      await settings.setEndpoint(fake.url, "gpt-4o-mini");
      await settings.typeKey("sk-wrong");
      await settings.testConnection();
      await expect
        .poll(() => settings.testResult().innerText(), { timeout: 15_000 })
        .toMatch(/Connection failed: 401 unauthorized: the endpoint rejected the API key.*Check the API key/);
      await screenshot(page, "settings-llm-wrong-key");

      await settings.setEndpoint(fake.url, "gpt-5-turbo-nonexistent");
      await settings.typeKey("sk-right-e2e-0123456789");
      await settings.testConnection();
      await expect
        .poll(() => settings.testResult().innerText(), { timeout: 15_000 })
        .toMatch(/model "gpt-5-turbo-nonexistent" is not offered by this endpoint\. It offers: gpt-4o, gpt-4o-mini\./);

      await settings.setEndpoint(fake.url, "gpt-4o-mini");
      await settings.testConnection();
      await expect.poll(() => settings.testResult().innerText(), { timeout: 15_000 }).toMatch(/^Connected: gpt-4o-mini answered in/);
      const authorizations = fake.requests.map((r) => r.headers.authorization);
      expect(authorizations).toContain("Bearer sk-wrong");
      expect(authorizations.at(-1)).toBe("Bearer sk-right-e2e-0123456789");

      await settings.setStage("Critique", false);
      await settings.setStage("Write native queries", true, "gpt-4o");
      await settings.addPrice("my-local-model", "0.1", "0.2");
      await settings.save();
      await expect.poll(() => settings.status().innerText()).toBe("On");
      expect(await settings.keyStatus().innerText()).toBe("Set (stored encrypted)");
      await screenshot(page, "settings-llm-saved");

      // After a reload: the values are there, the key is "set" and appears nowhere in the page.
      const response = await page.reload();
      const html = (await response?.text()) ?? "";
      expect(html).not.toContain("sk-right-e2e");
      expect(await page.content()).not.toContain("sk-right-e2e");
      await expect.poll(() => settings.status().innerText()).toBe("On");
      expect(await settings.form().getByLabel("Base URL").inputValue()).toBe(fake.url);
      expect(await settings.stageEnabled("Critique").isChecked()).toBe(false);
      expect(await settings.stageModel("Write native queries").inputValue()).toBe("gpt-4o");
      expect(await settings.form().getByLabel("Model of price 1").inputValue()).toBe("my-local-model");

      // Test connection with the stored key (the key field left closed).
      fake.requests.length = 0;
      await settings.testConnection();
      await expect.poll(() => settings.testResult().innerText(), { timeout: 15_000 }).toMatch(/^Connected/);
      expect(fake.requests.at(-1)?.headers.authorization).toBe("Bearer sk-right-e2e-0123456789");

      // Keyboard: the test button is reachable and works from the keyboard.
      await settings.form().getByRole("button", { name: "Test connection" }).focus();
      await page.keyboard.press("Enter");
      await expect.poll(() => settings.testResult().innerText(), { timeout: 15_000 }).toMatch(/^Connected/);
    } finally {
      // Leave the shared app as it was: no LLM, no key (other e2e files ask questions).
      try {
        await settings.open();
        await settings.setEndpoint("", "");
        await settings.setEnabled(false);
        if (await settings.form().getByRole("button", { name: "Clear key" }).isVisible()) await settings.clearKey();
        await settings.save();
        await expect.poll(() => settings.status().innerText()).toBe("Off");
      } finally {
        await context.close();
      }
    }
  });

  it("is for admins only", async () => {
    const { context, page } = await newPage(browser);
    try {
      await signIn(page, analyst);
      expect((await new SettingsPage(page).open())?.status()).toBe(403);
    } finally {
      await context.close();
    }
  });
});

describe("caution (issue 32)", () => {
  it("an admin sets how likely an answer must be right before it is shown, in plain words; a value out of range is refused in the form", async () => {
    const { context, page } = await newPage(browser);
    const form = page.getByRole("form", { name: "Caution" });
    const field = form.getByLabel("Show an answer only when it is at least … % likely right");
    try {
      await signIn(page, admin);
      await page.goto("/settings");
      await expect.poll(() => page.getByTestId("caution-current").innerText()).toMatch(/^Now: \d+ % \(the default\)\.$/);
      expect(await page.getByTestId("caution-scope").innerText()).toMatch(/answers from databases \(SQL\)/);
      expect(await page.getByTestId("caution-default-rule").innerText()).toMatch(
        /^How the default was chosen, on \d+ answers to development questions: /,
      );
      await field.fill("40");
      await form.getByRole("button", { name: "Save caution" }).click();
      await form.getByText(/At least 50 %/).waitFor();
      await field.fill("85");
      await form.getByRole("button", { name: "Save caution" }).click();
      await page.getByTestId("caution-current").filter({ hasText: "Now: 85 %." }).waitFor();
      await form.getByText("Saved. It applies to the next question anyone asks.").waitFor();
      await form.scrollIntoViewIfNeeded();
      await screenshot(page, "settings-caution");
    } finally {
      // Leave the shared app at the default (other e2e files ask questions).
      try {
        await page.goto("/settings");
        await field.fill("");
        await form.getByRole("button", { name: "Save caution" }).click();
        await page.getByTestId("caution-current").filter({ hasText: "(the default)" }).waitFor();
      } finally {
        await context.close();
      }
    }
  });
});
