/** Used when the browser names no locale Mosaic can format for. */
export const DEFAULT_LOCALE = "en-GB";

/**
 * The reader's locale from the browser's Accept-Language header: its first language that this runtime
 * can format dates and numbers for ("de-DE,de;q=0.9,en;q=0.8" → "de-DE"). Only formats follow it; the
 * screens' words stay English.
 */
export function localeFromAcceptLanguage(header: string | null | undefined): string {
  const tags = (header ?? "")
    .split(",")
    .map((part) => {
      const [tag, ...params] = part.trim().split(";");
      const q = params.map((p) => /^q=([\d.]+)$/.exec(p.trim())?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q) };
    })
    .filter((t) => t.tag && t.tag !== "*" && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(t.tag) && t.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of tags) {
    try {
      const [supported] = Intl.DateTimeFormat.supportedLocalesOf([tag]);
      if (supported) return supported;
    } catch {
      // A malformed tag: try the next.
    }
  }
  return DEFAULT_LOCALE;
}

/** The cookie in which the browser tells the server its time zone, so server-rendered dates are the reader's. */
export const TIME_ZONE_COOKIE = "mosaic-tz";

/** Used until the browser has said its time zone (its first page), and for anything that is not one. */
export const DEFAULT_TIME_ZONE = "UTC";

/** The time zone a cookie names, if this runtime knows it ("Europe/Berlin"); otherwise UTC. */
export function timeZoneFromCookie(value: string | null | undefined): string {
  if (!value || value.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(value)) return DEFAULT_TIME_ZONE;
  try {
    return new Intl.DateTimeFormat("en", { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return DEFAULT_TIME_ZONE;
  }
}
