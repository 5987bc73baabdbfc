import { describe, expect, it } from "vitest";
import { AppError, httpStatusFor, toClientError } from "@/lib/errors";

describe("toClientError", () => {
  it("passes allow-listed errors through with their fields", () => {
    const e = toClientError(new AppError("CONFLICT", "Email taken.", { email: "This email is taken." }));
    expect(e).toEqual({ code: "CONFLICT", message: "Email taken.", fields: { email: "This email is taken." } });
    expect(httpStatusFor(e)).toBe(409);
  });

  it("hides anything else behind a generic message with a reference id", () => {
    const e = toClientError(new Error('relation "User" does not exist at /srv/secret/path'));
    expect(e.code).toBe("INTERNAL");
    expect(e.message).not.toContain("relation");
    expect(e.message).not.toContain("/srv");
    expect(e.ref).toMatch(/^[0-9a-f]{8}$/);
    expect(e.message).toContain(e.ref!);
    expect(httpStatusFor(e)).toBe(500);
  });
});
