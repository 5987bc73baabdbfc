import { isStopword } from "./stopwords";

/** Capitalized words, acronyms and mixed forms ("Tom", "MRI", "iPhone", "COVID-19", "O'Neil"). */
const NAME_TOKEN = /^(?:\p{Lu}[\p{L}\p{N}'’-]*|\p{Ll}+\p{Lu}[\p{L}\p{N}]*|\p{N}+[\p{L}]*\p{Lu}[\p{L}\p{N}]*)$/u;
/** Lower-case words allowed inside a name ("Bank of America", "Charles de Gaulle"). */
const CONNECTORS = new Set(["of", "de", "van", "von", "der", "la", "le", "du", "del", "da", "&"]);
/** Titles before a name: not part of the entity, and their period does not end the sentence. */
const NAME_TITLE = /^(?:(?:Dr|Mr|Mrs|Ms|Prof|St)\.|Sir)$/;

function isAcronymOrMixed(token: string): boolean {
  return /\p{Lu}.*\p{Lu}/u.test(token) || /\p{N}/u.test(token) || /^\p{Ll}/u.test(token);
}

/** Structured abstracts and reports open with "OBJECTIVE", "METHODS": long all-caps words, not acronyms. */
function isSectionLabel(word: string): boolean {
  return word.length > 5 && /^\p{Lu}+$/u.test(word);
}

/**
 * Candidate entity mentions in prose: maximal runs of capitalized tokens (with connectors inside). A
 * lone capitalized word at the start of a sentence is usually just capitalization, so it is kept only
 * when it is an acronym or has inner capitals/digits ("The" no, "MRI" yes).
 */
export function capitalizedSpans(text: string, language = "en", max = 20): string[] {
  const out = new Set<string>();
  const tokens = text.split(/\s+/).filter(Boolean);
  let span: string[] = [];
  let spanStartsSentence = false;
  let atSentenceStart = true;
  const flush = () => {
    while (span.length > 0 && CONNECTORS.has(span[span.length - 1].toLowerCase())) span.pop();
    if (span.length > 0) {
      const single = span.length === 1;
      const word = span[0];
      const keep = !single || !spanStartsSentence || isAcronymOrMixed(word);
      if (keep && word.length > 1) out.add(span.join(" "));
    }
    span = [];
  };
  for (const raw of tokens) {
    if (NAME_TITLE.test(raw)) {
      flush();
      atSentenceStart = false;
      continue;
    }
    const token = raw.replace(/^[("'“‘[]+|[)"'”’\],;:.!?]+$/gu, "");
    const endsSentence = /[.!?]["')”’]*$/.test(raw);
    if (token && NAME_TOKEN.test(token) && (isStopword(token, language) || (atSentenceStart && isSectionLabel(token)))) {
      // "The", "In" or a label like "RESULTS" separates names; after a label the sentence starts anew.
      flush();
      atSentenceStart = isSectionLabel(token) || endsSentence;
      continue;
    }
    if (token && NAME_TOKEN.test(token)) {
      if (span.length === 0) spanStartsSentence = atSentenceStart;
      span.push(token);
    } else if (token && span.length > 0 && CONNECTORS.has(token.toLowerCase()) && !/[,;:.!?]$/.test(raw)) {
      span.push(token);
    } else {
      flush();
    }
    if (endsSentence || /[,;:]$/.test(raw)) flush();
    atSentenceStart = endsSentence;
    if (out.size >= max) break;
  }
  flush();
  return [...out].slice(0, max);
}
