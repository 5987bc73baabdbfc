import { labelFromIri } from "../../../backends/evidence";
import { checkSparqlSafety } from "../../../backends/sparql";
import { isSafeIri } from "../../../backends/sparql/rdf-terms";
import { checkSqlSafety } from "../../../backends/sql";
import type { SqlDialect } from "../../../backends/sql/dialect";
import { tokenize } from "../../../backends/sql/lexical";
import { LANGUAGE_OF, type KbStructure, type NativeQuery } from "../../../backends/types";
import { normalizeLabel, terms, words } from "../../text";
import type { Candidate, FormulatedQuery, Intent } from "../../contracts";
import { analyzeConstructs } from "../understand/constructs";
import { numberWordsAsDigits } from "../understand/lexicon";
import { extractTimeCues } from "../understand/time-cues";
import { numericComparisons } from "../understand/comparisons";
import { dice } from "./lexicon";
import { semanticText } from "./search/formulate-search";

/**
 * Extraction-guide adaptation (AU-RAG's demonstrations, used directly): a guide's native query for a
 * question like this one is re-used with the new question's entities in place of the guide's. The
 * guide question's entities are found as the literal values of its query that its question mentions
 * (quoted strings, IRIs, numbers); each is replaced by a linked value of the same kind from the new
 * question. Nothing is substituted blindly: if the guide's entities cannot all be paired, the query is
 * used unchanged only when the two questions are nearly identical.
 */

export interface FormulateGuide {
  guideId: string;
  question: string;
  /** 0..1: BM25 of this question against the guide's, relative to the guide's self-match (GuideHit.score). */
  score: number;
  /** The words-only part of score (GuideHit.lexicalScore); absent: score. */
  lexicalScore?: number;
  /**
   * The guide matcher (lib/models/guide-matcher.ts) reads the two questions as one question, the same
   * query template answering both (GuideHit.matcher). Absent: no matcher ran.
   */
  sameQuestion?: boolean;
  /** The matcher's log-odds for the pair (GuideHit.matcher.logit): of two guides it reads as this question, the higher is the one. */
  matcherLogit?: number;
  kbId: string;
  /** The source object the analyst tied the query to (its key), if any: the evidence it returns is placed there. */
  sourceObject?: string | null;
  query: NativeQuery;
}

/**
 * A guide is a candidate for adaptation from this score on. The score is BM25 relative to the
 * guide's self-match, so a question with the same wording and another entity keeps the template's
 * share of the weight; entity words are rare (high IDF), so that share is typically 0.5–0.8, while an
 * unrelated question that only shares a common word stays well below 0.5.
 */
export const GUIDE_MIN_SCORE = 0.5;
/**
 * With the entities masked on both sides, this share (Dice) of the remaining terms must agree: at
 * most about one content word in three differs, a paraphrase of the same template.
 */
export const GUIDE_MIN_TEMPLATE = 0.6;
/**
 * Or: this share of the new question's own template words (entities masked) is in the guide's
 * question. The guide's entity is not always masked completely (an IRI's local name covers part of
 * its label), so containment in that direction tolerates the leftover words; it needs two template
 * words at least, so "How many X" alone never matches everything.
 */
export const GUIDE_MIN_CONTAINMENT = 0.8;
/** Used unchanged (nothing to substitute) only this close, by score and by all the words of the two questions. */
export const GUIDE_NEARLY_IDENTICAL = 0.9;

type LiteralKind = "string" | "iri" | "number";

interface Literal {
  kind: LiteralKind;
  value: string;
  start: number;
  end: number;
  /** For SQL strings: the column compared with it, when the text says (`"country" = 'France'`). */
  column?: string;
  /** For Cypher parameters: the parameter name (value lives in params, not in the text). */
  param?: string;
  /** A LIMIT / TOP count: only a whole positive number replaces it. */
  limit?: boolean;
}

interface Replacement {
  kind: LiteralKind;
  value: string;
  /** The mention the value stands for. */
  mention: string;
  /** SQL column / RDF predicate the value belongs to, when the link says. */
  column?: string;
  /** A number's offset in the question (its role there: numberRoles). */
  at?: number;
}

// ---------------------------------------------------------------------------------------------
// Literals of a native query

const NUMBER = /(?<![\w.$?:"'`-])\d+(?:\.\d+)?(?![\w.])/g;

/**
 * A SQL query's literals, read by the engine's own lexical rules (lib/backends/sql/lexical.ts: strings,
 * quoted identifiers and comments as SQLite or PostgreSQL reads them), never by a pattern over the
 * text: a quote inside an identifier or a comment is not a literal. Plain '…' strings and bare numbers
 * are the slots; E'' and $$ strings stay as written. A LIMIT's count is a slot too ("top 3" → "top 5"),
 * used only when the guide's question states that number (mentionedAt).
 */
function sqlLiterals(text: string, dialect: SqlDialect): Literal[] {
  const tokens = tokenize(text, dialect);
  const out: Literal[] = [];
  const covered: [number, number][] = [];
  for (const [i, t] of tokens.entries()) {
    if (t.kind === "string" || t.kind === "quoted") covered.push([t.start, t.end]);
    if (t.kind !== "string" || text[t.start] !== "'") continue;
    // The column compared with it, when the text says ("country" = 'France', city IN ('Oslo', …)).
    let j = i - 1;
    while (
      j >= 0 &&
      (tokens[j].kind === "other" || tokens[j].kind === "open-paren" || /^(?:IN|LIKE)$/i.test(text.slice(tokens[j].start, tokens[j].end)))
    )
      j--;
    const prev = j >= 0 ? tokens[j] : null;
    const column =
      prev && (prev.kind === "word" || prev.kind === "quoted")
        ? text.slice(prev.start, prev.end).replace(/^["`[]|["`\]]$/g, "")
        : undefined;
    out.push({ kind: "string", value: text.slice(t.start + 1, t.end - 1).replace(/''/g, "'"), start: t.start, end: t.end, column });
  }
  const comments = commentSpans(text, tokens);
  out.push(...numbersOutside(text, [...covered, ...comments], /$^/g, true));
  return out.sort((a, b) => a.start - b.start);
}

/** Stretches between tokens that hold something other than spaces: comments, which hold no literals. */
function commentSpans(text: string, tokens: { start: number; end: number }[]): [number, number][] {
  const out: [number, number][] = [];
  let at = 0;
  for (const t of [...tokens, { start: text.length, end: text.length }]) {
    if (text.slice(at, t.start).trim()) out.push([at, t.start]);
    at = t.end;
  }
  return out;
}

function numbersOutside(text: string, covered: [number, number][], identifiers: RegExp, limits = false): Literal[] {
  const blocked = [...covered];
  for (let m = identifiers.exec(text); m; m = identifiers.exec(text)) {
    if (m[0] === "") break;
    blocked.push([m.index, m.index + m[0].length]);
  }
  const out: Literal[] = [];
  for (let m = NUMBER.exec(text); m; m = NUMBER.exec(text)) {
    const at = m.index;
    if (blocked.some(([a, b]) => at >= a && at < b)) continue;
    // LIMIT/OFFSET counts are the query's shape, unless the question states them (SQL slots, above).
    const limit = /\b(?:LIMIT|OFFSET|SKIP|TOP)\s*$/i.test(text.slice(Math.max(0, at - 8), at));
    if (limit && !limits) continue;
    out.push({ kind: "number", value: m[0], start: at, end: at + m[0].length, ...(limit ? { limit: true } : {}) });
  }
  NUMBER.lastIndex = 0;
  return out;
}

function sparqlLiterals(text: string): Literal[] {
  const out: Literal[] = [];
  const covered: [number, number][] = [];
  const prefixes = new Map<string, string>();
  for (const m of text.matchAll(/PREFIX\s+([\p{L}][\p{L}\p{N}_-]*)?:\s*<([^>]*)>/giu)) prefixes.set(m[1] ?? "", m[2]);
  const bodyStart = Math.max(0, ...[...text.matchAll(/PREFIX\s+[^<]*<[^>]*>/gi)].map((m) => (m.index ?? 0) + m[0].length));
  const scan = /<([^<>"{}|^`\\\s]*)>|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g;
  for (let m = scan.exec(text); m; m = scan.exec(text)) {
    covered.push([m.index, m.index + m[0].length]);
    if (m.index < bodyStart) continue;
    if (m[1] !== undefined) out.push({ kind: "iri", value: m[1], start: m.index, end: m.index + m[0].length });
    else
      out.push({
        kind: "string",
        value: JSON.parse(`"${(m[2] ?? m[3] ?? "").replace(/\\'/g, "'")}"`) as string,
        start: m.index,
        end: m.index + m[0].length,
      });
  }
  const prefixed = /(?<![\w?$:<])([\p{L}][\p{L}\p{N}_-]*)?:([\p{L}_][\p{L}\p{N}_-]*)/gu;
  for (let m = prefixed.exec(text); m; m = prefixed.exec(text)) {
    const at = m.index;
    const ns = prefixes.get(m[1] ?? "");
    if (ns === undefined || at < bodyStart || covered.some(([a, b]) => at >= a && at < b)) continue;
    out.push({ kind: "iri", value: `${ns}${m[2]}`, start: at, end: at + m[0].length });
  }
  out.push(...numbersOutside(text, covered, /\?[\w]+/g).filter((n) => n.start >= bodyStart));
  return out.sort((a, b) => a.start - b.start);
}

function cypherLiterals(query: NativeQuery): Literal[] {
  const text = query.text;
  const out: Literal[] = [];
  const covered: [number, number][] = [];
  const strings = /'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g;
  for (let m = strings.exec(text); m; m = strings.exec(text)) {
    covered.push([m.index, m.index + m[0].length]);
    out.push({ kind: "string", value: (m[1] ?? m[2] ?? "").replace(/\\(.)/g, "$1"), start: m.index, end: m.index + m[0].length });
  }
  out.push(...numbersOutside(text, covered, /`(?:[^`]|``)*`/g, true));
  for (const [name, value] of Object.entries(query.params ?? {})) {
    if (typeof value === "string") out.push({ kind: "string", value, start: -1, end: -1, param: name });
  }
  return out;
}

function literalsOf(query: NativeQuery, dialect: SqlDialect): Literal[] {
  switch (query.language) {
    case "sql":
      return sqlLiterals(query.text, dialect);
    case "sparql":
      return sparqlLiterals(query.text);
    case "cypher":
      return cypherLiterals(query);
    case "search":
      return [];
  }
}

// ---------------------------------------------------------------------------------------------
// Which literals are the guide question's entities

function containsPhrase(haystack: string, needle: string): number {
  const h = ` ${normalizeLabel(haystack)} `;
  const n = normalizeLabel(needle);
  if (!n) return -1;
  const at = h.indexOf(` ${n} `);
  return at;
}

/**
 * Where the guide question mentions the literal (position), or -1. An IRI's local name rarely reads
 * like the label ("aurora-de" for "Aurora Outfitters GmbH"): it counts when at least half of its words
 * are in the question; IRIs of the KB's schema (predicates, classes) never count.
 */
function mentionedAt(question: string, literal: Literal, schemaIris: ReadonlySet<string>): number {
  if (literal.kind !== "iri") return containsPhrase(question, literal.value);
  if (schemaIris.has(literal.value)) return -1;
  const localWords = words(labelFromIri(literal.value)).filter((w) => w.length >= 2 && !/^\d+$/.test(w));
  if (localWords.length === 0) return -1;
  const positions = localWords.map((w) => containsPhrase(question, w)).filter((at) => at >= 0);
  return positions.length * 2 >= localWords.length ? Math.min(...positions) : -1;
}

/** Predicates and classes of an RDF KB: IRIs a guide query uses for its shape, not for its entities. */
function schemaIrisOf(structure: KbStructure | null): Set<string> {
  if (structure?.kind !== "rdf") return new Set();
  return new Set([...structure.predicates.map((p) => p.iri), ...structure.classes.map((c) => c.iri)]);
}

// ---------------------------------------------------------------------------------------------
// Values of the new question

/** A number as the question writes it; a replacement's `at` and numberRoles' offsets both come from it, so they align. */
const QUESTION_NUMBER = /\b\d+(?:\.\d+)?\b/g;

/** Link kinds that name a thing in the KB (the others name its schema: tables, columns, predicates, classes). */
const THING_LINKS = new Set(["label", "value", "node"]);

/**
 * The new question's values, in question order: linked resources as IRIs, linked cell or property
 * values as strings, numbers. An unlinked mention stands for itself only in Cypher, where nodes are
 * matched by name; a SQL or SPARQL literal needs a value the KB holds.
 */
function replacementsFor(intent: Intent, kbId: string, language: NativeQuery["language"]): Replacement[] {
  const out: Replacement[] = [];
  const ordered = [...intent.entities].sort((a, b) => (a.span?.[0] ?? Infinity) - (b.span?.[0] ?? Infinity));
  // Where the values this loop takes stand: a number inside one is part of its name ("Route 66", "Two Rivers").
  const named: [number, number][] = [];
  for (const e of ordered) {
    const before = out.length;
    const link = e.links.filter((l) => l.kbId === kbId && THING_LINKS.has(l.kind)).sort((a, b) => b.score - a.score)[0];
    if (link?.kind === "label") {
      out.push({ kind: "iri", value: link.ref, mention: e.mention });
    } else if (link?.kind === "value") {
      const rdf = /^<([^>]*)> (".*")$/s.exec(link.ref);
      const eq = link.ref.indexOf("=");
      if (rdf) out.push({ kind: "string", value: JSON.parse(rdf[2]) as string, mention: e.mention, column: rdf[1] });
      else if (eq >= 0) {
        const left = link.ref.slice(0, eq);
        out.push({ kind: "string", value: link.ref.slice(eq + 1), mention: e.mention, column: left.slice(left.lastIndexOf(".") + 1) });
      } else out.push({ kind: "string", value: link.label, mention: e.mention });
    } else if (link?.kind === "node") {
      out.push({ kind: "string", value: link.label, mention: e.mention });
    } else if (!link && language === "cypher") {
      out.push({ kind: "string", value: e.mention, mention: e.mention });
    }
    if (out.length > before && e.span) named.push(e.span);
  }
  const mentioned = new Set(ordered.map((e) => normalizeLabel(e.mention)));
  for (const m of intent.completed.matchAll(QUESTION_NUMBER)) {
    const inEntity = named.some(([a, b]) => m.index >= a && m.index < b);
    if (!inEntity && ![...mentioned].some((x) => x.split(" ").includes(m[0])))
      out.push({ kind: "number", value: m[0], mention: m[0], at: m.index });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// What each number of a question does

/**
 * What a number does in its question, read by the same analyses that formulate queries from questions:
 * a period ("in 2014", "before 1960": time cues, with their comparator), a comparison ("older than 40",
 * "at least 3": the numeric comparisons formulation writes as conditions), the count of rows asked for
 * ("the first 3", "top 5": the constructs' limit), or nothing said ("plain"). A guide's number is the
 * new question's number only when both do the same: "older than 40" is not "first 5", and a guide for
 * "before 1960" does not answer "in 1952".
 */
type NumberRole = string;

function numberRoles(question: string): { at: number; value: string; role: NumberRole }[] {
  const time = extractTimeCues(question);
  const comparisons = numericComparisons({ completed: question, time: time.cues, entities: [] });
  const limit = analyzeConstructs(question).limit;
  const out: { at: number; value: string; role: NumberRole }[] = [];
  for (const m of question.matchAll(QUESTION_NUMBER)) {
    const at = m.index;
    const cue = time.spans.findIndex(([a, b]) => at >= a && at < b);
    const comparison = comparisons.find((c) => at >= c.at && at < c.at + c.text.length);
    const role =
      cue >= 0
        ? `time:${time.cues[cue].comparator ?? "in"}`
        : comparison
          ? `compare:${comparison.op}`
          : limit !== null && Number(m[0]) === limit
            ? "limit"
            : "plain";
    out.push({ at, value: m[0], role });
  }
  return out;
}

/** The role of a value's first mention in the question, or null when the question does not write it as a number. */
function roleOf(roles: ReturnType<typeof numberRoles>, value: string): NumberRole | null {
  return roles.find((r) => Number(r.value) === Number(value))?.role ?? null;
}

// ---------------------------------------------------------------------------------------------
// Adaptation

function masked(text: string, phrases: string[]): string[] {
  let t = ` ${normalizeLabel(text)} `;
  for (const p of phrases) {
    const n = normalizeLabel(p);
    if (n) t = t.split(` ${n} `).join(" ");
  }
  return terms(t);
}

/** How much two questions share their template once the entities are masked (Dice of the remaining terms). */
function templateAgreement(guideQuestion: string, guideEntities: string[], question: string, mentions: string[]): number {
  return dice(masked(guideQuestion, guideEntities), masked(question, mentions));
}

/** Whether two questions share their template once the entities are masked (see the thresholds above). */
function sameTemplate(guideQuestion: string, guideEntities: string[], question: string, mentions: string[]): boolean {
  const b = masked(question, mentions);
  if (templateAgreement(guideQuestion, guideEntities, question, mentions) >= GUIDE_MIN_TEMPLATE) return true;
  const guideTerms = new Set(terms(guideQuestion));
  const distinct = [...new Set(b)];
  return distinct.length >= 2 && distinct.filter((t) => guideTerms.has(t)).length / distinct.length >= GUIDE_MIN_CONTAINMENT;
}

function writeLiteral(language: NativeQuery["language"], r: Replacement, original: Literal, originalText: string): string | null {
  if (original.limit) return /^[1-9]\d{0,5}$/.test(r.value) ? r.value : null;
  if (r.kind === "number" && original.kind === "number") return /^\d+(?:\.\d+)?$/.test(r.value) ? r.value : null;
  if (r.kind === "iri") return isSafeIri(r.value) ? `<${r.value}>` : null;
  switch (language) {
    case "sql":
      // Standard SQL quoting, as both engines read it: '' inside; no NUL (neither engine keeps one in text).
      return `'${r.value.replace(/\u0000/g, "").replace(/'/g, "''")}'`;
    case "sparql":
      return JSON.stringify(r.value);
    case "cypher": {
      const quote = originalText[original.start] === '"' ? '"' : "'";
      return `${quote}${r.value.replace(/\\/g, "\\\\").replace(new RegExp(quote, "g"), `\\${quote}`)}${quote}`;
    }
    default:
      return null;
  }
}

export interface GuideAdaptation {
  query: NativeQuery;
  explanation: string;
  /**
   * The guide matches the question (A matching guide wins): close enough in words (GUIDE_MATCH_SCORE) or
   * the same template once values are masked (GUIDE_MATCH_TEMPLATE), and the entities agree: every value the guide's question
   * names found its counterpart in this question, and every value this question names is in the
   * adapted query. Its query is then the answer query, not one more piece of evidence.
   */
  matches: boolean;
  /** The question's values the adapted query uses (substituted, or the guide's own when the same). */
  valuesUsed: string[];
}

/**
 * A guide this close to the question in words (BM25 relative to its self-match: GuideHit.lexicalScore)
 * and agreeing on the entities answers it. Below it the guide's query is one more candidate query, as
 * before; so is a guide found only by meaning (the calibrated cosine of the two questions): measured on
 * Text2Cypher's few-shot halves, questions built alike on one graph embed close while asking other
 * things, and letting meaning alone commit the guide's query turned right answers wrong.
 */
export const GUIDE_MATCH_SCORE = 0.7;
/**
 * Or the two questions' templates, their values masked, agree this much (Dice): the same question
 * about other values ("in 2024" / "in 2025", "top 3" / "top 5"), whose values weigh most in BM25.
 */
export const GUIDE_MATCH_TEMPLATE = 0.8;

/** A string literal that holds a number (a year compared as text: strftime('%Y', d) = '2024') takes a number's place. */
const NUMERIC_TEXT = /^\d+(?:\.\d+)?$/;

function fits(literal: Literal, r: Replacement): boolean {
  if (literal.limit) return r.kind === "number" && /^[1-9]\d*$/.test(r.value);
  if (r.kind === literal.kind) return true;
  return literal.kind === "string" && r.kind === "number" && NUMERIC_TEXT.test(literal.value);
}

/**
 * Whether both questions negate, or neither: "who have not treated any" and "who have ever treated"
 * share every content word, and a guide's NOT IN answers only the first. Read by the construct rules
 * (understand/constructs.ts), as the critic reads a question's negation.
 */
function samePolarity(guideQuestion: string, question: string): boolean {
  const negates = (q: string) =>
    analyzeConstructs(q).negations.some((n) => n.scope.trim() !== "" && !/^(?:only|just|even)\b/i.test(n.scope.trim()));
  return negates(guideQuestion) === negates(question);
}

/**
 * A count is not a list: the matcher's reading is not taken when the guide's query returns one count (its
 * outer SELECT list counts, no outer grouping) and the question asks for no count, or the question asks
 * for a count and the guide's query counts nothing; the matcher confuses "how many flights leave from X"
 * with "which flights leave from X", built alike. Counts per group are left to the matcher: understand
 * does not always read a count in "each maker with how many models it makes".
 */
function sameAnswerKind(query: NativeQuery, intent: Intent, dialect: SqlDialect): boolean {
  if (query.language !== "sql") return true;
  const { counts, grouped } = outerCountAndGrouping(query.text, dialect);
  if (intent.aggregate === "count") return counts;
  return !(counts && !grouped);
}

/**
 * Whether the query's outer SELECT list calls COUNT, and whether its outer level groups: read on the
 * engine-faithful tokens (parentheses in strings and quoted names do not count), at nesting depth 0.
 */
function outerCountAndGrouping(sql: string, dialect: SqlDialect): { counts: boolean; grouped: boolean } {
  const tokens = tokenize(sql, dialect);
  const word = (i: number) => (tokens[i]?.kind === "word" ? sql.slice(tokens[i].start, tokens[i].end).toLowerCase() : "");
  let depth = 0;
  let inList = false;
  let counts = false;
  let grouped = false;
  for (let i = 0; i < tokens.length; i++) {
    const kind = tokens[i].kind;
    if (kind === "open-paren") depth++;
    else if (kind === "close-paren") depth = Math.max(0, depth - 1);
    else if (depth === 0 && kind === "word") {
      const w = word(i);
      if (w === "select") inList = true;
      else if (w === "from") inList = false;
      else if (inList && w === "count" && tokens[i + 1]?.kind === "open-paren") counts = true;
      else if (w === "group" && word(i + 1) === "by") grouped = true;
    }
  }
  return { counts, grouped };
}

/** The question's own values: linked things and numbers (what must be in a matching guide's query). */
function namedValues(intent: Intent, kbId: string, language: NativeQuery["language"]): Replacement[] {
  return replacementsFor(intent, kbId, language === "cypher" ? "sql" : language);
}

/** The guide's query for this question, or null when the guide does not fit it. */
export function adaptGuide(
  guide: FormulateGuide,
  intent: Intent,
  candidate: Pick<Candidate, "kbId" | "kind">,
  structure: KbStructure | null = null,
): GuideAdaptation | null {
  if (guide.kbId !== candidate.kbId || guide.query.language !== LANGUAGE_OF[candidate.kind] || guide.score < GUIDE_MIN_SCORE) return null;
  // Numbers written as words are numbers on both sides ("at least two" is the guide's `>= 2`, and
  // "top three" takes its place); the digits keep every offset, so entity spans and roles still align.
  const guideQuestion = numberWordsAsDigits(guide.question);
  const completed = numberWordsAsDigits(intent.completed);
  const counted: Intent = completed === intent.completed ? intent : { ...intent, completed };
  // Close in words. Closeness in meaning alone finds the guide and offers its query (GUIDE_MIN_SCORE), but
  // questions built alike on one source embed close while asking other things ("who reviewed the most
  // movies rated above 90" / "list the movies reviewed with a rating above 80"): for the guide's query to
  // be the answer, the words must agree too (or the templates, below).
  // Or the learned matcher reads them as one question in other words: trained on questions that share
  // a query template and on questions built alike that do not, so a paraphrase is not left to words.
  const dialect: SqlDialect = structure?.kind === "sql" ? structure.dialect : "sqlite";
  const learned =
    guide.sameQuestion === true && samePolarity(guide.question, intent.completed) && sameAnswerKind(guide.query, intent, dialect);
  const close = ((guide.lexicalScore ?? guide.score) >= GUIDE_MATCH_SCORE && samePolarity(guide.question, intent.completed)) || learned;
  const questionValues = namedValues(counted, candidate.kbId, guide.query.language);
  const inGuideQuestion = (r: Replacement) => containsPhrase(guideQuestion, r.mention) >= 0;
  const asWritten = (why: string): GuideAdaptation => ({
    query: guide.query,
    explanation: `Guide "${guide.question}" used as written (${why})`,
    // As written, it answers only a question naming no value the guide's question does not name.
    matches: close && questionValues.every(inGuideQuestion),
    valuesUsed: questionValues.map((r) => r.mention),
  });
  const asIs: GuideAdaptation | null = nearlyIdentical(guide, intent.completed) ? asWritten("nearly the same question") : null;

  if (guide.query.language === "search") {
    // The guide's plain-words form is of its own question: the vector half embeds this one.
    const found = adaptSearch(guide, intent) ?? asIs;
    const semantic = semanticText(intent);
    // A search finds passages; it never is the answer itself.
    return found && { ...found, matches: false, query: { ...found.query, ...(semantic ? { semantic } : {}) } };
  }

  const literals = literalsOf(guide.query, dialect)
    .map((l) => ({ literal: l, at: mentionedAt(guideQuestion, l, schemaIrisOf(structure)) }))
    .filter((x) => x.at >= 0)
    .sort((a, b) => a.at - b.at);
  // A guide query with no value to adapt is the question's own query when the matcher reads the two as one
  // question: "How many vocalists do we have?" for a guide "How many singers are there?".
  if (literals.length === 0) return asIs ?? (learned ? asWritten("the guide matcher reads it as the same question") : null);

  const guideEntities = literals.map((x) => (x.literal.kind === "iri" ? labelFromIri(x.literal.value) : x.literal.value));
  const pool = replacementsFor(counted, candidate.kbId, guide.query.language);
  // The question's values are its slots as the guide's are: masked on both sides before the templates are compared.
  const mentions = [...new Set([...intent.entities.map((e) => e.mention), ...pool.map((r) => r.mention)])];
  if (!learned && !sameTemplate(guideQuestion, guideEntities, completed, mentions)) return asIs;
  // Close by the guide's score (words or meaning), or by the template itself once the slots are masked.
  const matchingTemplate =
    templateAgreement(
      guideQuestion,
      guideEntities,
      completed,
      pool.map((r) => r.mention),
    ) >= GUIDE_MATCH_TEMPLATE;

  const used = new Set<Replacement>();
  // The same guide value written twice (a filter and a projection) is one entity: one replacement.
  const byValue = new Map<string, Replacement>();
  const pairs: { literal: Literal; replacement: Replacement }[] = [];
  // A number of the guide's question takes the place of a number doing the same in this question. The
  // roles are read only when a number is to be paired (time cues parse dates: not for every guide).
  let roles: { guide: ReturnType<typeof numberRoles>; question: ReturnType<typeof numberRoles> } | null = null;
  const sameRole = (literal: Literal, r: Replacement) => {
    if (r.kind !== "number") return true;
    roles ??= { guide: numberRoles(guideQuestion), question: numberRoles(completed) };
    const wanted = roleOf(roles.guide, literal.value);
    return wanted === null || roles.question.find((q) => q.at === r.at)?.role === wanted;
  };
  for (const { literal } of literals) {
    const key = `${literal.kind}\u0000${literal.value}`;
    const candidates = pool.filter((r) => !used.has(r) && fits(literal, r) && sameRole(literal, r));
    const match =
      byValue.get(key) ??
      candidates.find((r) => literal.column !== undefined && r.column !== undefined && sameColumn(r.column, literal.column)) ??
      candidates.find((r) => r.kind === literal.kind) ??
      candidates[0];
    if (!match) return asIs;
    used.add(match);
    byValue.set(key, match);
    pairs.push({ literal, replacement: match });
  }

  let text = guide.query.text;
  const params = { ...(guide.query.params ?? {}) };
  const changes: string[] = [];
  // Right to left, so earlier offsets stay valid.
  for (const { literal, replacement } of [...pairs].sort((a, b) => b.literal.start - a.literal.start)) {
    const shown = literal.kind === "iri" ? labelFromIri(literal.value) : literal.value;
    // The same value (another column's spelling of it, "Oslo" for "oslo"): the guide's literal stays as
    // its author wrote it, the way the column its query reads stores it.
    const same = literal.kind !== "iri" && normalizeLabel(literal.value) === normalizeLabel(replacement.value);
    if (!same && literal.param) {
      params[literal.param] = replacement.value;
    } else if (!same) {
      const written = writeLiteral(guide.query.language, replacement, literal, guide.query.text);
      if (written === null) return asIs;
      text = `${text.slice(0, literal.start)}${written}${text.slice(literal.end)}`;
    }
    if (normalizeLabel(shown) !== normalizeLabel(replacement.kind === "iri" ? labelFromIri(replacement.value) : replacement.value)) {
      changes.push(`"${shown}" → "${replacement.mention}"`);
    }
  }
  const query: NativeQuery = { ...guide.query, text, ...(guide.query.params ? { params } : {}) };
  const what = changes.length > 0 ? `substituted ${[...new Set(changes.reverse())].join(", ")}` : "same entities";
  // Every value this question names is in the query: substituted, or the guide's own (named by both questions).
  const agree = questionValues.every((r) => used.has(r) || [...used].some((u) => u.value === r.value) || inGuideQuestion(r));
  return {
    query,
    explanation: `Adapted guide "${guide.question}": ${what}${learned ? " (the guide matcher reads it as the same question)" : ""}`,
    matches: (close || matchingTemplate) && agree && samePolarity(guide.question, intent.completed),
    valuesUsed: [...new Set(pairs.map((p) => p.replacement.mention))],
  };
}

function sameColumn(a: string, b: string): boolean {
  const bare = (x: string) => normalizeLabel(x.slice(x.lastIndexOf(".") + 1));
  return bare(a) === bare(b);
}

/** Search texts are words: the guide's entity words give way to the new question's mentions. */
function adaptSearch(guide: FormulateGuide, intent: Intent): GuideAdaptation | null {
  const text = guide.query.text;
  const guideWords = new Set(words(guide.question));
  const newWords = new Set(words(intent.completed));
  // Words of the guide's search text that its question has and this question lacks: the old entity.
  const stale = words(text).filter(
    (w) =>
      guideWords.has(w) && !newWords.has(w) && /\p{Lu}|\d/u.test(guide.question.split(/\s+/).find((x) => normalizeLabel(x) === w) ?? ""),
  );
  if (stale.length === 0 || intent.entities.length === 0) return null;
  if (
    !sameTemplate(
      guide.question,
      stale,
      intent.completed,
      intent.entities.map((e) => e.mention),
    )
  )
    return null;
  const kept = text.split(/\s+/).filter((w) => !stale.includes(normalizeLabel(w)));
  const adapted = [...intent.entities.map((e) => e.mention), ...kept].join(" ").trim();
  return adapted
    ? {
        query: { ...guide.query, text: adapted },
        explanation: `Adapted guide "${guide.question}": search words "${stale.join(" ")}" → "${intent.entities.map((e) => e.mention).join(", ")}"`,
        matches: false,
        valuesUsed: intent.entities.map((e) => e.mention),
      }
    : null;
}

/**
 * Which guide is tried first: a guide nearly identical to the question (its own guide asked again), then
 * those the matcher reads as this question, its highest reading first (on held-out training databases that
 * picks a guide of the question's own template more often than the nearest one does), then the rest by
 * closeness. The matcher reads a question beside a near copy of itself less surely than beside a
 * paraphrase (close wordings of other templates were its hardest negatives), so it never puts another
 * guide before a near copy; a guide only close in words ("names of the players in descending order of
 * earnings" beside "the earnings of the players in descending order") does not go before its reading.
 */
function byGuideOrder(guides: FormulateGuide[], intent: Intent): FormulateGuide[] {
  // Two near copies by content terms ("which grade has the most …" and "what is the grade of each …" share
  // every term once "most" and "each" are dropped as stopwords): the one closer in all its words first.
  const asked = words(intent.completed);
  const keyed = guides.map((guide) => {
    const rank = nearlyIdentical(guide, intent.completed) ? 2 : guide.sameQuestion === true ? 1 : 0;
    const within = rank === 2 ? dice(words(guide.question), asked) : rank === 1 ? (guide.matcherLogit ?? 0) : 0;
    return { guide, rank, within };
  });
  keyed.sort((a, b) => b.rank - a.rank || b.within - a.within || b.guide.score - a.guide.score);
  return keyed.map((k) => k.guide);
}

/**
 * Nearly the same words, function words included: they carry what the question asks ("the most" / "each",
 * "more than" / "exactly", "before" / "after"), and content terms alone call such pairs identical.
 */
function nearlyIdentical(guide: FormulateGuide, question: string): boolean {
  return guide.score >= GUIDE_NEARLY_IDENTICAL && dice(words(guide.question), words(question)) >= GUIDE_NEARLY_IDENTICAL;
}

/** The guide queries for one candidate, best guide first, each checked like any generated query. */
export async function guideQueries(
  guides: FormulateGuide[],
  intent: Intent,
  candidate: Candidate,
  structure: KbStructure | null,
): Promise<{ queries: FormulatedQuery[]; notes: string[] }> {
  const notes: string[] = [];
  const queries: FormulatedQuery[] = [];
  const seen = new Set<string>();
  for (const guide of byGuideOrder(guides, intent)) {
    let adapted: GuideAdaptation | null;
    try {
      adapted = adaptGuide(guide, intent, candidate, structure);
    } catch (e) {
      notes.push(`guide "${guide.question.slice(0, 80)}" could not be adapted: ${(e as Error).message}`);
      continue;
    }
    if (!adapted || seen.has(adapted.query.text)) continue;
    try {
      if (adapted.query.language === "sql")
        await checkSqlSafety(adapted.query.text, structure?.kind === "sql" ? structure.dialect : "sqlite");
      if (adapted.query.language === "sparql") checkSparqlSafety(adapted.query.text);
    } catch (e) {
      notes.push(`guide "${guide.question.slice(0, 80)}" gives a query that cannot run: ${(e as Error).message}`);
      continue;
    }
    seen.add(adapted.query.text);
    // A matching guide's query is the answer query (select-evidence/commit.ts commits to it first): the
    // analyst's query renders the whole question, so the values it uses are the question's and nothing is left over.
    const answers = adapted.matches && adapted.query.language !== "search" && !queries.some((q) => q.role === "answer");
    queries.push({
      kbId: candidate.kbId,
      kbName: candidate.kbName,
      kind: candidate.kind,
      query: adapted.query,
      strategy: "guide",
      // A structured query reads the table or class the analyst tied it to; a search's hits carry their own places.
      sourceObject: adapted.query.language === "search" ? null : (guide.sourceObject ?? null),
      explanation: `${adapted.explanation}.`,
      guideId: guide.guideId,
      guideQuestion: guide.question,
      ...(answers
        ? {
            role: "answer" as const,
            fit: { valuesUsed: adapted.valuesUsed, valuesMissed: [], unresolved: [], coverage: 1, uncovered: [] },
            grouped: null,
          }
        : {}),
    });
  }
  return { queries, notes };
}
