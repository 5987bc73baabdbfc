import "server-only";
import { cookies, headers } from "next/headers";
import { localeFromAcceptLanguage, TIME_ZONE_COOKIE, timeZoneFromCookie } from "@/lib/format/locale";

/** The reader's locale in a server component (the same one app/layout.tsx gives the client components). */
export async function requestLocale(): Promise<string> {
  return localeFromAcceptLanguage((await headers()).get("accept-language"));
}

/** The reader's time zone as their browser last told it (components/ui/locale.tsx), or UTC before it has. */
export async function requestTimeZone(): Promise<string> {
  return timeZoneFromCookie((await cookies()).get(TIME_ZONE_COOKIE)?.value);
}
