import { describe, expect, it } from "vitest";
import { API_CONTENT_SECURITY_POLICY, contentSecurityPolicy, SECURITY_HEADERS, transportSecurity } from "@/lib/http/security-headers";

describe("security headers", () => {
  it("allows scripts only with the request's nonce, and no framing, plugins, foreign base or form targets", () => {
    const csp = contentSecurityPolicy("abc123==");
    const directives = Object.fromEntries(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1).join(" ")]));
    expect(directives["script-src"]).toBe("'self' 'nonce-abc123==' 'strict-dynamic'");
    expect(directives["script-src"]).not.toContain("unsafe");
    expect(directives["object-src"]).toBe("'none'");
    expect(directives["frame-ancestors"]).toBe("'none'");
    expect(directives["base-uri"]).toBe("'self'");
    expect(directives["form-action"]).toBe("'self'");
    expect(directives["default-src"]).toBe("'self'");
    expect(csp).not.toContain("upgrade-insecure-requests");
    expect(contentSecurityPolicy("n", { https: true })).toContain("upgrade-insecure-requests");
    expect(contentSecurityPolicy("n", { development: true })).toContain("'unsafe-eval'");
  });

  it("sends HSTS only over https", () => {
    expect(transportSecurity(false)).toBeNull();
    expect(transportSecurity(true)).toBe("max-age=63072000; includeSubDomains");
  });

  it("sets the usual headers on every response and locks API answers down", () => {
    const keys = SECURITY_HEADERS.map((h) => h.key);
    expect(keys).toEqual(
      expect.arrayContaining([
        "X-Content-Type-Options",
        "Referrer-Policy",
        "X-Frame-Options",
        "Cross-Origin-Opener-Policy",
        "Permissions-Policy",
      ]),
    );
    expect(API_CONTENT_SECURITY_POLICY).toBe("default-src 'none'; frame-ancestors 'none'");
  });
});
