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
