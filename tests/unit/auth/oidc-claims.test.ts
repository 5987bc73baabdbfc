import { describe, expect, it } from "vitest";
import { claimMapping, claimValues, mappedGroupNames, mappedRole } from "@/lib/auth/oidc-claims";
import { parseEnv } from "@/lib/env";

describe("OIDC claim mapping", () => {
  const defaults = claimMapping({ OIDC_ROLES_CLAIM: "roles", OIDC_GROUPS_CLAIM: "groups" });

  it("reads a string, a list or a nested claim", () => {
    expect(claimValues({ roles: "admin analyst" }, "roles")).toEqual(["admin", "analyst"]);
    expect(claimValues({ roles: ["a", 1, "b"] }, "roles")).toEqual(["a", "b"]);
    expect(claimValues({ realm_access: { roles: ["x"] } }, "realm_access.roles")).toEqual(["x"]);
    expect(claimValues({}, "roles")).toEqual([]);
  });

  it("maps to the highest role named, and to USER when nothing maps", () => {
    expect(mappedRole({ roles: ["user", "Admin"] }, defaults).role).toBe("ADMIN");
    expect(mappedRole({ roles: ["analyst"] }, defaults).role).toBe("ANALYST");
    expect(mappedRole({ roles: ["root", "superuser"] }, defaults).role).toBe("USER");
    expect(mappedRole({}, defaults).role).toBe("USER");
    const custom = claimMapping({ OIDC_ROLES_CLAIM: "roles", OIDC_GROUPS_CLAIM: "groups", OIDC_ROLE_MAP: "it-ops=ADMIN" });
    // With a custom map, the default names mean nothing.
    expect(mappedRole({ roles: ["admin"] }, custom).role).toBe("USER");
    expect(mappedRole({ roles: ["IT-Ops"] }, custom).role).toBe("ADMIN");
  });

  it("maps groups by name, or through OIDC_GROUP_MAP", () => {
    expect(mappedGroupNames({ groups: ["Finance", "HR"] }, defaults)).toEqual(["finance", "hr"]);
    const custom = claimMapping({ OIDC_ROLES_CLAIM: "roles", OIDC_GROUPS_CLAIM: "groups", OIDC_GROUP_MAP: "hr-staff=HR" });
    expect(mappedGroupNames({ groups: ["hr-staff", "Finance"] }, custom)).toEqual(["hr"]);
  });

  it("validates the OIDC variables together", () => {
    expect(() => parseEnv({ OIDC_ISSUER: "https://idp.example.com" })).toThrow(/OIDC_CLIENT_ID: must be set together/);
    expect(() => parseEnv({ OIDC_ONLY: "true" })).toThrow(/OIDC_ONLY: needs single sign-on configured/);
    expect(() => parseEnv({ OIDC_ROLE_MAP: "a=ROOT" })).toThrow(/OIDC_ROLE_MAP: each role must be ADMIN, ANALYST or USER/);
    const env = parseEnv({ OIDC_ISSUER: "https://idp.example.com", OIDC_CLIENT_ID: "c", OIDC_CLIENT_SECRET: "s", OIDC_ONLY: "yes" });
    expect(env).toMatchObject({ OIDC_ONLY: true, OIDC_NAME: "single sign-on", OIDC_ROLES_CLAIM: "roles" });
  });
});
