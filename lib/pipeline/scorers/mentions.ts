import { isOccurrenceRef } from "../../backends/documents/entity-index";
import { normalizeLabel, terms } from "../text";
import type { Intent } from "../types";

export interface MentionForms {
  mention: string;
  /** Normalized surface forms: the mention and the labels of its best links ("NYC" → "new york city"). */
  forms: string[];
  /**
   * KB references of its best links that name the thing itself (IRIs, node ids, the document titled by
   * it); not a collection phrase's ref, which is only one document where the phrase occurs.
   */
  refs: string[];
  /**
   * Forms that are one word of the question itself, in any inflection ("IED", "Oslo"; "cells" for a
   * question saying "cell"): a piece naming one only holds that word, which a search engine matched
   * already. A phrase of several words, another name (a linked label) or a KB reference is what a
   * bag-of-words search cannot see.
   */
  wordForms: Set<string>;
}

/** How many links of a mention are trusted as other names for it: lower-ranked links are often other things. */
const LINKS_AS_FORMS = 3;

export function mentionForms(intent: Intent): MentionForms[] {
  const questionTerms = new Set(terms(intent.completed || intent.question));
  const ownWord = (form: string) => {
    const t = terms(form);
    return t.length === 1 && questionTerms.has(t[0]);
  };
  return intent.entities
    .map((e) => {
      const links = e.links.slice(0, LINKS_AS_FORMS);
      const own = normalizeLabel(e.mention);
      const forms = [...new Set([e.mention, ...links.map((l) => l.label)].map((f) => normalizeLabel(f)).filter(Boolean))];
      return {
        mention: e.mention,
        forms,
        refs: links.filter((l) => !isOccurrenceRef(l)).map((l) => l.ref),
        wordForms: new Set(forms.filter((f) => (f === own && terms(own).length <= 1) || ownWord(f))),
      };
    })
    .filter((m) => m.forms.length > 0);
}
