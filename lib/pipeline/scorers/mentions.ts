import { normalizeLabel, terms } from "../text";
import type { Intent } from "../types";

export interface MentionForms {
  mention: string;
  /** Normalized surface forms: the mention and the labels of its best links ("NYC" → "new york city"). */
  forms: string[];
  /** KB references of its best links (IRIs, node ids, document ids). */
  refs: string[];
  /**
   * Forms that are one word of the question itself ("IED", "Oslo"): a piece naming one only holds that
   * word, which a search engine matched already. A phrase of several words, another name (a linked
   * label) or a KB reference is what a bag-of-words search cannot see.
   */
  wordForms: Set<string>;
}

/** How many links of a mention are trusted as other names for it: lower-ranked links are often other things. */
const LINKS_AS_FORMS = 3;

export function mentionForms(intent: Intent): MentionForms[] {
  return intent.entities
    .map((e) => {
      const links = e.links.slice(0, LINKS_AS_FORMS);
      const own = normalizeLabel(e.mention);
      return {
        mention: e.mention,
        forms: [...new Set([e.mention, ...links.map((l) => l.label)].map((f) => normalizeLabel(f)).filter(Boolean))],
        refs: links.map((l) => l.ref),
        wordForms: new Set(own && terms(own).length <= 1 ? [own] : []),
      };
    })
    .filter((m) => m.forms.length > 0);
}
