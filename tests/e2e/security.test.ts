import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { DEMO_KB_NAMES } from "@/lib/demo/seed-catalog";
import { AppClient } from "../support/app-client";
import { type Actor, HTTP_ATTACKS, queryAttacks, sqlText, UPLOAD_ATTACKS } from "../support/attack-corpus";
import { runHttpAttack, staysOnOrigin } from "../support/http-attack-runner";
import { rawRequest } from "../support/raw-http";
import { AskPage } from "./pages/ask-page";
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

describe("HTTP access without a session or with the wrong role, across sites, and past the body limits", () => {
  it.each(HTTP_ATTACKS.map((a) => [a.name, a] as const))("%s is refused", async (_, attack) => {
    const outcome = await runHttpAttack(attack, { client, cookies, sqlKb });
    expect(outcome.held, outcome.said.slice(0, 400)).toBe(true);
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
  // Guesses come from loopback addresses of their own (the server sees 127.0.0.77, not the browser's
  // 127.0.0.1), so this test's failures never slow the other tests' sign-ins. X-Forwarded-For is
  // written by the attacker, and ignored: no proxy is trusted (TRUST_PROXY unset).
  const attacker = { from: "127.0.0.77" };
  const owner = { from: "127.0.0.23" };
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
      await expect.poll(() => rows.filter({ hasText: "127.0.0.77" }).count()).toBeGreaterThan(0);
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

  it("keys on the address the server sees: a forged X-Forwarded-For neither spreads the guesses nor locks out its owner (case 8)", async () => {
    const user = demo("USER");
    const guesser = "127.0.0.88";
    const victim = "127.0.0.99";
    // Rotating forged addresses, and the victim's own: all counted on the guesser's real address.
    const outcomes: string[] = [];
    for (let i = 0; i < 7; i++) {
      const forged = i % 2 ? victim : `198.51.100.${i + 1}`;
      outcomes.push(await client.signInOutcome(user.email, `guess-${i}`, { from: guesser, headers: { "X-Forwarded-For": forged } }));
    }
    expect(outcomes.slice(0, 6)).toEqual(Array(6).fill("CredentialsSignin"));
    expect(outcomes[6]).toMatch(/^TooManyAttempts:\d+$/);
    // The victim, at the address the guesser wrote into the header, is not slowed.
    expect(await client.signInOutcome(user.email, user.password, { from: victim })).toBe("ok");
    // The admin's list (Users) names the guesser's real address only.
    const usersPage = (await client.request(cookies.ADMIN!, "GET", "/users")).text;
    expect(usersPage).toContain(guesser);
    expect(usersPage).not.toContain(victim);
    expect(usersPage).not.toContain("198.51.100.");
    await client.action(cookies.ADMIN!, "clearSignInThrottlesAction", {});
  });

  it("tells the person on the form how long to wait", async () => {
    const someone = { from: "127.0.0.99" };
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

describe("requests bounded before they are read (issue 31)", () => {
  it("creates no admin from a cross-origin text/plain POST carrying the admin's cookie", async () => {
    const r = await rawRequest(`${client.baseUrl}/api/admin/users`, {
      method: "POST",
      headers: { cookie: cookies.ADMIN!, "content-type": "text/plain", origin: "http://localhost:1", "sec-fetch-site": "same-site" },
      body: JSON.stringify({ email: "made-elsewhere@evil.example", name: "x", password: "made-elsewhere-123", role: "ADMIN" }),
    });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.text).error.message).toMatch(/^Refused a same-site request.*Mosaic's own pages/);
    const users = await client.request(cookies.ADMIN!, "GET", "/api/admin/users");
    expect(users.text).not.toContain("made-elsewhere@evil.example");
    // The app's own pages still can: same origin, JSON.
    const own = await rawRequest(`${client.baseUrl}/api/admin/users`, {
      method: "POST",
      headers: { cookie: cookies.ADMIN!, "content-type": "application/json", origin: client.baseUrl, "sec-fetch-site": "same-origin" },
      body: JSON.stringify({ email: "made-here@mosaic.local", name: "Made here", password: "made-here-pass-123", role: "USER" }),
    });
    expect(own.status, own.text).toBe(201);
  });

  it("refuses 300 MB of JSON from its Content-Length, and cuts a chunked one while it streams", async () => {
    const declared = await rawRequest(`${client.baseUrl}/api/runs`, {
      method: "POST",
      headers: { cookie: cookies.USER!, "content-type": "application/json" },
      body: '{"question":"',
      stream: { bytes: 300 * 1024 * 1024, declare: true },
    });
    expect(declared.status).toBe(413);
    expect(declared.headers.connection).toBe("close");
    expect(JSON.parse(declared.text).error.message).toMatch(/larger than 200 MB|larger than 1 MB/);
    expect(declared.sentBytes).toBeLessThan(64 * 1024 * 1024);

    const chunked = await rawRequest(`${client.baseUrl}/api/runs`, {
      method: "POST",
      headers: { cookie: cookies.USER!, "content-type": "application/json" },
      body: '{"question":"',
      stream: { bytes: 300 * 1024 * 1024, declare: false },
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.text).error).toEqual({
      code: "PAYLOAD_TOO_LARGE",
      message: "The JSON body is larger than 1 MB, the most this endpoint accepts.",
    });
    expect(chunked.sentBytes).toBeLessThan(64 * 1024 * 1024);
    expect((await client.request(null, "GET", "/api/health")).status).toBe(200);
  });

  it("asks for JSON as application/json", async () => {
    const r = await rawRequest(`${client.baseUrl}/api/runs`, {
      method: "POST",
      headers: { cookie: cookies.USER!, "content-type": "text/plain" },
      body: JSON.stringify({ question: "How many orders were returned?" }),
    });
    expect(r.status).toBe(415);
    expect(JSON.parse(r.text).error.message).toBe("Send the request body as JSON with Content-Type: application/json.");
  });

  it("keeps a hostile callbackUrl on the origin through a real sign-in (case 7)", async () => {
    const { context, page } = await newPage(browser);
    try {
      for (const hostile of ["/%5Cevil.example/x", "/%09/evil.example/x", "//evil.example/x"]) {
        await page.goto(`/signin?callbackUrl=${hostile}`);
        await new SignInPage(page).signIn(demo("USER").email, demo("USER").password);
        await page.waitForURL((u) => u.pathname === "/ask");
        expect(staysOnOrigin(page.url(), client.baseUrl)).toBe(true);
        // Signed in now: the page redirects at once, and still only here.
        await page.goto(`/signin?callbackUrl=${hostile}`);
        await page.waitForURL((u) => u.pathname === "/ask");
        expect(new URL(page.url()).origin).toBe(new URL(client.baseUrl).origin);
        await context.clearCookies();
      }
      // A same-origin path is still honoured.
      await page.goto("/signin?callbackUrl=%2Fhistory");
      await new SignInPage(page).signIn(demo("USER").email, demo("USER").password);
      await page.waitForURL((u) => u.pathname === "/history");
    } finally {
      await context.close();
    }
  });
});

describe("fair use (issue 31, case 15)", () => {
  it("an admin sets the questions per person on Settings; one more is refused on the Ask page with a clear message", async () => {
    const admin = await newPage(browser);
    const asker = await newPage(browser);
    let busy = true;
    const keepBusy = (async () => {
      // Runs back to back on the business user's account: its one slot is taken almost all the time.
      while (busy) {
        await rawRequest(`${client.baseUrl}/api/runs`, {
          method: "POST",
          headers: { cookie: cookies.USER!, "content-type": "application/json" },
          body: JSON.stringify({ question: "How many orders were returned?" }),
        }).catch(() => undefined);
      }
    })();
    try {
      await new SignInPage(admin.page).open();
      await new SignInPage(admin.page).signIn(demo("ADMIN").email, demo("ADMIN").password);
      await admin.page.waitForURL(/\/ask$/);
      await admin.page.goto("/settings");
      const form = admin.page.getByRole("form", { name: "Fair use" });
      await form.getByLabel("Questions running at once, per person").fill("0");
      await form.getByRole("button", { name: "Save fair use" }).click();
      await form.getByText("At least one question must be allowed.").waitFor();
      await form.getByLabel("Questions running at once, per person").fill("1");
      await form.getByRole("button", { name: "Save fair use" }).click();
      await admin.page.getByTestId("fair-use-current").filter({ hasText: "Now: 1 at once." }).waitFor();
      await screenshot(admin.page, "settings-fair-use");

      await new SignInPage(asker.page).open();
      await new SignInPage(asker.page).signIn(demo("USER").email, demo("USER").password);
      await asker.page.waitForURL(/\/ask$/);
      const message = "You already have 1 question running, the most one person may have at once. Ask again when one of them has finished.";
      const ask = new AskPage(asker.page);
      await expect
        .poll(
          async () => {
            await ask.submit("Which customers are in Munich?");
            const said = asker.page.getByText(message);
            const answered = ask.result();
            await Promise.race([said.waitFor({ timeout: 30_000 }), answered.waitFor({ timeout: 30_000 })]).catch(() => undefined);
            return said.isVisible();
          },
          { timeout: 90_000, interval: 100 },
        )
        .toBe(true);
      await screenshot(asker.page, "ask-fair-use-refused");
    } finally {
      busy = false;
      await keepBusy;
      await client.action(cookies.ADMIN!, "saveFairUseAction", { maxConcurrentRuns: null });
      await admin.context.close();
      await asker.context.close();
    }
    // With the default back, the same person asks again.
    const r = await rawRequest(`${client.baseUrl}/api/runs`, {
      method: "POST",
      headers: { cookie: cookies.USER!, "content-type": "application/json" },
      body: JSON.stringify({ question: "How many orders were returned?" }),
    });
    expect(r.status).toBe(200);
    expect(r.text).toContain('"result"');
  });
});
