"use client";

import { createContext, type ReactNode, useContext, useSyncExternalStore } from "react";
import { formatDate, formatDateTime } from "@/lib/format/date";
import { DEFAULT_LOCALE } from "@/lib/format/locale";

/**
 * The reader's locale (from the browser's Accept-Language, read once per request in app/layout.tsx) for
 * every date and number a screen formats, so the server's first render and the browser's agree.
 */
const LocaleContext = createContext<string>(DEFAULT_LOCALE);

export function LocaleProvider({ locale, children }: { locale: string; children: ReactNode }) {
  return <LocaleContext.Provider value={locale}>{children}</LocaleContext.Provider>;
}

export function useLocale(): string {
  return useContext(LocaleContext);
}

const noSubscription = () => () => {};
const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
const serverTimeZone = () => "UTC";

/**
 * The reader's time zone. The server cannot know it, so the first render (on the server, and the
 * browser's hydration of it) uses UTC on both sides, and useSyncExternalStore then re-renders with the
 * browser's zone: no mismatch, and the reader sees their own clock.
 */
export function useTimeZone(): string {
  return useSyncExternalStore(noSubscription, browserTimeZone, serverTimeZone);
}

/** A date and time in the one format every screen uses ("28 Nov 2026, 01:46" in en-GB). */
export function DateTime({ value, dateOnly = false, className }: { value: string | Date; dateOnly?: boolean; className?: string }) {
  const locale = useLocale();
  const timeZone = useTimeZone();
  const iso = typeof value === "string" ? value : value.toISOString();
  return (
    <time dateTime={iso} className={className}>
      {dateOnly ? formatDate(iso, locale, timeZone) : formatDateTime(iso, locale, timeZone)}
    </time>
  );
}
