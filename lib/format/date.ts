/**
 * Dates and times as the reader's locale writes them, one way everywhere: "28 Nov 2026, 01:46" (en-GB),
 * "Nov 28, 2026, 1:46 AM" (en-US), "28.11.2026, 01:46" (de-DE). The time zone is the reader's where the
 * browser says it (components/ui/locale.tsx), the server's while a page is first rendered.
 */
export function formatDateTime(value: string | number | Date, locale: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone }).format(new Date(value));
}

/** A day without its time, in the same style: "28 Nov 2026". */
export function formatDate(value: string | number | Date, locale: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone }).format(new Date(value));
}
