import { isIP } from "node:net";

/**
 * IP addresses and ranges, for reading TRUST_PROXY (lib/env.ts) and X-Forwarded-For
 * (lib/http/client-address.ts): plain parsing with no dependencies, so the environment check can use it.
 */

export interface Cidr {
  family: 4 | 6;
  bits: bigint;
  prefix: number;
}

/** A parsed TRUST_PROXY: addresses and CIDR ranges of the proxies whose X-Forwarded-For may be read. */
export interface TrustedProxies {
  ranges: Cidr[];
}

const KEYWORDS: Record<string, string[]> = {
  loopback: ["127.0.0.0/8", "::1/128"],
  private: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
  linklocal: ["169.254.0.0/16", "fe80::/10"],
};

/** "::ffff:10.0.0.1" → "10.0.0.1"; anything that is not an IP address → null. */
export function normalizeAddress(raw: string | undefined | null): string | null {
  if (!raw) return null;
  let v = raw.trim();
  // "[::1]:1234" and "1.2.3.4:5678", as some proxies write them.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(v);
  if (bracketed) v = bracketed[1]!;
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(v)) v = v.slice(0, v.lastIndexOf(":"));
  v = v.replace(/%[\w.-]+$/, ""); // an IPv6 zone id
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(v);
  if (mapped) v = mapped[1]!;
  return isIP(v) ? v.toLowerCase() : null;
}

function toBits(address: string): { family: 4 | 6; bits: bigint } {
  if (isIP(address) === 4) {
    return { family: 4, bits: address.split(".").reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n) };
  }
  // Expand "::" and a trailing dotted quad into eight 16-bit groups.
  let head = address;
  const quad = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(head);
  if (quad) {
    const b = toBits(quad[1]!).bits;
    head = `${head.slice(0, -quad[1]!.length)}${(b >> 16n).toString(16)}:${(b & 0xffffn).toString(16)}`;
  }
  const [left, right] = head.split("::") as [string, string | undefined];
  const l = left ? left.split(":") : [];
  const r = right !== undefined && right !== "" ? right.split(":") : [];
  const groups = right === undefined ? l : [...l, ...Array(8 - l.length - r.length).fill("0"), ...r];
  return { family: 6, bits: groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || "0", 16)), 0n) };
}

function parseRange(text: string): Cidr | null {
  const [addr, prefixText] = text.split("/") as [string, string | undefined];
  const address = normalizeAddress(addr);
  if (!address) return null;
  const { family, bits } = toBits(address);
  const width = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? width : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > width || (prefixText !== undefined && !/^\d+$/.test(prefixText))) return null;
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(width - prefix);
  return { family, bits: bits & mask, prefix };
}

/**
 * Parses TRUST_PROXY: comma-separated addresses, CIDR ranges and the words loopback, private and
 * linklocal. Returns the problem in words for an entry that is none of these (lib/env.ts reports it).
 */
export function parseTrustProxy(value: string | undefined): { ok: true; proxies: TrustedProxies } | { ok: false; problem: string } {
  const ranges: Cidr[] = [];
  for (const entry of (value ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const expanded = KEYWORDS[entry.toLowerCase()] ?? [entry];
    for (const e of expanded) {
      const range = parseRange(e);
      if (!range) {
        return {
          ok: false,
          problem: `"${entry}" is not an IP address, a CIDR range (10.0.0.0/8, fd00::/8) or one of loopback, private, linklocal`,
        };
      }
      ranges.push(range);
    }
  }
  return { ok: true, proxies: { ranges } };
}

export function isTrustedProxy(address: string, proxies: TrustedProxies): boolean {
  const normalized = normalizeAddress(address);
  if (!normalized || proxies.ranges.length === 0) return false;
  const { family, bits } = toBits(normalized);
  const width = family === 4 ? 32 : 128;
  return proxies.ranges.some((r) => {
    if (r.family !== family) return false;
    const mask = r.prefix === 0 ? 0n : ((1n << BigInt(r.prefix)) - 1n) << BigInt(width - r.prefix);
    return (bits & mask) === r.bits;
  });
}
