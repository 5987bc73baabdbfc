import { normalizeLabel } from "../text";
import type { Intent } from "../types";

export interface MentionForms {
  mention: string;
  /** Normalized surface forms: the mention and the labels of its best links ("NYC" → "new york city"). */
  forms: string[];
  /** KB references of its best links (IRIs, node ids, document ids). */
  refs: string[];
}

/** How many links of a mention are trusted as other names for it: lower-ranked links are often other things. */
const LINKS_AS_FORMS = 3;

export function mentionForms(intent: Intent): MentionForms[] {
  return intent.entities
    .map((e) => {
      const links = e.links.slice(0, LINKS_AS_FORMS);
      return {
        mention: e.mention,
        forms: [...new Set([e.mention, ...links.map((l) => l.label)].map((f) => normalizeLabel(f)).filter(Boolean))],
        refs: links.map((l) => l.ref),
      };
    })
    .filter((m) => m.forms.length > 0);
}
