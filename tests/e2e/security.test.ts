import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { DEMO_KB_NAMES } from "@/lib/demo/seed-catalog";
import { AppClient } from "../support/app-client";
import { type Actor, HTTP_ATTACKS, queryAttacks, sqlText, UPLOAD_ATTACKS } from "../support/attack-corpus";
import { SignInPage } from "./pages/sign-in-page";
import { baseUrl, launchBrowser, newPage, screenshot } from "./support/browser";

/**
 * The attack corpus against the running app (issue 16): HTTP access without a session or with the
 * wrong role, uploads, generated and saved queries through the retrieval action the workbench uses,
 * a strict CSP with no violation on any page, and sign-in throttling that slows an attacker without
 * locking out the owner, visible and clearable by an admin.
 */

const demo = (role: string) => DEMO_USERS.find((u) => u.role === role)!;
let client: AppClient;
const cookies: Partial<Record<Actor, string | null>> = { anonymous: null };
let sqlKb = "";
let rdfKb = "";
let browser: Browser;
const SECRET = /passwordHash|secretsCiphertext|\$argon2|root:x:0:0|at \S+ \(\/|node_modules\//;

beforeAll(async () => {
  client = new AppClient(baseUrl());
  for (const role of ["ADMIN", "ANALYST", "USER"] as const) cookies[role] = await client.signIn(demo(role).email, demo(role).password);
  const objects = (await client.action(cookies.ANALYST!, "listSourceObjectsAction", {})).data as { kbId: string; kbName: string }[];
  sqlKb = objects.find((o) => o.kbName === DEMO_KB_NAMES.sql)!.kbId;
  rdfKb = objects.find((o) => o.kbName === DEMO_KB_NAMES.sparql)!.kbId;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe("HTTP access without a session or with the wrong role", () => {
  it.each(HTTP_ATTACKS.map((a) => [a.name, a] as const))("%s is refused", async (_, attack) => {
    const cookie = attack.name.includes("forged")
      ? "next-auth.session-token=eyJhbGciOiJub25lIn0.eyJ1aWQiOiJ4In0."
      : (cookies[attack.as] ?? null);
    let answer: string;
    let refusedBy: number | string;
    if ("action" in attack.request) {
      const input = JSON.parse(JSON.stringify(attack.request.input).replaceAll("{sqlKb}", sqlKb));
      const r = await client.action(cookie, attack.request.action, input);
      refusedBy = r.error?.code ?? r.status;
      answer = JSON.stringify(r);
    } else {
      const r = await client.request(cookie, attack.request.method, attack.request.path, attack.request.json);
      refusedBy = r.status;
      answer = r.text;
    }
    expect(attack.refusedWith, answer.slice(0, 300)).toContain(refusedBy);
    expect(answer).not.toMatch(attack.mustNotContain ?? SECRET);
  });
});

describe("queries through the retrieval action, as an analyst", () => {
  const sql = queryAttacks("sql-sqlite").filter((a) => !a.name.includes("deadline"));
  const sparql = queryAttacks("sparql");
  const run = (kbId: string, language: "sql" | "sparql", text: string) =>
    client.action(cookies.ANALYST!, "captureContextAction", { kbId, kind: "NATIVE_QUERY", params: { query: { language, text } } });

  /**
   * Refused: a typed refusal saying why. Contained: stopped with a message saying so, or answered with
   * the values cut, the rows capped (the workbench keeps 200) and the whole answer small.
   */
  function expectOutcome(attack: { expect: string; says: RegExp }, r: Awaited<ReturnType<typeof run>>, said: string) {
    if (attack.expect === "refused") {
      expect(r.error?.code, said.slice(0, 300)).toBe("VALIDATION");
      expect(said).toMatch(attack.says);
    } else {
      expect(said.length).toBeLessThan(2 * 1024 * 1024);
      if (r.error) expect(r.error.message).toMatch(attack.says);
    }
  }

  it.each(sql.map((a) => [a.name, a] as const))("SQLite: %s", async (_, attack) => {
    const r = await run(sqlKb, "sql", sqlText(attack, { table: "customers", column: "name" }));
    const said = r.error?.message ?? JSON.stringify(r.data);
    expectOutcome(attack, r, said);
    expect(said).not.toMatch(SECRET);
  });

  it.each(sparql.map((a) => [a.name, a] as const))("SPARQL: %s", async (_, attack) => {
    const r = await run(rdfKb, "sparql", attack.text);
    const pieces = (r.data as { pieces?: unknown[] } | undefined)?.pieces;
    const said = r.error?.message ?? (Array.isArray(pieces) && pieces.length === 0 ? "ok" : JSON.stringify(r.data));
    expectOutcome(attack, r, said);
    expect(said).not.toMatch(/unreachable|RuntimeError|RangeError/);
  });

  it("keeps answering /api/health while a parser bomb is being checked", async () => {
    const bomb = run(sqlKb, "sql", `SELECT ${"(".repeat(18)}1,${")".repeat(18)}`);
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      expect((await client.request(null, "GET", "/api/health")).status).toBe(200);
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await bomb).error?.message).toMatch(/too complex to check/);
    expect(Math.max(...latencies)).toBeLessThan(1_000);
  });

  it("left the demo data as it was and still answers", async () => {
    const r = await run(sqlKb, "sql", "SELECT count(*) AS n FROM customers");
    expect(JSON.stringify(r.data)).toMatch(/n: \d+/);
    const health = await client.request(null, "GET", "/api/health");
    expect(health.status).toBe(200);
  });
});

describe("uploads, as an admin", () => {
  it.each(UPLOAD_ATTACKS.map((a, i) => [a.name, a, i] as const))("%s", async (_, attack, i) => {
    const connection = { SQL: { dialect: "sqlite" }, SPARQL: { mode: "embedded" }, DOCUMENTS: { language: "en" } }[attack.kind];
    const name = `Upload attack ${i}`;
    const r = await client.register(
      cookies.ADMIN!,
      { kind: attack.kind, name, connection },
      attack.files.map((f) => ({ name: f.name, bytes: f.bytes() })),
    );
    const said = r.status === 201 ? "contained" : String((r.json?.error as { message?: string } | undefined)?.message);
    if (r.status === 201) {
      await client.action(cookies.ADMIN!, "deleteKbAction", { id: r.json!.id, confirmName: name });
    } else {
      expect([400, 409, 503]).toContain(r.status);
    }
    expect(said).toMatch(attack.says);
    expect(said).not.toMatch(/unreachable|RuntimeError|\/tmp\/|node_modules/);
  });
});

describe("browser walls", () => {
  it("serves every page with a strict nonce-based CSP and the usual headers, and no page breaks it", async () => {
    const page = await client.request(cookies.ADMIN!, "GET", "/ask");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{16,}' 'strict-dynamic'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain("unsafe-eval");
    expect(page.headers.get("strict-transport-security")).toBeNull();
    expect(page.headers.get("permissions-policy")).toContain("camera=()");
    expect(page.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    const again = await client.request(cookies.ADMIN!, "GET", "/ask");
    expect(again.headers.get("content-security-policy")).not.toBe(csp);
    // The nonce in the header is the one on the page's scripts, and no script runs without it.
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    expect(page.text).toContain(`nonce="${nonce}"`);
    expect(page.text.match(/<script(?![^>]*nonce=)[^>]*>/g) ?? []).toEqual([]);
    expect((await client.request(cookies.ADMIN!, "GET", "/api/me")).headers.get("content-security-policy")).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    );

    const { context, page: tab } = await newPage(browser);
    const violations: string[] = [];
    tab.on("console", (m) => {
      if (/Content Security Policy|CSP violation/.test(m.text())) violations.push(`${tab.url()}: ${m.text()}`);
    });
    await tab.addInitScript(() =>
      document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`)),
    );
    try {
      await new SignInPage(tab).open();
      await new SignInPage(tab).signIn(demo("ADMIN").email, demo("ADMIN").password);
      await tab.waitForURL(/\/ask$/);
      for (const p of [
        "/ask",
        "/history",
        "/knowledge-bases",
        `/knowledge-bases/${sqlKb}`,
        "/knowledge-bases/new",
        "/source-objects",
        "/guides",
        "/guides/new",
        "/feedback",
        "/evaluation",
        "/settings",
        "/users",
      ]) {
        await tab.goto(p);
        await tab.waitForLoadState("networkidle");
      }
      // Hydrated under the CSP: a client-side interaction works.
      await tab.goto("/ask");
      await tab.locator("textarea").first().fill("How many orders were returned?");
      await tab.keyboard.press("Enter");
      await tab.getByText("Answer", { exact: false }).first().waitFor();
    } finally {
      await context.close();
    }
    expect(violations).toEqual([]);
  });
});

describe("sign-in throttling", () => {
  // A made-up client address (X-Forwarded-For), so this test's failures never slow the other tests' sign-ins.
  const attacker = { "X-Forwarded-For": "203.0.113.77" };
  const owner = { "X-Forwarded-For": "198.51.100.23" };
  const analyst = demo("ANALYST");

  it("slows an attacker's guesses without locking the owner out; the admin sees the throttle and clears it", async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < 7; i++) outcomes.push(await client.signInOutcome(analyst.email, `wrong-${i}`, attacker));
    expect(outcomes.slice(0, 6)).toEqual(Array(6).fill("CredentialsSignin"));
    expect(outcomes[6]).toMatch(/^TooManyAttempts:\d+$/);
    // Even the right password waits out the delay from the attacker's address…
    expect(await client.signInOutcome(analyst.email, analyst.password, attacker)).toMatch(/^TooManyAttempts:/);
    // …while the owner, elsewhere, signs in at once.
    expect(await client.signInOutcome(analyst.email, analyst.password, owner)).toBe("ok");

    const { context, page } = await newPage(browser);
    try {
      await new SignInPage(page).open();
      await new SignInPage(page).signIn(demo("ADMIN").email, demo("ADMIN").password);
      await page.waitForURL(/\/ask$/);
      await page.goto("/users");
      const rows = page.getByTestId("sign-in-throttle");
      await expect.poll(() => rows.filter({ hasText: "203.0.113.77" }).count()).toBeGreaterThan(0);
      await screenshot(page, "users-sign-in-throttles");
      await page.getByRole("button", { name: "Clear all" }).click();
      await page.getByText(/^Cleared \d+ throttles?\.$/).waitFor();
      expect(await rows.count()).toBe(0);
      await screenshot(page, "users-sign-in-throttles-cleared");
    } finally {
      await context.close();
    }
    expect(await client.signInOutcome(analyst.email, analyst.password, attacker)).toBe("ok");
  });

  it("tells the person on the form how long to wait", async () => {
    const someone = { "X-Forwarded-For": "203.0.113.99" };
    for (let i = 0; i < 7; i++) await client.signInOutcome(demo("USER").email, "wrong", someone);
    const { context, page } = await newPage(browser);
    try {
      await page.goto(`/signin?error=${encodeURIComponent("TooManyAttempts:42")}`);
      await page.getByText("Too many failed sign-in attempts. Try again in 42 seconds; the right password works then.").waitFor();
      await screenshot(page, "sign-in-throttled");
    } finally {
      await context.close();
    }
    await client.action(cookies.ADMIN!, "clearSignInThrottlesAction", {});
  });
});
