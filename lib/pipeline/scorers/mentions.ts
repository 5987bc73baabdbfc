import { isOccurrenceRef } from "../../backends/documents/entity-index";
import { definedAbbreviations } from "../abbreviations";
import { normalizeLabel, terms } from "../text";
import type { Intent } from "../contracts";

export interface MentionForms {
  mention: string;
  /**
   * Normalized surface forms: the mention, the labels of its best links ("NYC" → "new york city") and
   * the other name the question defines for it ("Apolipoprotein E4 (APOE4)").
   */
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
  const text = intent.completed || intent.question;
  const questionTerms = new Set(terms(text));
  const ownWord = (form: string) => {
    const t = terms(form);
    return t.length === 1 && questionTerms.has(t[0]);
  };
  const mentions = intent.entities.map((e) => {
    const links = e.links.slice(0, LINKS_AS_FORMS);
    return {
      mention: e.mention,
      own: normalizeLabel(e.mention),
      forms: [e.mention, ...links.map((l) => l.label)].map((f) => normalizeLabel(f)).filter(Boolean),
      refs: links.filter((l) => !isOccurrenceRef(l)).map((l) => l.ref),
    };
  });
  // The long and the short name of a defined abbreviation are one entity: each is a form of the other,
  // and two mentions of them are one. A short form that is no content word ("WHO", "IT") is left out:
  // it would match every passage using the word.
  for (const a of definedAbbreviations(text)) {
    const long = normalizeLabel(a.long.replace(/['’]s$/u, ""));
    const short = normalizeLabel(a.short);
    if (!long || terms(short).length !== 1) continue;
    const named = mentions.filter((m) => m.own === long || m.own === short);
    if (!named.length) continue;
    const [first, ...others] = named;
    first.forms.push(long, short, ...others.flatMap((m) => m.forms));
    first.refs.push(...others.flatMap((m) => m.refs));
    for (const m of others) mentions.splice(mentions.indexOf(m), 1);
  }
  return mentions
    .map((m) => {
      const forms = [...new Set(m.forms)];
      return {
        mention: m.mention,
        forms,
        refs: [...new Set(m.refs)],
        wordForms: new Set(forms.filter((f) => (f === m.own && terms(m.own).length <= 1) || ownWord(f))),
      };
    })
    .filter((m) => m.forms.length > 0);
}
