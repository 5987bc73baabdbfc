/**
 * Where to go after signing in (issue 31, case 7): only a path on this origin, decided after URL
 * parsing the way a browser parses it. Browsers read "\" as "/" in http(s) URLs and drop tabs and
 * newlines, so "/\evil.example/x", "/\t/evil.example" and "/%09/…" (decoded by the query string) all become
 * "//evil.example/…": another site. Anything that does not resolve to this origin, or whose path
 * would itself start with "//", falls back to the default.
 */

export const DEFAULT_AFTER_SIGN_IN = "/ask";

// A fixed origin to resolve against: only whether the result stays on it matters.
const BASE = "http://mosaic.invalid";

export function safeCallbackPath(value: unknown, fallback: string = DEFAULT_AFTER_SIGN_IN): string {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 2_000) return fallback;
  // Control characters (tabs, newlines: removed by URL parsers) and backslashes (read as "/") are refused outright.
  if (/[\u0000-\u001f\u007f\\]/.test(raw)) return fallback;
  if (!raw.startsWith("/") || raw.startsWith("//")) return fallback;
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== BASE) return fallback;
  // "/.//evil.example" normalises to the path "//evil.example", a protocol-relative URL once written out.
  if (url.pathname.startsWith("//")) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}

/**
 * next-auth's redirect callback: a path or an absolute URL on the app's own origin becomes a URL on
 * that origin; anything else goes to the default page.
 */
export function safeRedirectUrl(url: string, baseUrl: string): string {
  const base = new URL(baseUrl);
  let candidate = url;
  if (!url.startsWith("/")) {
    try {
      const parsed = new URL(url);
      if (parsed.origin !== base.origin) return new URL(DEFAULT_AFTER_SIGN_IN, base).toString();
      candidate = `${parsed.pathname}${parsed.search}${parsed.hash}`;
    } catch {
      return new URL(DEFAULT_AFTER_SIGN_IN, base).toString();
    }
  }
  return `${base.origin}${safeCallbackPath(candidate)}`;
}
