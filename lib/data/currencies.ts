import { z } from "zod";
import data from "./currencies.json";

/**
 * The one list of currencies (lib/data/currencies.json) every reader of money uses: report cells
 * ("$ 1,200", "EUR 3.4m"), column names and headers ("price_eur", "Revenue (EUR million)"), passages
 * ("12 million euros") and unit agreement ("how much" is not answered in days). Before it, six readers
 * each kept their own list, and they disagreed (one knew SGD, another not kronor).
 */
const currencySchema = z.object({
  code: z.string().regex(/^[A-Z]{3}$/),
  aliases: z.array(z.string().regex(/^[A-Z]{3}$/)),
  symbols: z.array(z.string().min(1)),
  words: z.array(z.string().regex(/^[a-z][a-z ]*$/)),
});
const lexiconSchema = z.object({ currencies: z.array(currencySchema).min(1), minorUnits: z.array(z.string()) });

const lexicon = lexiconSchema.parse(data);
export const CURRENCIES: readonly z.infer<typeof currencySchema>[] = lexicon.currencies;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** Longest first, so "US$" wins over "$" and "pounds sterling" over "pounds". */
const alternation = (items: Iterable<string>) =>
  [...new Set(items)]
    .sort((a, b) => b.length - a.length || a.localeCompare(b))
    .map(escape)
    .join("|");

/** ISO codes and the other codes people write ("RMB"), upper case. */
export const CURRENCY_CODES: readonly string[] = CURRENCIES.flatMap((c) => [c.code, ...c.aliases]);
/** Regular-expression alternation of every code (use with the `i` flag and word boundaries). */
export const CURRENCY_CODE_PATTERN = alternation(CURRENCY_CODES);
/** Alternation of every symbol, longest first ("NZ$" before "$"). */
export const CURRENCY_SYMBOL_PATTERN = alternation(CURRENCIES.flatMap((c) => c.symbols));
/** Alternation of every currency word, multi-word names first ("swiss francs" before "francs"). */
export const CURRENCY_WORD_PATTERN = alternation(CURRENCIES.flatMap((c) => c.words));
/** Words for a hundredth of a currency ("cents", "pence"): money, though no currency of their own. */
export const MINOR_UNIT_PATTERN = alternation(lexicon.minorUnits);

function uniqueOwner(pick: (c: z.infer<typeof currencySchema>) => string[]): Map<string, string | null> {
  const owner = new Map<string, string | null>();
  for (const c of CURRENCIES)
    for (const key of pick(c)) {
      const k = key.toLowerCase();
      owner.set(k, owner.has(k) && owner.get(k) !== c.code ? null : c.code);
    }
  return owner;
}
const CODE_OF_CODE = uniqueOwner((c) => [c.code, ...c.aliases]);
const CODE_OF_SYMBOL = uniqueOwner((c) => c.symbols);
const CODE_OF_WORD = uniqueOwner((c) => c.words);

/** The ISO code a code, alias, symbol or word stands for; null when it is no currency or names more than one ("kroner"). */
export function currencyCodeOf(token: string): string | null {
  const k = token.trim().toLowerCase();
  return CODE_OF_CODE.get(k) ?? CODE_OF_SYMBOL.get(k) ?? CODE_OF_WORD.get(k) ?? null;
}
