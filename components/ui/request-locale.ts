import "server-only";
import { headers } from "next/headers";
import { localeFromAcceptLanguage } from "@/lib/format/locale";

/** The reader's locale in a server component (the same one app/layout.tsx gives the client components). */
export async function requestLocale(): Promise<string> {
  return localeFromAcceptLanguage((await headers()).get("accept-language"));
}
