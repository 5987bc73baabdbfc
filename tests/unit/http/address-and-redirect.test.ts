import { describe, expect, it } from "vitest";
import { PEER_HEADER, markPeerHeaderStamped, requestClientAddress, resolveClientAddress } from "@/lib/http/client-address";
import { safeCallbackPath, safeRedirectUrl } from "@/lib/http/safe-redirect";
import { isTrustedProxy, normalizeAddress, parseTrustProxy } from "@/lib/net/ip";
import { EnvError, parseEnv } from "@/lib/env";

const proxies = (v: string) => {
  const parsed = parseTrustProxy(v);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.proxies;
};
const none = proxies("");

describe("TRUST_PROXY", () => {
  it("reads addresses, CIDR ranges and the named ranges, IPv4 and IPv6", () => {
    const p = proxies("10.0.0.0/8, 192.0.2.7, fd00::/8, loopback");
    expect(["10.1.2.3", "192.0.2.7", "fd12::1", "127.0.0.1", "::1", "::ffff:10.9.9.9"].map((a) => isTrustedProxy(a, p))).toEqual(
      Array(6).fill(true),
    );
    expect(["11.0.0.1", "192.0.2.8", "fe80::1", "2001:db8::1"].map((a) => isTrustedProxy(a, p))).toEqual(Array(4).fill(false));
    expect(isTrustedProxy("172.31.255.255", proxies("private"))).toBe(true);
    expect(isTrustedProxy("2001:db8::1:5", proxies("2001:db8::/32"))).toBe(true);
  });

  it("refuses what is no address or range, naming it, at start", () => {
    expect(parseTrustProxy("10.0.0.0/33")).toMatchObject({ ok: false });
    expect(parseTrustProxy("proxy.internal")).toMatchObject({ ok: false, problem: expect.stringContaining('"proxy.internal"') });
    expect(() => parseEnv({ TRUST_PROXY: "10.0.0.1, everyone" })).toThrow(EnvError);
    expect(() => parseEnv({ TRUST_PROXY: "10.0.0.1, everyone" })).toThrow(/TRUST_PROXY: "everyone" is not an IP address/);
    expect(parseEnv({}).TRUST_PROXY.ranges).toEqual([]);
  });

  it("normalises what sockets and proxies write", () => {
    expect(normalizeAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(normalizeAddress("[2001:DB8::1]:443")).toBe("2001:db8::1");
    expect(normalizeAddress("203.0.113.9:5123")).toBe("203.0.113.9");
    expect(normalizeAddress("<script>")).toBeNull();
    expect(normalizeAddress("unknown")).toBeNull();
  });
});

describe("the client address", () => {
  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(resolveClientAddress("198.51.100.4", "203.0.113.77", none)).toBe("198.51.100.4");
    expect(resolveClientAddress("::ffff:198.51.100.4", "1.1.1.1, 2.2.2.2", none)).toBe("198.51.100.4");
    // A peer that is not a trusted proxy cannot vouch for anyone, even with TRUST_PROXY set.
    expect(resolveClientAddress("198.51.100.4", "203.0.113.77", proxies("10.0.0.0/8"))).toBe("198.51.100.4");
    expect(resolveClientAddress(undefined, "203.0.113.77", none)).toBe("unknown");
  });

  it("walks X-Forwarded-For from the right past trusted proxies only", () => {
    const p = proxies("10.0.0.0/8");
    // client-written junk, the real client (appended by the outer proxy), then an inner proxy
    expect(resolveClientAddress("10.0.0.2", "6.6.6.6, 203.0.113.5, 10.0.0.1", p)).toBe("203.0.113.5");
    expect(resolveClientAddress("10.0.0.2", ["6.6.6.6, 203.0.113.5", "10.0.0.1"], p)).toBe("203.0.113.5");
    // Every hop a trusted proxy: the leftmost one is the client.
    expect(resolveClientAddress("10.0.0.2", "10.0.0.9, 10.0.0.1", p)).toBe("10.0.0.9");
    // No header from a trusted proxy: the proxy itself.
    expect(resolveClientAddress("10.0.0.2", null, p)).toBe("10.0.0.2");
    // An entry that is no address stops the walk at the last trusted hop, never reading further left.
    expect(resolveClientAddress("10.0.0.2", "203.0.113.5, garbage, 10.0.0.1", p)).toBe("10.0.0.1");
  });

  it("believes the peer header only under Mosaic's own server, which overwrites it", () => {
    const headers = { [PEER_HEADER]: "198.51.100.4", "x-forwarded-for": "203.0.113.77" };
    const warnings: string[] = [];
    // Not stamped (next dev): Next.js's own X-Forwarded-For, with a warning that a client can write it.
    expect(requestClientAddress(headers, none, (m) => warnings.push(m))).toBe("203.0.113.77");
    expect(warnings).toHaveLength(1);
    markPeerHeaderStamped();
    expect(requestClientAddress(headers, none)).toBe("198.51.100.4");
    expect(requestClientAddress(new Headers(headers), none)).toBe("198.51.100.4");
    expect(requestClientAddress({ [PEER_HEADER]: "10.0.0.2", "x-forwarded-for": "203.0.113.77" }, proxies("10.0.0.0/8"))).toBe(
      "203.0.113.77",
    );
  });
});

describe("callbackUrl", () => {
  it("keeps paths on this origin", () => {
    expect(safeCallbackPath("/history")).toBe("/history");
    expect(safeCallbackPath("/knowledge-bases/abc?tab=health#top")).toBe("/knowledge-bases/abc?tab=health#top");
    expect(safeCallbackPath(["/guides", "//evil.example"])).toBe("/guides");
    expect(safeCallbackPath("/a/../settings")).toBe("/settings");
    expect(safeCallbackPath("/%5Cevil.example")).toBe("/%5Cevil.example");
  });

  it.each([
    ["backslash", "/\\evil.example/x"],
    ["slash backslash", "/\\/evil.example/x"],
    ["backslash slash", "\\/evil.example"],
    ["two backslashes", "\\\\evil.example"],
    ["a tab (decoded %09)", "/\t/evil.example/x"],
    ["a newline", "/\n/evil.example"],
    ["a carriage return", "/\r/evil.example"],
    ["a NUL", "/\u0000/evil.example"],
    ["protocol-relative", "//evil.example/x"],
    ["three slashes", "///evil.example"],
    ["absolute", "https://evil.example/x"],
    ["scheme without slashes", "https:evil.example"],
    ["javascript:", "javascript:alert(1)"],
    ["data:", "data:text/html,<script>alert(1)</script>"],
    ["dot segments to //", "/.//evil.example"],
    ["dot-dot segments to //", "/x/..//evil.example"],
    ["not a path", "evil.example"],
    ["empty", ""],
    ["a number", 42],
    ["too long", `/${"a".repeat(3000)}`],
  ])("refuses %s", (_, value) => {
    expect(safeCallbackPath(value)).toBe("/ask");
  });

  it("never sends next-auth's redirect to another origin", () => {
    const base = "http://localhost:3000";
    expect(safeRedirectUrl("/history", base)).toBe("http://localhost:3000/history");
    expect(safeRedirectUrl("http://localhost:3000/guides?x=1", base)).toBe("http://localhost:3000/guides?x=1");
    for (const hostile of [
      "https://evil.example/",
      "http://localhost:3001/",
      "/\\evil.example",
      "//evil.example",
      "https:evil.example",
      "/\t/evil",
    ]) {
      expect(new URL(safeRedirectUrl(hostile, base)).origin).toBe(base);
    }
  });
});
