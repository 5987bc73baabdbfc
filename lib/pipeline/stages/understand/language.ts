import { isStopword } from "../../text";

/**
 * A light language guess (ISO 639-1): the writing system for non-Latin scripts, otherwise which
 * language's function words the question uses. Keyword questions without function words count as
 * English (the workspace's language); the pipeline flags anything else as a degradation.
 */
const SCRIPTS: [string, RegExp][] = [
  ["ja", /[\p{Script=Hiragana}\p{Script=Katakana}]/gu],
  ["zh", /\p{Script=Han}/gu],
  ["ko", /\p{Script=Hangul}/gu],
  ["ru", /\p{Script=Cyrillic}/gu],
  ["ar", /\p{Script=Arabic}/gu],
  ["he", /\p{Script=Hebrew}/gu],
  ["el", /\p{Script=Greek}/gu],
  ["hi", /\p{Script=Devanagari}/gu],
  ["th", /\p{Script=Thai}/gu],
];

/** Frequent function words that English does not share (so "die", "was", "a" are left out where ambiguous). */
const FUNCTION_WORDS: Record<string, Set<string>> = {
  de: new Set(
    "der die das den dem des ist sind war waren und oder nicht ein eine einen einem eines wer wie welche welcher welches wieviele viele wann warum wo mit von zu im vom zum zur für über auch noch gibt hat haben es ich sie wir".split(
      " ",
    ),
  ),
  fr: new Set(
    "le la les un une des est sont était et ou ne pas qui que quoi quel quelle quels quelles combien quand pourquoi où avec pour dans du au aux sur ce cette ces il elle ils nous vous".split(
      " ",
    ),
  ),
  es: new Set(
    "el la los las un una unos unas es son fue eran y o no qué que quién quiénes cuál cuáles cuántos cuántas cuánto cuándo dónde por para con del al en su sus hay este esta".split(
      " ",
    ),
  ),
  it: new Set(
    "il lo la gli le un uno una è sono era e o non che chi quale quali quanti quante quanto quando dove perché con per del della dei delle nel nella".split(
      " ",
    ),
  ),
  pt: new Set(
    "o a os as um uma é são foi e ou não que quem qual quais quantos quantas quanto quando onde porque com para do da dos das no na em".split(
      " ",
    ),
  ),
  nl: new Set("de het een is zijn was waren en of niet wie wat welke hoeveel wanneer waarom waar met van voor op aan ook er".split(" ")),
  sv: new Set(
    "och är var att det som en ett inte vem vad vilka vilken hur många när varför var med av för på till från om också finns har".split(
      " ",
    ),
  ),
};

export function guessLanguage(text: string): string {
  const sample = text.slice(0, 2_000);
  const letters = (sample.match(/\p{L}/gu) ?? []).length;
  if (!letters) return "en";
  for (const [code, re] of SCRIPTS) {
    if ((sample.match(re) ?? []).length / letters > 0.3) return code;
  }
  const words = (sample.toLowerCase().match(/\p{L}+/gu) ?? []).slice(0, 300);
  const english = words.filter((w) => isStopword(w, "en")).length;
  let best = "en";
  let bestHits = english;
  for (const [code, vocabulary] of Object.entries(FUNCTION_WORDS)) {
    const hits = words.filter((w) => vocabulary.has(w)).length;
    // Another language must out-vote English clearly: many function words are shared.
    if (hits > bestHits && hits >= Math.max(2, english + 1)) {
      best = code;
      bestHits = hits;
    }
  }
  return best;
}
