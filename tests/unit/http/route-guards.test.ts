import { NextRequest } from "next/server";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { CurrentUser } from "@/lib/auth/session";
import { readBoundedBody } from "@/lib/http/body";
import { requestCredentials } from "@/lib/http/credentials";
import { doorVerdict } from "@/lib/http/door";
import { sameOriginVerdict } from "@/lib/http/same-origin";

// The session lookup is the only seam; the origin rule, body bounds and error mapping are the real code.
let current: CurrentUser | null = null;
vi.mock("@/lib/auth/session", () => ({ getCurrentUser: async () => current }));
const { withAuthRoute, withPublicRoute } = await import("@/lib/http/route");

const admin: CurrentUser = { id: "a1", email: "a@x.io", name: "A", role: "ADMIN", groupIds: [] };
const headersOf = (h: Record<string, string>) => (n: string) => h[n.toLowerCase()] ?? null;
const COOKIE = { cookie: "next-auth.session-token=abc" };

describe("the same-origin rule", () => {
  const own = { host: "localhost:3000" };
  it.each([
    ["a cross-port page (same-site)", { ...own, "sec-fetch-site": "same-site", origin: "http://localhost:4000" }],
    ["another site", { ...own, "sec-fetch-site": "cross-site", origin: "https://evil.example" }],
    ["another site, Origin only", { ...own, origin: "https://evil.example" }],
    ["another port, Origin only", { ...own, origin: "http://localhost:4000" }],
    ["a sandboxed page (Origin: null)", { ...own, origin: "null" }],
    ["a typed-in request (Sec-Fetch-Site: none)", { ...own, "sec-fetch-site": "none" }],
    ["a cross-site fetch without Origin", { ...own, "sec-fetch-site": "cross-site" }],
    ["an unreadable Origin", { ...own, origin: "http://[bad" }],
  ])("refuses %s", (_, h) => {
    expect(sameOriginVerdict("POST", headersOf(h))).toMatchObject({ ok: false });
    expect(sameOriginVerdict("DELETE", headersOf(h))).toMatchObject({ ok: false });
  });

  it("lets through the app's own pages, proxied hosts, non-browser clients and reads", () => {
    expect(sameOriginVerdict("POST", headersOf({ ...own, "sec-fetch-site": "same-origin", origin: "http://localhost:3000" }))).toEqual({
      ok: true,
    });
    expect(
      sameOriginVerdict(
        "POST",
        headersOf({ host: "app:3000", "x-forwarded-host": "mosaic.example.com", origin: "https://mosaic.example.com" }),
      ),
    ).toEqual({ ok: true });
    expect(
      sameOriginVerdict("POST", headersOf({ host: "10.0.0.5:3000", origin: "https://mosaic.example.com" }), "https://mosaic.example.com"),
    ).toEqual({ ok: true });
    expect(sameOriginVerdict("POST", headersOf(own))).toEqual({ ok: true });
    expect(sameOriginVerdict("GET", headersOf({ ...own, "sec-fetch-site": "cross-site", origin: "https://evil.example" }))).toEqual({
      ok: true,
    });
  });
});

describe("credentials", () => {
  it("tells a session cookie from a bare bearer token; both together count as a session", () => {
    expect(requestCredentials(headersOf(COOKIE))).toEqual({ kind: "session" });
    expect(requestCredentials(headersOf({ cookie: "__Secure-next-auth.session-token.0=abc; x=1" }))).toEqual({ kind: "session" });
    expect(requestCredentials(headersOf({ authorization: "Bearer mos_abc" }))).toEqual({ kind: "bearer", token: "mos_abc" });
    expect(requestCredentials(headersOf({ ...COOKIE, authorization: "Bearer mos_abc" }))).toEqual({ kind: "session" });
    expect(requestCredentials(headersOf({ cookie: "theme=dark" }))).toEqual({ kind: "none" });
  });
});

/** A body that streams `total` bytes in 64 KB chunks without a declared length, counting what was pulled. */
function chunkedBody(total: number) {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(65_536, total - sent);
      sent += n;
      controller.enqueue(new Uint8Array(n).fill(0x20));
    },
  });
  return { stream, pulled: () => sent };
}

describe("bounded bodies", () => {
  it("refuses a declared length over the limit without reading a byte", async () => {
    const body = chunkedBody(10_000_000);
    const req = new Request("http://x/", {
      method: "POST",
      body: body.stream,
      duplex: "half",
      headers: { "content-length": "314572800" },
    } as RequestInit);
    await expect(readBoundedBody(req, 1024 * 1024, "JSON body")).rejects.toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      message: "The JSON body is larger than 1 MB, the most this endpoint accepts.",
    });
    expect(body.pulled()).toBeLessThanOrEqual(65_536 * 2);
  });

  it("cuts a body without a declared length at the limit while it streams", async () => {
    const body = chunkedBody(300 * 1024 * 1024);
    const req = new Request("http://x/", { method: "POST", body: body.stream, duplex: "half" } as RequestInit);
    await expect(readBoundedBody(req, 1024 * 1024)).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(body.pulled()).toBeLessThan(2 * 1024 * 1024);
  });

  it("reads a body within the limit, and refuses a malformed length", async () => {
    const ok = await readBoundedBody(new Request("http://x/", { method: "POST", body: "hello" }), 10);
    expect(ok.toString()).toBe("hello");
    const bad = new Request("http://x/", { method: "POST", body: "x", headers: { "content-length": "1e9" } });
    await expect(readBoundedBody(bad, 10)).rejects.toMatchObject({ code: "VALIDATION" });
  });
});

describe("withAuthRoute's guards", () => {
  const handler = vi.fn(async ({ input }: { input: { name: string } }) => ({ created: input.name }));
  const route = withAuthRoute({ name: "test.create", roles: ["ADMIN"], input: z.object({ name: z.string() }) }, handler);
  const noInput = withAuthRoute({ name: "test.cancel", roles: ["ADMIN"] }, async () => ({ cancelled: true }));
  const call = (r: typeof route | typeof noInput, init: RequestInit & { headers?: Record<string, string> }) =>
    r(
      new NextRequest("http://localhost:3000/api/x", {
        method: "POST",
        ...init,
        headers: { host: "localhost:3000", ...COOKIE, ...init.headers },
      } as never),
      {
        params: Promise.resolve({}),
      },
    );

  beforeEach(() => {
    current = admin;
    handler.mockClear();
  });

  it("refuses the cross-origin text/plain POST with the admin's cookie before anything runs (case 6)", async () => {
    const res = await call(route, {
      body: JSON.stringify({ name: "evil" }),
      headers: { "content-type": "text/plain", origin: "http://localhost:4000", "sec-fetch-site": "same-site" },
    });
    expect(res.status).toBe(403);
    expect((await res.json()).error.message).toMatch(/^Refused a same-site request .*Mosaic's own pages/);
    expect(handler).not.toHaveBeenCalled();
  });

  it("refuses a body that is not declared as JSON with 415, unread", async () => {
    const res = await call(route, { body: JSON.stringify({ name: "x" }), headers: { "content-type": "text/plain" } });
    expect(res.status).toBe(415);
    expect((await res.json()).error).toEqual({
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: "Send the request body as JSON with Content-Type: application/json.",
    });
  });

  it("refuses an oversize JSON body with 413 and closes the connection", async () => {
    const declared = await call(route, { body: "{}", headers: { "content-type": "application/json", "content-length": "314572800" } });
    expect(declared.status).toBe(413);
    expect(declared.headers.get("connection")).toBe("close");
    const body = chunkedBody(50 * 1024 * 1024);
    const streamed = await call(route, { body: body.stream, duplex: "half", headers: { "content-type": "application/json" } } as never);
    expect(streamed.status).toBe(413);
    expect(body.pulled()).toBeLessThan(3 * 1024 * 1024);
    // A route that takes no body still bounds (and consumes) one.
    const unread = chunkedBody(50 * 1024 * 1024);
    expect((await call(noInput, { body: unread.stream, duplex: "half" } as never)).status).toBe(413);
    expect(handler).not.toHaveBeenCalled();
  });

  it("runs the handler for a same-origin JSON request", async () => {
    const res = await call(route, {
      body: JSON.stringify({ name: "ok" }),
      headers: { "content-type": "application/json", origin: "http://localhost:3000", "sec-fetch-site": "same-origin" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ created: "ok" });
  });

  it("takes no API key on a route that names no scope, whatever the origin (keys work on /api/v1)", async () => {
    current = null;
    const res = await route(
      new NextRequest("http://localhost:3000/api/x", {
        method: "POST",
        body: "{}",
        headers: {
          host: "localhost:3000",
          authorization: "Bearer mos_x",
          origin: "https://elsewhere.example",
          "content-type": "application/json",
        },
      }),
      { params: Promise.resolve({}) },
    );
    expect(res.status).toBe(401);
    expect((await res.json()).error.message).toMatch(/takes a signed-in session; API keys work on \/api\/v1/);
  });

  it("hands a public route's handler the body it read, bounded", async () => {
    const seen: string[] = [];
    const pub = withPublicRoute({ name: "test.public", bodyLimitBytes: 16 }, async ({ req }) => {
      seen.push(await req.text());
      return new Response("ok");
    });
    const ctx = { params: Promise.resolve({}) };
    expect(
      (
        await pub(
          new NextRequest("http://localhost:3000/api/p", { method: "POST", body: "a=1&b=2", headers: { host: "localhost:3000" } }),
          ctx,
        )
      ).status,
    ).toBe(200);
    expect(seen).toEqual(["a=1&b=2"]);
    expect(
      (
        await pub(
          new NextRequest("http://localhost:3000/api/p", { method: "POST", body: "x".repeat(17), headers: { host: "localhost:3000" } }),
          ctx,
        )
      ).status,
    ).toBe(413);
    const cross = new NextRequest("http://localhost:3000/api/p", {
      method: "POST",
      body: "a=1",
      headers: { host: "localhost:3000", origin: "https://evil.example" },
    });
    expect((await pub(cross, ctx)).status).toBe(403);
  });
});

describe("the server's door (scripts/server.ts)", () => {
  const limits = { apiMaxBytes: 200_000_000, pageMaxBytes: 1024 * 1024 };
  const req = (url: string, contentLength?: string, transferEncoding?: string) => ({
    method: "POST",
    url,
    contentLength,
    transferEncoding,
  });
  it("refuses declared lengths over the path's limit, and chunked page bodies", () => {
    expect(doorVerdict(req("/api/runs", "314572800"), limits)).toMatchObject({ ok: false, status: 413 });
    expect(doorVerdict(req("/api/knowledge-bases", "150000000"), limits)).toEqual({ ok: true });
    expect(doorVerdict(req("/ask", "2000000"), limits)).toMatchObject({ ok: false, status: 413 });
    expect(doorVerdict(req("/ask?x=1", "2000"), limits)).toEqual({ ok: true });
    expect(doorVerdict(req("/ask", undefined, "chunked"), limits)).toMatchObject({ ok: false, status: 411 });
    expect(doorVerdict(req("/api/runs", undefined, "chunked"), limits)).toEqual({ ok: true });
    expect(doorVerdict(req("/api/runs", "-1"), limits)).toMatchObject({ ok: false, status: 400 });
    expect(doorVerdict(req("/apix", "2000000"), limits)).toMatchObject({ ok: false, status: 413 });
  });
});
