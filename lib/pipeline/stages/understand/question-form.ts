import type { AnswerType } from "../../contracts";
import {
  AUXILIARIES,
  COPULAS,
  DETERMINERS,
  IMPERATIVES,
  LIST_IMPERATIVES,
  PREPOSITIONS,
  WH_WORDS,
  answerTypesOfNoun,
  isPlural,
} from "./lexicon";
import { type Token, isApostropheTail, isNumberToken, isTitleCase } from "./tokens";

/** What kind of answer the question asks for, read off its form (Quasar's answer types). */
export interface QuestionForm {
  /** "who", "what", "how many"...; the auxiliary for yes/no questions ("is", "does"); null for requests and keywords. */
  wh: string | null;
  answerTypes: AnswerType[];
  /** "which teams" → "teams"; "what is the capital of…" → "capital"; "list the names…" → "names". */
  headNoun: string | null;
  headIndex: number | null;
  /** The subject after a copula ("what was [the revenue] of…", "who is [the CEO] of…"): token range. */
  subject: { start: number; end: number } | null;
  /** Tokens that only shape the question (wh words, auxiliaries, "list me", a which-X type noun). */
  scaffold: Set<number>;
  /** The question asks for a value (a number, a date, a text) rather than naming things. */
  asksValue: boolean;
  /**
   * A statement rather than a question ("Aspirin lowers the risk of stroke."): no wh-word, auxiliary or
   * request opens it, no question mark, a noun then a verb, a closing full stop. It asks for no kind
   * of answer: whatever confirms or refutes it, so no answer type is read off its nouns.
   */
  statement: boolean;
}

const HOW_MODIFIERS = new Set([
  "many",
  "much",
  "long",
  "old",
  "far",
  "big",
  "large",
  "tall",
  "heavy",
  "often",
  "high",
  "deep",
  "wide",
  "fast",
  "early",
  "late",
]);
const FILLERS = new Set(["and", "but", "so", "ok", "okay", "now", "then", "please", "also", "well"]);
const POLITE =
  /^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|(?:do|does)\s+(?:you|anyone)\s+know\s+|i\s+(?:want|would\s+like|'d\s+like|need)\s+to\s+know\s+|tell\s+me\s+(?=who|what|when|where|which|how|why|whose|whom)|show\s+me\s+(?=who|what|when|where|which|how))/;
const PERSON_ORG_PLACE = new Set<AnswerType>(["person", "organisation", "location"]);
const NAMING_TYPES = new Set<AnswerType>(["person", "organisation", "location", "entity", "list"]);

const isNounLike = (t: Token) => t.tags.has("Noun") && !t.tags.has("Pronoun") && !t.tags.has("QuestionWord") && !AUXILIARIES.has(t.lower);
const isModifier = (t: Token) =>
  t.lower === "most" ||
  t.lower === "least" ||
  t.tags.has("Adjective") ||
  t.tags.has("Superlative") ||
  t.tags.has("Comparative") ||
  isNumberToken(t);

/** A run of modifiers and nouns starting at `from`; the head is its last common noun. */
function nounRun(tokens: Token[], from: number): { head: number; end: number } | null {
  let j = from;
  let head = -1;
  while (j < tokens.length && j < from + 6) {
    const t = tokens[j];
    if (j > from && !/^\s+$/.test(t.gapBefore)) break;
    if (PREPOSITIONS.has(t.lower) || AUXILIARIES.has(t.lower) || WH_WORDS.has(t.lower) || DETERMINERS.has(t.lower)) break;
    // A title-case word after the first is a name, not the noun the question asks about.
    if (isTitleCase(t) && j > 0 && !t.tags.has("Noun")) break;
    // "which city hosts the…": a word followed by a determiner is a verb, whatever the tagger says.
    if (j > from && tokens[j + 1] && DETERMINERS.has(tokens[j + 1].lower) && !["all", "each", "every"].includes(tokens[j + 1].lower)) break;
    if (isNounLike(t) && !(isTitleCase(t) && t.tags.has("ProperNoun") && j > from)) head = j;
    else if (!isModifier(t)) break;
    j++;
  }
  return head >= 0 ? { head, end: j } : null;
}

/** Skips determiners and a possessor ("the", "all", "Tom Hanks's") to where the noun phrase's words start. */
function skipDeterminers(tokens: Token[], j: number): number {
  while (j < tokens.length && (DETERMINERS.has(tokens[j].lower) || ["me", "us", "of"].includes(tokens[j].lower))) j++;
  let k = j;
  while (k < tokens.length && (isTitleCase(tokens[k]) || isNumberToken(tokens[k])) && !isApostropheTail(tokens[k])) k++;
  if (k > j && tokens[k] && isApostropheTail(tokens[k])) return skipDeterminers(tokens, k + 1);
  return j;
}

/** Where the question proper starts: after "and", "please", "can you", "in" ("In which year..."). */
function questionStart(tokens: Token[]): { start: number; skipped: number[] } {
  const skipped: number[] = [];
  let j = 0;
  while (j < tokens.length && FILLERS.has(tokens[j].lower)) skipped.push(j++);
  const rest = tokens
    .slice(j)
    .map((t) => t.lower)
    .join(" ");
  const polite = POLITE.exec(rest);
  if (polite) {
    const n = polite[0].trim().split(/\s+/).length;
    for (let k = 0; k < n; k++) skipped.push(j++);
  }
  // A leading preposition belongs to the wh-phrase: "In which city…", "For how many…".
  if (j + 1 < tokens.length && PREPOSITIONS.has(tokens[j].lower) && WH_WORDS.has(tokens[j + 1].lower)) skipped.push(j++);
  return { start: j, skipped };
}

function typesForHead(head: string | null, wh: "which" | "what" | "imperative" | "keyword"): AnswerType[] {
  const known = head ? answerTypesOfNoun(head) : null;
  if (known) return PERSON_ORG_PLACE.has(known[0]) && wh !== "keyword" ? [...known, "entity"] : [...known];
  if (wh === "what" || wh === "keyword") return ["entity", "text"];
  return ["entity"];
}

/** A declarative sentence (QuestionForm.statement), given that no wh-word, auxiliary or request opens it. */
function isStatement(text: string, tokens: Token[]): boolean {
  if (text.includes("?") || !/\.\s*$/.test(text)) return false;
  const subject = tokens.findIndex(isNounLike);
  return subject >= 0 && tokens.some((t) => t.i > subject && t.tags.has("Verb"));
}

/** The form of `tokens`, the words of `text` (the question as completed). */
export function analyzeQuestionForm(tokens: Token[], text: string): QuestionForm {
  const scaffold = new Set<number>();
  const { start, skipped } = questionStart(tokens);
  for (const k of skipped) scaffold.add(k);
  const first = tokens[start];
  let wh: string | null = null;
  let types: AnswerType[] = [];
  let headIndex: number | null = null;
  let list = false;
  let subject: { start: number; end: number } | null = null;
  let statement = false;
  const copulaSubject = (at: number) => {
    const next = tokens[at + 1];
    if (!next || !COPULAS.has(next.lower)) return null;
    const start = skipDeterminers(tokens, at + 2);
    const run = nounRun(tokens, start);
    if (run) subject = { start, end: run.end };
    return run;
  };

  const withHead = (run: { head: number } | null, kind: "which" | "what" | "imperative" | "keyword", typeWord: boolean) => {
    headIndex = run ? run.head : null;
    types = typesForHead(run ? tokens[run.head].lower : null, kind);
    if (run && typeWord) scaffold.add(run.head);
    if (run && isPlural(tokens[run.head].lower)) list = true;
  };

  // The wh-word opens the question, or closes it in an echo question ("…was founded when?").
  let whAt = first && WH_WORDS.has(first.lower) ? start : -1;
  const last = tokens[tokens.length - 1];
  if (whAt < 0 && last && tokens.length > 2 && ["who", "whom", "when", "where", "what", "which"].includes(last.lower)) whAt = last.i;

  if (whAt >= 0) {
    const w = tokens[whAt].lower;
    scaffold.add(whAt);
    const next = tokens[whAt + 1];
    if (w === "how" && next && HOW_MODIFIERS.has(next.lower)) {
      wh = `how ${next.lower}`;
      scaffold.add(whAt + 1);
      if (next.lower === "many") types = ["count"];
      else if (next.lower === "much") types = ["money", "number"];
      else if (next.lower === "long" || next.lower === "often") types = ["number"];
      else if (next.lower === "early" || next.lower === "late") types = ["date"];
      else types = ["number"];
      const run = nounRun(tokens, whAt + 2);
      headIndex = run?.head ?? null;
    } else if (w === "who" || w === "whom") {
      wh = w;
      types = ["person", "organisation"];
      // "Who are the executives of…" asks for several.
      const run = copulaSubject(whAt);
      if (run && isPlural(tokens[run.head].lower)) list = true;
    } else if (w === "whose") {
      wh = w;
      types = ["person", "organisation"];
      headIndex = nounRun(tokens, whAt + 1)?.head ?? null;
    } else if (w === "when") {
      wh = w;
      types = ["date"];
    } else if (w === "where") {
      wh = w;
      types = ["location"];
    } else if (w === "why" || w === "how") {
      wh = w;
      types = ["text"];
    } else {
      // which / what: a noun right after it is the type asked for; after a copula, the subject's head.
      wh = w;
      const direct = next && !AUXILIARIES.has(next.lower) ? nounRun(tokens, whAt + 1) : null;
      if (direct) withHead(direct, w === "which" ? "which" : "what", true);
      else {
        const run =
          next && COPULAS.has(next.lower)
            ? copulaSubject(whAt)
            : next && AUXILIARIES.has(next.lower)
              ? nounRun(tokens, skipDeterminers(tokens, whAt + 2))
              : null;
        if (run) withHead(run, "what", false);
        else types = w === "which" ? ["entity"] : next && COPULAS.has(next.lower) ? ["text", "entity"] : ["entity", "text"];
      }
    }
    if (next && AUXILIARIES.has(next.lower) && !wh.startsWith("how ")) scaffold.add(whAt + 1);
  } else if (first && IMPERATIVES.has(first.lower) && !first.tags.has("ProperNoun")) {
    scaffold.add(start);
    if (LIST_IMPERATIVES.has(first.lower)) list = true;
    let j = start + 1;
    while (j < tokens.length && ["me", "us"].includes(tokens[j].lower)) scaffold.add(j++);
    if (tokens[j]?.lower === "all") list = true;
    const run = nounRun(tokens, skipDeterminers(tokens, j));
    if (first.lower === "count") types = ["count"];
    else withHead(run, "imperative", false);
    if (run) headIndex = run.head;
  } else if (first && AUXILIARIES.has(first.lower)) {
    wh = first.lower;
    scaffold.add(start);
    types = ["boolean"];
  } else if (isStatement(text, tokens)) {
    // Its nouns are what it is about, not a kind of answer asked for.
    statement = true;
    types = ["entity", "text"];
  } else {
    // Keywords ("Summit 2 Tent price"): a type noun anywhere tells what is wanted.
    const typed = tokens.find((t) => isNounLike(t) && answerTypesOfNoun(t.lower));
    withHead(typed ? { head: typed.i } : null, "keyword", false);
    list = false;
  }

  if (list && !types.includes("count") && !types.includes("boolean")) types = [...types, "list"];
  const answerTypes = [...new Set(types.length ? types : (["entity", "text"] as AnswerType[]))];
  return {
    wh,
    answerTypes,
    headNoun: headIndex !== null ? tokens[headIndex].lower : null,
    headIndex,
    subject,
    scaffold,
    asksValue: !answerTypes.some((t) => NAMING_TYPES.has(t)),
    statement,
  };
}
