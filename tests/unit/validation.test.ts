import { describe, expect, it } from "vitest";
import { signInSchema } from "@/lib/auth/sign-in.validation";
import { createUserSchema, updateUserSchema } from "@/lib/users/users.validation";

describe("form schemas", () => {
  it("normalises sign-in emails and rejects malformed input", () => {
    expect(signInSchema.parse({ email: "  Ada@Example.COM ", password: "x" }).email).toBe("ada@example.com");
    expect(signInSchema.safeParse({ email: "not-an-email", password: "x" }).success).toBe(false);
    expect(signInSchema.safeParse({ email: "a@b.co", password: "" }).success).toBe(false);
    expect(signInSchema.safeParse({ email: "a@b.co" }).success).toBe(false);
  });

  it("requires a strong-enough password, a role and a name for new users", () => {
    const r = createUserSchema.safeParse({ email: "x@y.io", name: "", password: "short", role: "OWNER" });
    expect(r.success).toBe(false);
    const fields = new Set(r.error!.issues.map((i) => i.path[0]));
    expect(fields).toEqual(new Set(["name", "password", "role"]));
    expect(createUserSchema.parse({ email: "X@y.zz", name: " Xi ", password: "long enough", role: "USER" })).toEqual({
      email: "x@y.zz",
      name: "Xi",
      password: "long enough",
      role: "USER",
      groupIds: [],
    });
  });

  it("rejects updates with unknown roles", () => {
    expect(updateUserSchema.safeParse({ id: "u1", role: "ROOT", active: true }).success).toBe(false);
  });
});
