import type { AnswerForm, AnswerType } from "../../contracts";
import { periodsIn } from "../../../tables/periods";
import { normalizeLabel } from "../../text";
import { expectedUnit } from "../../units";

/**
 * What kind of answer the question wants, read once here from its wording and kept in the Intent
 * (`answerForm`): prose or a value, a reason, a change rather than a level, the kind of quantity a
 * "what is the <noun>" question names, the unit expected, an identifier, a choice between offered
 * values. The answer stage and the evidence scorers read these fields, never the question again.
 */

/**
 * Questions after a reason, a cause or what something is made of, whatever period they name: "In 2019,
 * why did the margin fall?", "What caused the rise in freight costs in 2022?", "What was the
 * write-down in 2021 mainly due to?", "What did the pension obligation as of 2023 exclude?".
 * A figure of the period is never their answer.
 */
const REASON_OR_MAKEUP =
  /(?:^|,\s*)why\b|^\s*(?:what|which)\s+(?:\w+\s+){0,2}?(?:led|leads|caused|causes|contributed|drove|drives|resulted|impacted|affected|influenced)\b|\b(?:reasons?|causes?|drivers?|factors?)\s+(?:for|of|behind|that|which)\b|\b(?:due|attributable|attributed|related|relate|relates|owing)\s+to\s*\??\s*$|\b(?:driven|influenced|caused|affected|offset)\s+by\s*\??\s*$|\b(?:comprised?|composed|made\s+up|consists?|consisted)\s+(?:\w+\s+)?of\s*\??\s*$|^\s*what\s+(?:is|are|was|were)\s+(?:\w+\s+)?(?:included|excluded)\s+(?:in|from)\b|^\s*what\s+(?:does|do|did)\b[^?]*\b(?:include|exclude|comprise|represent|consist)\w*\s*\??\s*$|^\s*what\s+results?\s+in\b|^\s*what\b[^?]*\b\w+(?:ed|en)\s+(?:\w+\s+)?(?:in|to|for|as|with|within|into)\s*\??\s*$/i;

/**
 * Questions after a definition, a condition or a manner, when they name no period (with one, "how is
 * X in 2019" may well ask for its figure): "What is Goodwill?", "When is goodwill considered
 * impaired?", "How is the Group's revenue diversified?", "Were there any impairment charges?".
 */
const DEFINITION_OR_CONDITION =
  /^\s*what\s+(?:is|are)\s+(?!the\b|an?\b|total\b|net\b)[A-Z][\w&'’-]*(?:\s+[\w&'’-]+){0,3}\s*\?\s*$|^\s*when\s+(?:is|are|does|do)\b|^\s*how\s+(?:is|are|will|would|can|does|do)\b(?![^?]*\b(?:much|many|long|old|large|big|often|far)\b)|^\s*(?:is|are|was|were|did|does|do|has|have)\b[^?]*\b(?:any|there)\b|^\s*what\s+(?:is|are|was|were)\s+(?:the\s+)?(?:\w+\s+)?(?:plan|plans|projection|forecast|outlook|rationale|implication|focus|step|requirements?|entitlements?|assumptions?|strategy|role|function|terms|conditions|criteria)\b(?!\s+(?:amount|value|figure|total|rate)\b)/i;

/** "Why …", "What caused / led to …", "What was the reason for …", "… primarily due to?": the question asks for a reason. */
const REASON_QUESTION =
  /(?:^|,\s*)why\b|^\s*(?:what|which)\s+(?:\w+\s+){0,2}?(?:led|leads|caused|causes|contributed|drove|drives|resulted)\b|\b(?:reasons?|causes?|drivers?)\s+(?:for|of|behind)\b|\bfactors?\s+(?:that|which)\b|\b(?:due|attributable|attributed|owing)\s+to\s*\??\s*$|\b(?:driven|caused)\s+by\s*\??\s*$/i;

/**
 * Questions whose answer is prose however many figures their evidence holds: reasons, definitions,
 * methods, descriptions. A figure read from a table cannot answer them.
 */
const PROSE_QUESTION =
  /^\s*why\b|^\s*how\s+(?:is|are|was|were|does|do|did|will|would|can|should)\b(?!.*\b(?:much|many)\b).*\b(?:determin|calculat|measur|recogni[sz]|comput|estimat|defin|account|classif|record|allocat|assess|treat|present|report|disclos|arriv|deriv|perform|test|fund|financ|manag|impact|affect|driv|caus|us(?:e|ed)\b)|^\s*what\s+(?:does|do|did)\b.*\b(?:represent|mean|include|consist|compris|refer|relate|indicate|reflect|cover|contain|measure)\w*(?:\s+(?:of|to|for|in))?\s*\??\s*$|^\s*what\s+(?:is|are|was|were)\s+(?:the\s+)?(?:(?:main|primary|principal|key|major|other|underlying|specific)\s+)?(?:reason|reasons|cause|causes|purpose|method|basis|definition|meaning|policy|nature|impact|effect|driver|drivers|component|components|composition|objective|approach)s?\b|\b(?:based|determined|calculated|measured)\s+(?:on|upon)\s*\??\s*$|^\s*how\s+often\b|^\s*where\s+(?:is|are|was|were|can|should|could|does|do)\b.*\b(?:disclosed|found|described|discussed|presented|recorded|included|reported|look|obtain|see)\b|^\s*what\s+(?:is|are)\s+an?\s+[a-z\s-]{2,40}\?\s*$|^\s*(?:what|which)\s+(?:led|caused|contributed|drove|resulted)\b|\bwhat\s+(?:happened|was\s+the\s+(?:reason|cause))\b|\bwhat\s+(?:are|were)\s+the\s+(?:items|components|factors|categories|types|elements)\b/i;

export function asksForReason(question: string): boolean {
  return REASON_QUESTION.test(question.replace(/\s+/g, " ").trim());
}

/** Whether a question asks for an explanation, a definition or a method rather than a value. */
export function readsAsProse(question: string): boolean {
  const text = question.replace(/\s+/g, " ").trim();
  if (REASON_OR_MAKEUP.test(text)) return true;
  return (PROSE_QUESTION.test(text) || DEFINITION_OR_CONDITION.test(text)) && periodsIn(text).length === 0;
}

/** Nouns that name a quantity, by the kind of value that states it. */
const QUANTITY_NOUNS: [Exclude<AnswerType, "list">[], string][] = [
  [["percent", "number"], "rate|rates|margin|margins|share|growth|ratio|percentage|proportion|yield"],
  [
    ["number", "count"],
    "window|warranty|guarantee|period|term|duration|length|age|lifetime|life|headcount|number|count|size|capacity|total|quantity|volume|weight|height|distance",
  ],
  [
    ["money", "number"],
    "cap|caps|limit|limits|price|prices|cost|costs|fee|fees|allowance|allowances|per diem|budget|salary|salaries|revenue|revenues|income|expense|expenses|profit|profits|sales|tax|taxes|dividend|dividends|balance|value|amount|amounts|payment|payments|spend|spending|turnover|earnings|reimbursement|threshold|maximum|minimum",
  ],
];

/**
 * The kind of value a "what is the <quantity>" question asks for, when its head noun names a
 * quantity ("hotel cap", "return window", "operating margin"); null otherwise.
 */
export function quantityAsked(question: string): Exclude<AnswerType, "list">[] | null {
  const q = question.toLowerCase().replace(/[’']s\b/g, "");
  for (const [types, nouns] of QUANTITY_NOUNS) {
    const re = new RegExp(
      `^\\s*(?:what|which)\\s+(?:is|was|are|were|'s)\\s+(?:the\\s+|an?\\s+)?(?:[\\w-]+\\s+){0,5}?(?:${nouns})\\s*(?:\\?|$|\\b(?:of|for|in|at|per|on|under|from|to|during|by|when|with)\\b)`,
    );
    if (re.test(q)) return [...types];
  }
  return null;
}

/** "By how much did X grow", "the increase in X": a change is asked for, so a level reached ("to 48.2 million") is not its answer. */
const CHANGE_QUESTION =
  /\bby\s+how\s+much\b|\bhow\s+much\s+did\b.*\b(grow|increase|decrease|rise|fall|decline|drop|change)\b|\b(growth|increase|decrease|change|decline)\s+(in|of)\b/i;

/** Words that ask for an identifier ("what is the order id"): only then are key columns answers. */
const ASKS_FOR_ID = /\b(id|ids|identifier|identifiers|key|code|uuid)\b/;

/** "Name the first 3 movies …", "Name 3 people who …": the request verb "name" asks for the answers' names. */
const NAME_REQUEST =
  /^\s*(?:please\s+)?name\s+(?:the|all|any|some|every|each|those|these|\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b/i;

export function readAnswerForm(question: string): AnswerForm {
  return {
    prose: readsAsProse(question),
    reason: asksForReason(question),
    why: /^\s*why\b/i.test(question),
    change: CHANGE_QUESTION.test(question),
    quantity: quantityAsked(question),
    unit: expectedUnit(question),
    id: ASKS_FOR_ID.test(normalizeLabel(question)),
    choice: /\bor\b/i.test(question),
    nameRequest: NAME_REQUEST.test(question),
  };
}
