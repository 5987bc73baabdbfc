import type { EvidencePiece } from "../../../backends/types";
import { normalizeLabel, terms } from "../../text";
import { type AnswerType, type EntityLink, type Intent, answerFormOf } from "../../contracts";
import { lemmaTerms } from "../../lemma";
import type { ExpectedUnit } from "../../units";

/**
 * What the answer and critique stages need to know about the question, computed once from the intent:
 * the surface forms of its entities (to skip, penalize or anchor on them), its terms (to pick sentences,
 * columns, predicates and relationship types) and the answer type asked for.
 */
export interface QuestionEntity {
  mention: string;
  /** The mention and the label of its best link, de-duplicated: the forms evidence may use for it. */
  forms: string[];
  /** KB references of the best link (IRI, node id, "table.column=value"), to match triples and paths by id. */
  refs: string[];
  linked: boolean;
}

export interface QuestionFocus {
  intent: Intent;
  language: string;
  entities: QuestionEntity[];
  /** Every content term of the completed question, entity terms included (stemmed, see text.ts). */
  questionTerms: Set<string>;
  /** Terms that say what is asked (relation and keywords, entity terms removed): they pick columns and predicates. */
  focusTerms: Set<string>;
  /** Classes the question names for its answer ("In which city…" → "city"), normalized labels. */
  answerClasses: Set<string>;
  /** The same words as lemmas (lemma.ts): "makes" and "maker" meet a "made by" predicate. */
  focusLemmas: Set<string>;
  /** Answer types without the "list" modifier; empty when the question gave no clue. */
  wanted: AnswerType[];
  wantsList: boolean;
  wantsCount: boolean;
  /** An aggregate or superlative was asked for: aggregate columns (COUNT, SUM...) are then the answer. */
  wantsAggregate: boolean;
  /** who/which/what-entity questions: name and title columns hold the answer. */
  asksForName: boolean;
  /** The completed question, normalized and padded with spaces for whole-word containment tests. */
  paddedQuestion: string;
  /** The question asks for a person, organisation or location: names are then typed by compromise (a parse per name). */
  wantsNameKind: boolean;
  /** The question asks for an identifier ("what is the order id"): only then are key columns answers. */
  asksForId: boolean;
  /** The unit the question expects ("how many products" → a count of products), for unit agreement (units.ts). */
  expectedUnit: ExpectedUnit | null;
}

const SCHEMA_KINDS = new Set(["column", "table", "predicate", "class"]);

/**
 * A link to a schema element, not to a thing: a column, table, predicate or class, or a Neo4j node label
 * (kind "label" with a bare label name as ref; an RDF "label" link refers to a resource by its IRI).
 */
function isSchemaLink(l: EntityLink): boolean {
  return SCHEMA_KINDS.has(l.kind) || (l.kind === "label" && !/^[a-z][\w+.-]*:/i.test(l.ref));
}

const NAME_TYPES: readonly AnswerType[] = ["person", "organisation", "location", "entity"];

function uniqueByNormalized(values: string[]): string[] {
  const seen = new Map<string, string>();
  for (const v of values) {
    const key = normalizeLabel(v);
    if (key && !seen.has(key)) seen.set(key, v.trim());
  }
  return [...seen.values()];
}

export function buildQuestionFocus(intent: Intent): QuestionFocus {
  const language = intent.language || "en";
  // A mention linked only to a schema element ("return window" → the column "Return window (days)") names
  // what is asked, not a thing the answer is about: it stays a focus word and anchors nothing.
  const entities: QuestionEntity[] = intent.entities
    .filter((e) => !(e.links.length > 0 && e.links.every(isSchemaLink)))
    .map((e) => {
      const best = e.links[0];
      return {
        mention: e.mention,
        forms: uniqueByNormalized([e.mention, ...(best ? [best.label] : [])]),
        refs: best ? [best.ref] : [],
        linked: e.links.length > 0,
      };
    });
  const entityTerms = new Set(entities.flatMap((e) => e.forms.flatMap((f) => terms(f, language))));
  const questionTerms = new Set(terms(intent.completed, language));
  // "how many" / "how much" leave "many"/"much" among the keywords: they say what kind of answer, not what about.
  const whTerms = new Set(terms(intent.wh ?? "", language));
  // The schema-linked mentions ("country" → a Country column) are exactly what is asked about.
  const schemaWords = intent.entities.filter((e) => !entities.some((x) => x.mention === e.mention)).map((e) => e.mention);
  const focusTerms = new Set(
    [
      ...terms(intent.relation ?? "", language),
      ...intent.keywords.flatMap((k) => terms(k, language)),
      ...terms(intent.superlative?.attribute ?? "", language),
      ...schemaWords.flatMap((w) => terms(w, language)),
    ].filter((t) => !entityTerms.has(t) && !whTerms.has(t)),
  );
  const entityLemmas = new Set(entities.flatMap((e) => e.forms.flatMap((f) => lemmaTerms(f))));
  const whLemmas = new Set(lemmaTerms(intent.wh ?? ""));
  const focusLemmas = new Set(
    [intent.relation ?? "", ...intent.keywords, intent.superlative?.attribute ?? "", ...schemaWords]
      .flatMap((k) => lemmaTerms(k))
      .filter((t) => !entityLemmas.has(t) && !whLemmas.has(t)),
  );
  const wh = (intent.wh ?? "").toLowerCase();
  const wantsCount = intent.aggregate === "count" || intent.answerTypes.includes("count") || /^how many\b/.test(wh);
  let wanted = intent.answerTypes.filter((t): t is Exclude<AnswerType, "list"> => t !== "list");
  if (wanted.length === 0 && wantsCount) wanted.push("count");
  // "What caused …", "How is X determined?", "What does X consist of?": an explanation, whatever figures the evidence holds.
  const form = answerFormOf(intent);
  if (form.prose) wanted = ["text"];
  // "What is the hotel cap?" reads as a generic what-question, but a cap is an amount: a sentence that only mentions the cap is no answer.
  const quantity = wanted.every((t) => t === "entity" || t === "text") ? form.quantity : null;
  if (quantity) wanted = quantity;
  return {
    intent,
    language,
    entities,
    questionTerms,
    focusTerms,
    focusLemmas,
    answerClasses: new Set(
      intent.entities
        .flatMap((e) =>
          e.links.some((l) => l.kind === "class") && e.links.every(isSchemaLink)
            ? [normalizeLabel(e.links.find((l) => l.kind === "class")!.label), normalizeLabel(e.mention)]
            : [],
        )
        .filter(Boolean),
    ),
    wanted,
    wantsList: intent.answerTypes.includes("list"),
    wantsCount,
    wantsAggregate: wantsCount || intent.aggregate !== null,
    asksForName: wh === "who" || wh === "which" || wh === "whom" || wanted.some((t) => NAME_TYPES.includes(t)),
    paddedQuestion: ` ${normalizeLabel(intent.completed)} `,
    wantsNameKind: wanted.some((t) => t === "person" || t === "organisation" || t === "location"),
    asksForId: form.id,
    expectedUnit: form.unit,
  };
}

// ---------------------------------------------------------------------------------------------
// Matching surface forms against text

const termCache = new Map<string, Set<string>>();

/** Content terms of a text, memoized: the same pieces are matched against many forms. */
export function termSet(text: string, language = "en"): Set<string> {
  const key = `${language}\u0000${text}`;
  let set = termCache.get(key);
  if (!set) {
    if (termCache.size > 5_000) termCache.clear();
    set = new Set(terms(text, language));
    termCache.set(key, set);
  }
  return set;
}

/**
 * Whether `text` mentions `form`: the normalized form as whole words, or (for inflections such as
 * "tent" / "Tents") every content term of the form among the text's terms.
 */
export function mentions(text: string, form: string, language = "en"): boolean {
  const f = normalizeLabel(form);
  if (!f) return false;
  if (` ${normalizeLabel(text)} `.includes(` ${f} `)) return true;
  const formTerms = terms(form, language);
  if (formTerms.length === 0) return false;
  const textTerms = termSet(text, language);
  return formTerms.every((t) => textTerms.has(t));
}

/** Whether a value is one of the question's entities (same normalized form), so it cannot be the answer. */
export function isQuestionEntityValue(value: string, focus: QuestionFocus): boolean {
  const v = normalizeLabel(value);
  return v.length > 0 && focus.entities.some((e) => e.forms.some((f) => normalizeLabel(f) === v));
}

/** Whether a term belongs to one of the question's entities ("tent" of "Summit 2 Tent"): a category named after it still answers. */
function entityTerm(term: string, focus: QuestionFocus): boolean {
  return focus.entities.some((e) => e.forms.some((f) => terms(f, focus.language).includes(term)));
}

/** Whether the question already states the value ("2025" in "revenue in 2025"): a restated value is no answer. */
export function questionStates(value: string, focus: QuestionFocus): boolean {
  const v = normalizeLabel(value);
  if (v.length > 0 && focus.paddedQuestion.includes(` ${v} `)) return true;
  // One question word in another form ("returned" for "which warehouse handles returns?") restates it,
  // unless it belongs to a named entity or the question offers the values to choose from ("… or …").
  const words = terms(value, focus.language);
  if (
    words.length === 1 &&
    !/\d/.test(value) &&
    focus.questionTerms.has(words[0]) &&
    !entityTerm(words[0], focus) &&
    !answerFormOf(focus.intent).choice
  )
    return true;
  // A year the question names, whatever word follows it ("2018 related", "2019 compared"), is the period asked about, not the answer.
  const year = /^((?:19|20)\d\d)\b/.exec(v);
  return !!year && !focus.wanted.includes("date") && focus.paddedQuestion.includes(` ${year[1]} `);
}

/** Same name up to case, punctuation and inflection ("Tents" / "tent"), not mere containment. */
export function sameName(a: string, b: string, language = "en"): boolean {
  const na = normalizeLabel(a);
  if (na.length > 0 && na === normalizeLabel(b)) return true;
  const ta = terms(a, language);
  const tb = terms(b, language);
  return ta.length > 0 && ta.length === tb.length && ta.every((t, i) => t === tb[i]);
}

/**
 * Whether a node or resource (a triple end, a path node) IS one of the question's entities: by its
 * reference, or by a label equal to one of the entity's forms. Stricter than `matchesQuestionEntity`,
 * so "Aurora Outfitters GmbH" stays a candidate when the question names "Aurora Outfitters AB".
 */
export function isQuestionEntityNode(label: string, refs: string[], focus: QuestionFocus): boolean {
  return focus.entities.some((e) => e.refs.some((r) => refs.includes(r)) || e.forms.some((f) => sameName(label, f, focus.language)));
}

/** Whether a text (a cell, a label, a caption) is, or names, one of the question's entities. */
export function matchesQuestionEntity(text: string, focus: QuestionFocus, refs: string[] = []): boolean {
  return focus.entities.some((e) => e.refs.some((r) => refs.includes(r)) || e.forms.some((f) => mentions(text, f, focus.language)));
}

/** Whether a native query names one of the question's entities (a filter on it), by form or by reference. */
export function queryNamesEntity(query: string, entity: QuestionEntity): boolean {
  const q = ` ${normalizeLabel(query)} `;
  return (
    entity.refs.some((r) => r.length > 2 && query.includes(r)) ||
    entity.forms.some((f) => normalizeLabel(f).length > 0 && q.includes(` ${normalizeLabel(f)} `))
  );
}

/**
 * Whether a piece mentions the entity. For a linked entity, triples and paths name resources and nodes,
 * so one of them must BE the entity (its reference, or a label equal to a form): "Aurora Outfitters
 * GmbH" is not "Aurora Outfitters AB". Otherwise (rows, passages, an unlinked mention such as a role
 * written on a relationship) the entity's words anywhere in the text, or among the piece's entities.
 */
export function pieceMentionsEntity(piece: EvidencePiece, entity: QuestionEntity, language = "en"): boolean {
  const data = piece.data;
  const isEntity = (label: string, ref: string) => entity.refs.includes(ref) || entity.forms.some((f) => sameName(label, f, language));
  if (entity.linked && "subject" in data)
    return isEntity(data.subject.label, data.subject.value) || isEntity(data.object.label, data.object.value);
  if (entity.linked && "nodes" in data) return data.nodes.some((n) => isEntity(n.caption, n.id));
  return (
    entity.forms.some((f) => mentions(piece.text, f, language) || piece.entities.some((x) => normalizeLabel(x) === normalizeLabel(f))) ||
    locationRefs(piece).some((r) => entity.refs.includes(r))
  );
}

/** KB references a piece is located by (IRIs of a triple, node ids of a path), for matching links by id. */
export function locationRefs(piece: EvidencePiece): string[] {
  const data = piece.data;
  if ("subject" in data) return [data.subject.value, data.object.value];
  if ("nodes" in data) return data.nodes.map((n) => n.id);
  if ("columns" in data && data.key) return Object.values(data.key).map(String);
  return [];
}

/** Whether a relation name (predicate, relationship type, column) holds a focus word, as a stem or a lemma. */
export function namesFocus(name: string, focus: QuestionFocus): boolean {
  return (
    [...termSet(name, focus.language)].some((t) => focus.focusTerms.has(t)) ||
    (focus.language.startsWith("en") && lemmaTerms(name).some((t) => focus.focusLemmas.has(t)))
  );
}

/** How many focus words a relation name holds (stems or lemmas, whichever meets more). */
export function focusMatches(name: string, focus: QuestionFocus): number {
  const byStem = [...termSet(name, focus.language)].filter((t) => focus.focusTerms.has(t)).length;
  const byLemma = focus.language.startsWith("en") ? new Set(lemmaTerms(name).filter((t) => focus.focusLemmas.has(t))).size : 0;
  return Math.max(byStem, byLemma);
}
