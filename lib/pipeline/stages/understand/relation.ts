import { isStopword } from "../../text";
import { AUXILIARIES, DETERMINERS, LIGHT_VERBS, PARTICLES, PREPOSITIONS } from "./lexicon";
import type { QuestionForm } from "./question-form";
import { type Token, contiguous, isNumberToken } from "./tokens";

export interface RelationContext {
  /** Tokens that belong to entity mentions. */
  entity: Set<number>;
  /** Tokens already explained: time cues, aggregation words, the question's scaffold. */
  other: Set<number>;
}

const isVerb = (t: Token) =>
  (t.tags.has("Verb") || t.tags.has("Participle") || t.tags.has("PastTense")) &&
  !t.tags.has("Auxiliary") &&
  !t.tags.has("Copula") &&
  !t.tags.has("Modal");

/**
 * The relation asked about: the main content verb with its particle ("acted in", "made by",
 * "shipped from"), else the first noun phrase that is not an entity ("revenue", "return window",
 * "chief executive"), else the head noun of a which-question ("teams").
 */
export function extractRelation(tokens: Token[], ctx: RelationContext, form: QuestionForm): string | null {
  const free = (t: Token | undefined): t is Token => !!t && !ctx.entity.has(t.i) && !ctx.other.has(t.i);
  const content = (t: Token) =>
    free(t) && !isStopword(t.lower, "en") && !AUXILIARIES.has(t.lower) && !DETERMINERS.has(t.lower) && !isNumberToken(t);

  // "What was the revenue of X compared with Y?": a copula question asks for its subject, the
  // relation; generic subjects ("the names of…", "the number of…") leave it to the verb.
  if (form.subject) {
    const phrase = nounPhrase(tokens, form.subject.start, form.subject.end, content);
    if (phrase && !GENERIC_HEADS.has(phrase.split(" ").at(-1)!)) return phrase;
  }
  const verb = findVerb(tokens, free, content);
  if (verb !== null) {
    const words = [tokens[verb].lower];
    const p = tokens[verb + 1];
    if (p && PARTICLES.has(p.lower) && contiguous(tokens, verb, verb + 2)) {
      // A particle belongs to the verb when it is stranded ("play for?") or introduces an entity ("made by (the) X").
      let q = p.i + 1;
      while (q < tokens.length && DETERMINERS.has(tokens[q].lower)) q++;
      // Stranded: the question ends, punctuation follows, or a time or other explained phrase does
      // ("act in before 2010"); but "in 2024" is itself the time cue, not the verb's particle.
      const stranded = p.i === tokens.length - 1 || !/^\s+$/.test(tokens[p.i + 1].gapBefore) || ctx.other.has(p.i + 1);
      if (!ctx.other.has(p.i) && (stranded || ctx.entity.has(q))) words.push(p.lower);
    }
    return words.join(" ");
  }

  return nounPhrase(tokens, 0, tokens.length, content) ?? form.headNoun;
}

const GENERIC_HEADS = new Set([
  "name",
  "names",
  "number",
  "count",
  "list",
  "type",
  "types",
  "kind",
  "kinds",
  "percentage",
  "percent",
  "proportion",
  "share",
  "fraction",
  "id",
  "ids",
]);
const nounish = (t: Token) => (t.tags.has("Noun") || t.tags.has("Adjective")) && !t.tags.has("Pronoun");

/** The first run of up to four content nouns/adjectives in tokens [from, to). */
function nounPhrase(tokens: Token[], from: number, to: number, content: (t: Token) => boolean): string | null {
  for (let i = from; i < to; i++) {
    if (!content(tokens[i]) || !nounish(tokens[i])) continue;
    let j = i;
    while (
      j + 1 < to &&
      content(tokens[j + 1]) &&
      contiguous(tokens, j, j + 2) &&
      !PREPOSITIONS.has(tokens[j + 1].lower) &&
      nounish(tokens[j + 1]) &&
      j - i < 3
    )
      j++;
    return tokens
      .slice(i, j + 1)
      .map((t) => t.lower)
      .join(" ");
  }
  return null;
}

function findVerb(tokens: Token[], free: (t: Token | undefined) => t is Token, content: (t: Token) => boolean): number | null {
  for (const t of tokens) if (content(t) && isVerb(t) && !LIGHT_VERBS.has(t.lower)) return t.i;
  // Do-support: in "which movies did Tom Hanks act in" the word after the subject is the verb, even
  // when a tagger reads it as a noun.
  const aux = tokens.findIndex((t) => ["do", "does", "did"].includes(t.lower));
  if (aux >= 0) {
    let k = aux + 1;
    while (k < tokens.length && (!free(tokens[k]) || DETERMINERS.has(tokens[k].lower) || tokens[k].tags.has("Pronoun"))) k++;
    const t = tokens[k];
    const next = tokens[k + 1];
    if (t && content(t) && !LIGHT_VERBS.has(t.lower) && (!next || PARTICLES.has(next.lower) || !free(next))) return k;
  }
  return null;
}
