import { describe, expect, it } from "vitest";
import { formatDate, formatDateTime } from "@/lib/format/date";
import { DEFAULT_LOCALE, localeFromAcceptLanguage, timeZoneFromCookie } from "@/lib/format/locale";

describe("the reader's locale", () => {
  it("is the browser's first language this runtime formats for, by weight", () => {
    expect(localeFromAcceptLanguage("de-DE,de;q=0.9,en;q=0.8")).toBe("de-DE");
    expect(localeFromAcceptLanguage("en;q=0.5, fr-CH")).toBe("fr-CH");
    expect(localeFromAcceptLanguage("*;q=0.1, en-US;q=0.8")).toBe("en-US");
  });

  it("falls back to the default for no header, a wildcard or garbage", () => {
    expect(localeFromAcceptLanguage(null)).toBe(DEFAULT_LOCALE);
    expect(localeFromAcceptLanguage("*")).toBe(DEFAULT_LOCALE);
    expect(localeFromAcceptLanguage("<script>;q=1, ,,;")).toBe(DEFAULT_LOCALE);
  });
});

describe("one date format", () => {
  const at = "2026-11-28T00:46:00.000Z";
  it("writes a date and time the locale's way, in the given time zone", () => {
    expect(formatDateTime(at, "en-GB", "Europe/Berlin")).toBe("28 Nov 2026, 01:46");
    expect(formatDateTime(at, "de-DE", "Europe/Berlin")).toBe("28.11.2026, 01:46");
    // ICU versions differ in the space before "AM" (a plain or a narrow no-break space).
    expect(formatDateTime(at, "en-US", "UTC")).toMatch(/^Nov 28, 2026, 12:46\sAM$/);
    expect(formatDate(at, "en-GB", "UTC")).toBe("28 Nov 2026");
  });
});

describe("timeZoneFromCookie", () => {
  it("takes a zone this runtime knows and falls back to UTC for anything else", () => {
    expect(timeZoneFromCookie("Europe/Berlin")).toBe("Europe/Berlin");
    expect(timeZoneFromCookie("Asia/Tokyo")).toBe("Asia/Tokyo");
    expect(timeZoneFromCookie(undefined)).toBe("UTC");
    expect(timeZoneFromCookie("Mars/Olympus_Mons")).toBe("UTC");
    expect(timeZoneFromCookie("Europe/Berlin; path=/")).toBe("UTC");
    expect(timeZoneFromCookie("x".repeat(200))).toBe("UTC");
  });
});
