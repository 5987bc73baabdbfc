import type { Constructs, EntityMention, Intent } from "../../contracts";
import { parseSmallNumber } from "./lexicon";
import { countNouns } from "./counted-noun";
import { numericComparisons } from "./comparisons";
import { orderWords } from "./order-words";
import { quotedConstructs } from "./quoted";
import { existencePhrases, lackedPhrases, withoutWords } from "./absence";

/**
 * The question's logical constructs, read from its wording before any schema is known: what it asks
 * to be returned (the ask span: "the name and capacity of the stadium"), how its conditions are joined
 * (and / or / but not / both … and / either … or), what it negates, conditions on how many rows a thing
 * has ("4 or more students" → a count condition, HAVING), whether the answer keeps ties ("which dogs are
 * the oldest"), and whether it wants distinct values. Formulation links these to a schema and renders
 * them in each query language (formulate/sql, formulate/graph). Their schema is a contract (contracts.ts).
 */

// ---------------------------------------------------------------------------------------------
// The ask span

/** Openings that only say "tell me": wh-words, request verbs, auxiliaries, determiners. */
const LEAD =
  /^\s*(?:please\s+)?(?:(?:what|which|who|whom|whose|list|show|give|find|return|display|tell|get|provide|report|retrieve|identify|compute|calculate|count|name)\b(?:\s+(?:me|us))?\s*)?(?:(?:is|are|was|were|does|do|did|has|have|had|all|the|a|an|of|each|every|out|both|also|information|info|about|details|on)\b\s*)*/i;

/** Words that close the ask span: relative pronouns, condition prepositions, verbs, ordering words. */
const BOUNDARY =
  /^(?:who|whom|whose|that|which|where|when|with|without|in|on|at|from|by|after|before|since|during|between|than|under|over|above|below|having|has|have|had|did|does|do|is|are|was|were|sorted|ordered|order|sort|grouped|group|per|whereas|if|not|except|excluding|and\s+(?:also|their|its|his|her)|play|plays|played|made|make|makes|produced|produce|produces|owned|own|owns|went|go|goes|live|lives|lived|belong|belongs|operate|operates|operated|took|take|takes|won|win|wins|held|hold|holds|visit|visits|visited|use|uses|used|can|could|will|would|should)$/i;

/** "for each", "for every", "for all the": grouping or scope, never part of what is asked. */
const FOR_EACH = /^for\s+(?:each|every)\b/i;

/**
 * The part of the question that says what to return: after the request words, up to the first word that
 * starts a condition ("What are the names of the singers [who …]", "Show name, country, age for all
 * singers [ordered by …]"). "of" and "for" keep going: they tie an attribute to its entity.
 */
export function askSpan(question: string): Constructs["ask"] {
  // "How many countries does each continent have? List the continent id, name and the number of countries.":
  // a second sentence that asks explicitly says what to return.
  const sentences = [...question.matchAll(/[^?.!]+[?.!]*/g)];
  const explicit = sentences.slice(1).find((m) => /^\s*(?:list|show|give|return|display|find|report|provide|include)\b/i.test(m[0]));
  const offset = explicit?.index ?? 0;
  const sentence = explicit ? explicit[0] : question;
  // "For each stadium, how many …": the grouping phrase in front is not asked.
  const front = /^\s*(?:for|in)\s+(?:each|every)\s+[^,]+,\s*/i.exec(sentence);
  const body = front ? sentence.slice(front[0].length) : sentence;
  const shift = offset + (front ? front[0].length : 0);
  const lead = LEAD.exec(body);
  let start = shift + (lead ? lead[0].length : 0);
  // "How many …": the count is the ask; the noun after it is what is counted.
  const howMany = /^\s*how\s+(?:many|much)\s+/i.exec(body);
  if (howMany) start = shift + howMany[0].length;
  const rest = question.slice(start);
  let end = start;
  let words = 0;
  for (const m of rest.matchAll(/[\p{L}\p{N}_'’-]+|[,;?!.]/gu)) {
    const token = m[0];
    const at = start + m.index;
    if (/^[?!.;]$/.test(token)) break;
    if (words > 0 && (BOUNDARY.test(token) || FOR_EACH.test(question.slice(at)))) {
      // "and their ages", "and also": a connective before a boundary word does not end the ask.
      if (/^and$/i.test(token)) continue;
      break;
    }
    if (/^[\p{L}\p{N}]/u.test(token)) words++;
    end = at + token.length;
  }
  if (end <= start) return null;
  return { start, end, text: question.slice(start, end) };
}

// ---------------------------------------------------------------------------------------------
// Connectives and negation

const CONNECTIVES: [RegExp, Constructs["connectives"][number]["kind"]][] = [
  [
    /\b(?:but|and)\s+not\b|\bbut\s+(?:do|does|did|have|has|had|is|are|was|were)\s*(?:not|n't)\b|\bexcept\s+(?:those|the\s+ones|for)\b/gi,
    "but-not",
  ],
  [/\bboth\b/gi, "both"],
  [/\beither\b/gi, "either"],
  [/\bor\b/gi, "or"],
  [/\band\b/gi, "and"],
];

export function connectives(question: string): Constructs["connectives"] {
  const out: Constructs["connectives"] = [];
  const taken: [number, number][] = [];
  for (const [re, kind] of CONNECTIVES) {
    for (const m of question.matchAll(re)) {
      const at = m.index ?? 0;
      if (taken.some(([a, b]) => at >= a && at < b)) continue;
      // "or more", "or fewer", "or less", "or equal": part of a bound, not a disjunction.
      if (
        kind === "or" &&
        /^or\s+(?:more|fewer|less|greater|equal|above|below|higher|lower|later|earlier|older|younger)\b/i.test(question.slice(at))
      )
        continue;
      taken.push([at, at + m[0].length]);
      out.push({ kind, at, text: m[0] });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

const NEGATION = /\b(?:not|never|no|without|except|excluding|none\s+of|n't)\b|n't\b/gi;

export function negations(question: string): Constructs["negations"] {
  const out: Constructs["negations"] = [];
  for (const m of question.matchAll(NEGATION)) {
    const at = m.index ?? 0;
    // "no more than 5", "not more than", "not less than": bounds, read as comparisons.
    if (/^(?:no|not)\s+(?:more|less|fewer|greater|later|earlier)\s+than\b/i.test(question.slice(at))) continue;
    const scope = question
      .slice(at + m[0].length)
      .trim()
      .split(/\s+/)
      .slice(0, 6)
      .join(" ");
    out.push({ cue: m[0].toLowerCase(), at, scope });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Count conditions (HAVING)

const NUM = String.raw`(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty)`;
/** The counted noun phrase: up to three words, stopping at a word that starts another phrase. */
const NOUN = String.raw`([\p{L}_]+(?:\s+(?!(?:who|whom|that|which|with|without|in|on|at|from|for|and|or|than|by|of|per|each|to|are|is|was|were|have|has|had|do|does|did)\b)[\p{L}_]+){0,2})`;
const COUNT_PATTERNS: { re: RegExp; op: Constructs["counts"][number]["op"] }[] = [
  {
    re: new RegExp(String.raw`\b${NUM}\s+or\s+more\s+(?:different\s+|distinct\s+|kinds?\s+of\s+|types?\s+of\s+)?${NOUN}`, "giu"),
    op: ">=",
  },
  { re: new RegExp(String.raw`\b${NUM}\s+or\s+(?:fewer|less)\s+${NOUN}`, "giu"), op: "<=" },
  {
    re: new RegExp(String.raw`\bat\s+least\s+${NUM}\s+(?:different\s+|distinct\s+|kinds?\s+of\s+|types?\s+of\s+)?${NOUN}`, "giu"),
    op: ">=",
  },
  { re: new RegExp(String.raw`\bat\s+most\s+${NUM}\s+${NOUN}`, "giu"), op: "<=" },
  { re: new RegExp(String.raw`\b(?:more|greater)\s+than\s+${NUM}\s+(?:different\s+|distinct\s+)?${NOUN}`, "giu"), op: ">" },
  { re: new RegExp(String.raw`\b(?:fewer|less)\s+than\s+${NUM}\s+${NOUN}`, "giu"), op: "<" },
  { re: new RegExp(String.raw`\bexactly\s+${NUM}\s+${NOUN}`, "giu"), op: "=" },
  { re: new RegExp(String.raw`\b(?:only|just)\s+one\s+${NOUN}`, "giu"), op: "=" },
  { re: new RegExp(String.raw`\b(?:multiple|several)\s+${NOUN}`, "giu"), op: ">" },
];

/**
 * "Which regions have 3 or more warehouses?", "customers who placed more than one order":
 * a bound on how many of a noun a row has. Whether the noun names rows to count (a table, a label) or a
 * numeric attribute ("more than 3500 weight") is for formulation to decide against the schema.
 */
export function countConditions(question: string): Constructs["counts"] {
  const out: Constructs["counts"] = [];
  const taken: [number, number][] = [];
  for (const { re, op } of COUNT_PATTERNS) {
    for (const m of question.matchAll(re)) {
      const at = m.index ?? 0;
      if (taken.some(([a, b]) => at < b && at + m[0].length > a)) continue;
      const groups = m.slice(1).filter((g) => g !== undefined);
      const noun = groups[groups.length - 1];
      const value = groups.length > 1 ? parseSmallNumber(groups[0].toLowerCase()) : op === ">" ? 1 : 1;
      if (value === null || !noun) continue;
      taken.push([at, at + m[0].length]);
      out.push({ op, value, noun: noun.trim(), at, text: m[0] });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

// ---------------------------------------------------------------------------------------------

/** A plural answer to a superlative keeps every tie: "Which dogs are the oldest?", "the students with the highest grade". */
function wantsTies(question: string): boolean {
  if (/\b(?:ties?|tied)\b/i.test(question)) return true;
  if (/\b(?:top|bottom|first|last)\s+\d+|\b\d+\s+(?:most|least|highest|lowest|largest|smallest)\b/i.test(question)) return false;
  // "all (the) X with the highest …", "every X that has the most …": every row at the extreme.
  return /\b(?:all|every)\s+(?:the\s+)?[\p{L}_]+(?:\s+[\p{L}_]+)?\s+(?:with|who|that|which|whose)\b.*\b(?:most|least|highest|lowest|largest|smallest|greatest|fewest)\b/iu.test(
    question,
  );
}

const EACH =
  /\b(?:for\s+each|for\s+every|in\s+each|of\s+each|each|every|per|for\s+(?:all\s+)?(?:the\s+|each\s+of\s+the\s+)?(?:different|distinct|various)(?:\s+number\s+of)?|across\s+(?:all\s+)?(?:the\s+)?(?:different|distinct))\s+([\p{L}_]+(?:\s+[\p{L}_]+)?)/iu;
/** "… by region?" as the question's last phrase. */
const BY_AT_END = /(?:^|\s)([\p{L}\d]+)\s+by\s+(?:the\s+|each\s+)?([\p{L}_]+(?:\s+[\p{L}_]+)?)\s*[?.!]*\s*$/iu;
/** Words before "by" that make it an agent or a sort ("placed by", "made by", "ordered by"), not a breakdown. */
const NOT_GROUPING_BEFORE = /(?:ed|en)$|^(?:made|held|sold|led|won|paid|bought|run|built|order|sort|rank|group)$/i;

export function grouping(question: string): Constructs["grouping"] {
  const each = EACH.exec(question);
  if (each) return { kind: "each", text: each[1], at: each.index + each[0].length - each[1].length };
  const by = BY_AT_END.exec(question);
  if (by && !NOT_GROUPING_BEFORE.test(by[1])) return { kind: "by", text: by[2], at: by.index + by[0].lastIndexOf(by[2]) };
  return null;
}

const COUNT_WORD = String.raw`(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty)`;
/** "the first 3", "top five", "List 3 movies", "Name the 3 persons", "Which 3 suppliers": how many rows to list. */
const LIMIT = new RegExp(
  String.raw`\b(?:first|top|any)\s+${COUNT_WORD}\b|^\s*(?:please\s+)?(?:list|name|show|give|find|return|get|provide|retrieve|identify|which|what\s+are)\s+(?:me\s+)?(?:the\s+)?(?:names?\s+of\s+(?:the\s+)?)?${COUNT_WORD}\s+[\p{L}]+`,
  "iu",
);

/**
 * `read` gives what the intent already reads as time or as an entity, whose numbers are not comparisons
 * ("in 2014", "Route 66"); without it every number is open to being one.
 */
export function analyzeConstructs(
  question: string,
  read: Pick<Parameters<typeof numericComparisons>[0], "time" | "entities"> = { time: [], entities: [] },
): Constructs {
  const ask = askSpan(question);
  const limit = LIMIT.exec(question);
  return {
    ask,
    connectives: connectives(question),
    negations: negations(question),
    counts: countConditions(question),
    countNouns: countNouns(question),
    comparisons: numericComparisons({ completed: question, ...read }),
    order: orderWords(question),
    quoted: quotedConstructs(question),
    lacked: lackedPhrases(question),
    without: withoutWords(question),
    existence: existencePhrases(question, ask),
    ties: wantsTies(question),
    // "Which one …" asks for one thing, not for a list cut at one.
    limit: limit && !(limit[1] === undefined && /^one$/i.test(limit[2])) ? parseSmallNumber((limit[1] ?? limit[2]).toLowerCase()) : null,
    grouping: grouping(question),
    distinct:
      /\b(?:different|distinct|unique)\b/i.test(ask?.text ?? "") ||
      /^\s*(?:what|which|list|show|find)\s+(?:are\s+)?(?:the\s+)?(?:different|distinct|unique)\b/i.test(question),
  };
}

/** The question's constructs as understand read them, or read here when the intent came without (a non-English question, a turn persisted earlier, a test). */
export function constructsOf(intent: Intent): Constructs {
  return intent.constructs ?? analyzeConstructs(intent.completed, intent);
}

/**
 * The constructs once formulate drops some entity mentions (a value that does not link in this source): a number
 * inside a dropped mention ("Route 66") is open to being a comparison again, as understand reads it.
 */
export function constructsWithEntities(intent: Intent, entities: EntityMention[]): Constructs | undefined {
  if (!intent.constructs || entities.length >= intent.entities.length) return intent.constructs;
  return { ...intent.constructs, comparisons: numericComparisons({ completed: intent.completed, time: intent.time, entities }) };
}
