import { readFileSync } from "node:fs";
import path from "node:path";
import { rawRequest } from "./raw-http";

/**
 * A plain HTTP client for the running app, without a browser: signs in through next-auth's credentials
 * endpoint, calls route handlers, and calls server actions the way the browser does (POST to a page
 * with the action's id from the build's server-reference manifest). Used by the security e2e test and
 * `npm run bench -- attack`.
 */

/** How a sign-in reaches the server: extra headers, and the loopback address it comes from (127.x.y.z). */
export interface SignInVia {
  headers?: Record<string, string>;
  from?: string;
}

export interface ActionAnswer {
  status: number;
  data?: unknown;
  /** The typed error the action returned (lib/errors.ts ClientError), or a status-based one. */
  error?: { code: string; message: string; fields?: Record<string, string> };
}

interface ManifestEntry {
  workers: Record<string, unknown>;
  filename: string;
  exportedName: string;
}

/** "app/(workspace)/ask/page" → "/ask"; dynamic segments get a placeholder value. */
function routeOf(worker: string): string {
  const parts = worker
    .replace(/^app\//, "")
    .replace(/\/?page$/, "")
    .split("/")
    .filter((p) => p && !/^\(.*\)$/.test(p));
  return `/${parts.map((p) => (p.startsWith("[") ? "x" : p)).join("/")}`;
}

function setCookies(header: string[] | undefined): string[] {
  return (header ?? []).map((c) => c.split(";")[0]!);
}

export class AppClient {
  private readonly actions = new Map<string, { id: string; page: string }>();

  constructor(
    readonly baseUrl: string,
    manifestFile = path.resolve(".next/server/server-reference-manifest.json"),
  ) {
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { node: Record<string, ManifestEntry> };
    for (const [id, entry] of Object.entries(manifest.node)) {
      const workers = Object.keys(entry.workers).sort((a, b) => a.length - b.length);
      if (!this.actions.has(entry.exportedName) && workers[0]) this.actions.set(entry.exportedName, { id, page: routeOf(workers[0]) });
    }
  }

  /**
   * Signs in and returns the session cookie header ("name=value; …"), or throws with what next-auth said.
   * With `via.from` the requests leave from that loopback address: the server throttles by the address
   * it sees, so tests that guess passwords do it from an address of their own.
   */
  async signIn(email: string, password: string, via: SignInVia = {}): Promise<string> {
    const send = (method: string, route: string, headers: Record<string, string>, body?: string) =>
      rawRequest(`${this.baseUrl}${route}`, { method, headers: { ...via.headers, ...headers }, body, from: via.from });
    const csrfRes = await send("GET", "/api/auth/csrf", {});
    const { csrfToken } = JSON.parse(csrfRes.text) as { csrfToken: string };
    const jar = setCookies(csrfRes.headers["set-cookie"]);
    const res = await send(
      "POST",
      "/api/auth/callback/credentials",
      { "Content-Type": "application/x-www-form-urlencoded", Cookie: jar.join("; ") },
      new URLSearchParams({ csrfToken, email, password, json: "true", callbackUrl: `${this.baseUrl}/ask` }).toString(),
    );
    const session = setCookies(res.headers["set-cookie"]).find((c) => c.includes("session-token="));
    if (!session) {
      // next-auth answers a refused sign-in with the error page's URL (?error=CredentialsSignin).
      let url: string | undefined;
      try {
        url = (JSON.parse(res.text) as { url?: string }).url;
      } catch {
        // not JSON
      }
      throw new Error(`sign-in refused: ${url ?? res.headers.location ?? res.status}`);
    }
    return [...jar, session].join("; ");
  }

  /** The error code next-auth gives a refused sign-in ("CredentialsSignin", "TooManyAttempts:12"), or "ok". */
  async signInOutcome(email: string, password: string, via: SignInVia = {}): Promise<string> {
    try {
      await this.signIn(email, password, via);
      return "ok";
    } catch (e) {
      const m = /error=([^&]+)/.exec((e as Error).message);
      return m ? decodeURIComponent(m[1]!) : (e as Error).message;
    }
  }

  async request(
    cookie: string | null,
    method: string,
    route: string,
    json?: unknown,
  ): Promise<{ status: number; text: string; headers: Headers }> {
    const res = await fetch(`${this.baseUrl}${route}`, {
      method,
      redirect: "manual",
      headers: { ...(cookie ? { Cookie: cookie } : {}), ...(json !== undefined ? { "Content-Type": "application/json" } : {}) },
      body: json !== undefined ? JSON.stringify(json) : undefined,
    });
    return { status: res.status, text: await res.text(), headers: res.headers };
  }

  /** Registers a knowledge base with uploads (multipart, as the registration form sends it). */
  async register(
    cookie: string,
    payload: unknown,
    files: { name: string; bytes: Buffer }[],
  ): Promise<{ status: number; json: Record<string, unknown> | null }> {
    const body = new FormData();
    body.set("payload", JSON.stringify(payload));
    for (const f of files) body.append("files", new Blob([new Uint8Array(f.bytes)]), f.name);
    const res = await fetch(`${this.baseUrl}/api/knowledge-bases`, { method: "POST", headers: { Cookie: cookie }, body });
    return { status: res.status, json: (await res.json().catch(() => null)) as Record<string, unknown> | null };
  }

  /** Calls a server action by its exported name, as the browser would. */
  async action(cookie: string | null, name: string, input: unknown, headers: Record<string, string> = {}): Promise<ActionAnswer> {
    const action = this.actions.get(name);
    if (!action) throw new Error(`No server action named ${name} in this build.`);
    const res = await fetch(`${this.baseUrl}${action.page}`, {
      method: "POST",
      redirect: "manual",
      headers: {
        ...(cookie ? { Cookie: cookie } : {}),
        "Next-Action": action.id,
        "Content-Type": "text/plain;charset=UTF-8",
        Accept: "text/x-component",
        Origin: this.baseUrl,
        ...headers,
      },
      body: JSON.stringify([input]),
    });
    const text = await res.text();
    if (res.status >= 300 && res.status < 400) {
      const to = res.headers.get("location") ?? "";
      return { status: res.status, error: { code: /signin/.test(to) ? "UNAUTHENTICATED" : "REDIRECT", message: to } };
    }
    if (!res.ok) return { status: res.status, error: { code: String(res.status), message: text.slice(0, 300) } };
    // The React Server Components stream: the action's return value is one row "<id>:{data | serverError …}";
    // long strings travel in rows of their own, so a result too large to read this way is returned raw.
    type Row = { data?: unknown; serverError?: ActionAnswer["error"]; validationErrors?: unknown };
    let value: Row | null = null;
    for (const line of text.split("\n")) {
      const m = /^[0-9a-f]+:(\{.*\})$/.exec(line);
      if (!m) continue;
      try {
        const row = JSON.parse(m[1]!) as Row;
        if ("data" in row || "serverError" in row || "validationErrors" in row) {
          value = row;
          break;
        }
      } catch {
        // not a JSON row
      }
    }
    if (!value) return { status: res.status, data: text };
    if (value.serverError) return { status: res.status, error: value.serverError };
    if (value.validationErrors)
      return { status: res.status, error: { code: "VALIDATION", message: JSON.stringify(value.validationErrors).slice(0, 300) } };
    return { status: res.status, data: value.data };
  }
}
