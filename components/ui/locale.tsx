"use client";

import { createContext, type ReactNode, useContext, useEffect, useSyncExternalStore } from "react";
import { formatDate, formatDateTime } from "@/lib/format/date";
import { DEFAULT_LOCALE, DEFAULT_TIME_ZONE, TIME_ZONE_COOKIE } from "@/lib/format/locale";

/**
 * The reader's locale (from the browser's Accept-Language, read once per request in app/layout.tsx) for
 * every date and number a screen formats, so the server's first render and the browser's agree.
 */
const LocaleContext = createContext<string>(DEFAULT_LOCALE);
/** The time zone the server rendered with: the one the browser last told it in a cookie, or UTC. */
const ServerTimeZoneContext = createContext<string>(DEFAULT_TIME_ZONE);

export function LocaleProvider({ locale, timeZone, children }: { locale: string; timeZone: string; children: ReactNode }) {
  useEffect(() => {
    // Tell the server the browser's zone, so its next render already shows the reader's clock.
    const zone = browserTimeZone();
    if (zone !== timeZone) document.cookie = `${TIME_ZONE_COOKIE}=${encodeURIComponent(zone)}; path=/; max-age=31536000; samesite=lax`;
  }, [timeZone]);
  return (
    <LocaleContext.Provider value={locale}>
      <ServerTimeZoneContext.Provider value={timeZone}>{children}</ServerTimeZoneContext.Provider>
    </LocaleContext.Provider>
  );
}

export function useLocale(): string {
  return useContext(LocaleContext);
}

const noSubscription = () => () => {};
const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * The reader's time zone. The server knows it only from the cookie LocaleProvider sets (UTC on a first
 * visit), so the first render (on the server, and the browser's hydration of it) uses the server's zone
 * on both sides, and useSyncExternalStore then re-renders with the browser's zone when it differs: no
 * mismatch, and the reader sees their own clock, from the first paint once the cookie is set.
 */
export function useTimeZone(): string {
  const serverZone = useContext(ServerTimeZoneContext);
  return useSyncExternalStore(noSubscription, browserTimeZone, () => serverZone);
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
