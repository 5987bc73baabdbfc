import { describe, expect, it } from "vitest";
import { navItemsFor, rolesFor } from "@/lib/navigation";

describe("role-aware navigation", () => {
  it("shows each role exactly its pages", () => {
    expect(navItemsFor("USER").map((i) => i.href)).toEqual(["/ask", "/history"]);
    expect(navItemsFor("ANALYST").map((i) => i.href)).toEqual([
      "/ask",
      "/history",
      "/source-objects",
      "/guides",
      "/feedback",
      "/evaluation",
    ]);
    expect(navItemsFor("ADMIN").map((i) => i.href)).toEqual([
      "/ask",
      "/history",
      "/knowledge-bases",
      "/source-objects",
      "/guides",
      "/feedback",
      "/evaluation",
      "/users",
      "/settings",
      "/audit",
    ]);
  });

  it("gives page guards the same role lists as the navigation", () => {
    expect(rolesFor("/users")).toEqual(["ADMIN"]);
    expect(rolesFor("/evaluation")).toEqual(["ADMIN", "ANALYST"]);
    expect(rolesFor("/feedback")).toEqual(["ADMIN", "ANALYST"]);
    expect(() => rolesFor("/nope")).toThrow(/No navigation entry/);
  });
});
