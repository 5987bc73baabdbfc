const englishPlural = new Intl.PluralRules("en");

/** The noun that goes with n: `noun(1, "passage")` is "passage", `noun(3, "passage")` "passages". */
export function noun(n: number, one: string, other = `${one}s`): string {
  return englishPlural.select(n) === "one" ? one : other;
}

/** A count with its noun, the number grouped: "1 passage", "1,204 passages", "2 entities" (with `other` given). */
export function count(n: number, one: string, other = `${one}s`): string {
  return `${n.toLocaleString("en")} ${noun(n, one, other)}`;
}
