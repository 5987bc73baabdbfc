import { stemmer } from "stemmer";
import { isStopword } from "../backends/documents/stopwords";
import { normalizeLabel } from "../catalog/normalize";

/**
 * The one tokenizer of the pipeline: source selection, pooling and re-ranking all compare the
 * question with text through it, so scores are comparable across stages.
 */
export function words(text: string): string[] {
  return normalizeLabel(text).split(" ").filter(Boolean);
}

/** Content terms: lower-cased, stopwords dropped, Porter-stemmed ("orders" and "ordered" meet). */
export function terms(text: string, language = "en"): string[] {
  return words(text)
    .filter((w) => !isStopword(w, language))
    .map((w) => (language.startsWith("en") && /^[a-z]+$/.test(w) ? stemmer(w) : w));
}

export { isStopword, normalizeLabel };
