import { NextRequest } from "next/server";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { CurrentUser } from "@/lib/auth/session";
import { AppError } from "@/lib/errors";

// The session lookup is the only seam: everything else (role checks, validation, error mapping) is the real code.
let current: CurrentUser | null = null;
vi.mock("@/lib/auth/session", () => ({ getCurrentUser: async () => current }));

const { authActionClient } = await import("@/lib/actions/safe-action");
const { withAuthRoute } = await import("@/lib/http/route");

const admin: CurrentUser = { id: "a1", email: "a@x.io", name: "A", role: "ADMIN", groupIds: [] };
const user: CurrentUser = { id: "u1", email: "u@x.io", name: "U", role: "USER", groupIds: [] };

const adminAction = authActionClient
  .metadata({ name: "test.admin", roles: ["ADMIN"] })
  .inputSchema(z.object({ n: z.number().int() }))
  .action(async ({ parsedInput, ctx }) => ({ doubled: parsedInput.n * 2, by: ctx.user.id }));

const crashingAction = authActionClient
  .metadata({ name: "test.crash" })
  .inputSchema(z.object({}))
  .action(async () => {
    throw new Error("connection refused to 10.0.0.5:5432 (password=hunter2)");
  });

const conflictAction = authActionClient
  .metadata({ name: "test.conflict" })
  .inputSchema(z.object({}))
  .action(async () => {
    throw new AppError("CONFLICT", "Already there.", { name: "Taken." });
  });

describe("authenticated action client", () => {
  beforeEach(() => {
    current = null;
  });

  it("refuses a signed-out caller", async () => {
    expect((await adminAction({ n: 1 }))?.serverError).toMatchObject({ code: "UNAUTHENTICATED" });
  });

  it("refuses a role not in the metadata and never runs the handler", async () => {
    current = user;
    expect((await adminAction({ n: 1 }))?.serverError).toMatchObject({ code: "FORBIDDEN" });
  });

  it("validates input before the handler and runs it for the right role", async () => {
    current = admin;
    const bad = await adminAction({ n: 1.5 } as never);
    expect(bad?.validationErrors).toBeDefined();
    expect(bad?.data).toBeUndefined();
    expect((await adminAction({ n: 21 }))?.data).toEqual({ doubled: 42, by: "a1" });
  });

  it("passes allow-listed errors and hides everything else behind a reference", async () => {
    current = user;
    expect((await conflictAction({}))?.serverError).toEqual({ code: "CONFLICT", message: "Already there.", fields: { name: "Taken." } });
    const crash = (await crashingAction({}))?.serverError;
    expect(crash?.code).toBe("INTERNAL");
    expect(JSON.stringify(crash)).not.toContain("hunter2");
    expect(JSON.stringify(crash)).not.toContain("10.0.0.5");
    expect(crash?.ref).toMatch(/^[0-9a-f]{8}$/);
  });
});

describe("withAuthRoute", () => {
  const route = withAuthRoute(
    { name: "test.route", roles: ["ADMIN"], input: z.object({ q: z.string().min(2) }) },
    async ({ input, user }) => ({
      q: input.q,
      who: user.id,
    }),
  );
  const crashing = withAuthRoute({ name: "test.crash" }, async () => {
    throw new Error("secret internals");
  });
  const call = (r: typeof route, url: string, init?: RequestInit) =>
    r(new NextRequest(url, init as never), { params: Promise.resolve({}) });

  beforeEach(() => {
    current = null;
  });

  it("answers 401, 403, 400 and 200 as the session, role and input warrant", async () => {
    expect((await call(route, "http://x/api?q=ok")).status).toBe(401);
    current = user;
    const forbidden = await call(route, "http://x/api?q=ok");
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({ error: { code: "FORBIDDEN", message: "You do not have permission to do this." } });
    current = admin;
    const invalid = await call(route, "http://x/api?q=x");
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).error.fields).toHaveProperty("q");
    const ok = await call(route, "http://x/api?q=hello");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ q: "hello", who: "a1" });
  });

  it("reads JSON bodies and refuses malformed JSON with a clear message", async () => {
    current = admin;
    const bad = await call(route, "http://x/api", { method: "POST", body: "{not json", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toBe("The request body must be JSON.");
    const good = await call(route, "http://x/api", {
      method: "POST",
      body: JSON.stringify({ q: "body" }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(await good.json()).toEqual({ q: "body", who: "a1" });
  });

  it("turns unexpected errors into a 500 with a reference and no details", async () => {
    current = user;
    const res = await call(crashing, "http://x/api");
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body.error.code).toBe("INTERNAL");
    expect(JSON.stringify(body)).not.toContain("secret internals");
  });
});
