import type NSpell from "nspell";

/**
 * Whether a word is English, by a Hunspell dictionary (SCOWL's en_US through nspell). Understand uses
 * it to tell a misspelt question word ("oders") from a real word the catalog merely lacks ("different"):
 * only a word that is neither English nor a label of any source is read as a nearby label. Loaded once,
 * on first use (about half a second and 40 MB), and shared.
 */
let checker: Promise<NSpell> | null = null;

function loadChecker(): Promise<NSpell> {
  // dictionary-en reads its files with fs.readFile: Buffers, typed there as plain Uint8Arrays.
  checker ??= Promise.all([import("nspell"), import("dictionary-en")]).then(([{ default: nspell }, { default: dictionary }]) =>
    nspell({ aff: Buffer.from(dictionary.aff), dic: Buffer.from(dictionary.dic) }),
  );
  // A failed load is retried by the next question rather than remembered.
  checker.catch(() => {
    checker = null;
  });
  return checker;
}

/** The words (as given) the dictionary does not know, in either their own or lower case. */
export async function unknownWords(words: string[]): Promise<string[]> {
  if (!words.length) return [];
  const spell = await loadChecker();
  return words.filter((w) => !spell.correct(w) && !spell.correct(w.toLowerCase()));
}
