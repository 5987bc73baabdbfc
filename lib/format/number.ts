import { DEFAULT_LOCALE } from "./locale";

/** A count for a reader in `locale`: "1,204" (en), "1.204" (de). */
export function formatInteger(n: number, locale: string = DEFAULT_LOCALE): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(n);
}
