import * as chrono from "chrono-node";
import type { EvidencePiece, PathData, RowData, Scalar, TripleData } from "../../backends/types";
import { CURRENCY_CODE_PATTERN, CURRENCY_SYMBOL_PATTERN, CURRENCY_WORD_PATTERN } from "../../data/currencies";
import { fieldWords } from "../../data/field-types";
import { normalizeLabel } from "../text";
import { type AnswerType, type EvidenceScorer, type Intent, answerFormOf } from "../contracts";
import { type GazetteerCategory, isIn } from "./gazetteer";
import { identifierWords } from "./piece-text";
import { type ExpectedUnit, UNIT_CONTRADICTS, unitAgreement, unitOfColumn } from "../units";

/**
 * Answer-type fit: does the piece hold the kind of thing the question asks for (a date for "when", a
 * number for "how many", a person for "who")? 0..1 per piece; the best fit over the intent's answer
 * types. Structured pieces are judged by their fields (a "released" property, a numeric "count(*)"
 * cell, an xsd:date literal), text by its form (a date chrono can parse, a capitalized first name).
 */

interface Field {
  /** Normalized column, predicate or property name ("song release year"). */
  name: string;
  /** The unit the column states ("Warranty (years)" → "years"), when it states one. */
  unit?: string;
  value: Scalar;
  datatype?: string;
}

function fieldName(name: string): string {
  return normalizeLabel(identifierWords(name));
}

/** The named values a piece carries: row cells, a triple's object under its predicate, graph properties. */
export function fieldsOf(piece: EvidencePiece): Field[] {
  if (piece.kind === "row") {
    const row = piece.data as RowData;
    return row.columns.map((c, i) => ({ name: fieldName(c), value: row.values[i] ?? null, unit: unitOfColumn(c)?.word }));
  }
  if (piece.kind === "triple") {
    const t = piece.data as TripleData;
    const value: Scalar =
      t.object.termType === "Literal" && t.object.datatype && /#(integer|decimal|double|float|int|long)$/.test(t.object.datatype)
        ? Number(t.object.value)
        : t.object.label;
    return [{ name: fieldName(t.predicate.label), value, datatype: t.object.datatype }];
  }
  if (piece.kind === "path") {
    const p = piece.data as PathData;
    return [...p.nodes, ...p.edges].flatMap((el) =>
      Object.entries(el.properties).map(([k, v]) => ({ name: fieldName(k), value: Array.isArray(v) ? (v[0] ?? null) : v })),
    );
  }
  return [];
}

/**
 * What kind of things the piece is about, by name: a path's node labels (":Person", ":Company"), or
 * the table a row comes from ("singer", "employees"), whose name column then names such a thing.
 */
function kindNames(piece: EvidencePiece): string[] {
  if (piece.kind === "path") return (piece.data as PathData).nodes.flatMap((n) => n.labels.map(fieldName));
  if (piece.kind === "row")
    return fieldName((piece.data as RowData).table)
      .split(" ")
      .map((w) => w.replace(/s$/, ""));
  return [];
}

/** The piece is about a kind of thing matching `label` and, for rows, names one in a name column. */
function isAboutKind(piece: EvidencePiece, fields: Field[], label: RegExp, role: boolean): boolean {
  const kinds = kindNames(piece).filter((k) => label.test(k) || (role && isIn(k, "role")));
  if (!kinds.length) return false;
  return piece.kind !== "row" || fields.some((f) => /\bname\b/.test(f.name) && typeof f.value === "string" && f.value.length > 0);
}

// Field names that say what their values are (lib/data/field-types.json). Word-bounded, on normalized names.
const DATE_FIELD = fieldWords("date");
const COUNT_FIELD = /^(count|cnt|num|number|total|sum)\b|\bcount\b|\bnumber of\b/;
const MONEY_FIELD = fieldWords("money");
const PERCENT_FIELD = fieldWords("percent");
const PERSON_FIELD = fieldWords("person");
const ORG_FIELD = fieldWords("organisation");
const PLACE_FIELD = fieldWords("location");
const ID_FIELD = /(^|\s)(id|key|uuid)$/;
const PERSON_LABEL = /^(person|people|actor|director|author|user|employee|customer|member|player|artist|writer)$/;
const ORG_LABEL = /^(company|organisation|organization|supplier|manufacturer|team|publisher|studio|shipper)$/;

const YEAR = /\b(1[5-9]\d\d|20\d\d)\b/;
const ISO_DATE = /^\d{4}-\d{2}(-\d{2})?/;
const NUMBER_IN_TEXT = /(^|[^\p{L}\d])[-+]?\d[\d,]*(\.\d+)?(?![\p{L}\d])/u;
const NUMBER_WORD = /\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|hundred|thousand|million|billion)\b/i;
/** A sum of money in text: a currency symbol before a figure, or a code or word after it (lib/data/currencies.json). */
const MONEY_IN_TEXT = new RegExp(
  `(?:${CURRENCY_SYMBOL_PATTERN})\\s?\\d|\\d\\s?(?:${CURRENCY_CODE_PATTERN}|${CURRENCY_WORD_PATTERN})\\b`,
  "i",
);
const PERCENT_IN_TEXT = /\d\s?%|\bper ?cent\b|\bpercentage\b/i;
const ORG_SUFFIX = /^(inc|ltd|llc|corp|corporation|company|co|gmbh|ag|plc|group|university|bank|institute|association|foundation)\.?$/i;

const isNumeric = (v: Scalar) => typeof v === "number" || (typeof v === "string" && /^[-+]?\d[\d,]*(\.\d+)?$/.test(v.trim()));
const hasValue = (v: Scalar) => v !== null && v !== "";

/** Capitalized word sequences of the text, with their lower-cased forms, for gazetteer checks. */
function capitalizedTokens(text: string): { raw: string; lower: string }[] {
  return (text.match(/[\p{L}][\p{L}'’.-]*/gu) ?? []).map((raw) => ({ raw, lower: raw.toLowerCase().replace(/[.’']+$/, "") }));
}

const capitalized = (w: string) => /^\p{Lu}/u.test(w);

/** "Tom Hanks", "Dr. Rivera": a known first name or honorific before a capitalized word, or a capitalized word before a known last name. */
function mentionsPerson(text: string): boolean {
  const tokens = capitalizedTokens(text);
  for (let i = 0; i + 1 < tokens.length; i++) {
    const [a, b] = [tokens[i], tokens[i + 1]];
    if (!capitalized(a.raw) || !capitalized(b.raw)) continue;
    if (isIn(a.lower, "firstName") || isIn(a.lower, "honorific") || isIn(b.lower, "lastName")) return true;
  }
  return false;
}

function mentionsCategory(text: string, category: GazetteerCategory): boolean {
  const tokens = capitalizedTokens(text);
  for (let i = 0; i < tokens.length; i++) {
    if (!capitalized(tokens[i].raw)) continue;
    if (isIn(tokens[i].lower, category)) return true;
    if (i + 1 < tokens.length && isIn(`${tokens[i].lower} ${tokens[i + 1].lower}`, category)) return true;
  }
  return false;
}

function mentionsOrganisation(text: string): boolean {
  if (mentionsCategory(text, "organisation")) return true;
  const tokens = capitalizedTokens(text);
  return tokens.some((t, i) => i > 0 && capitalized(tokens[i - 1].raw) && ORG_SUFFIX.test(t.raw));
}

type Fit = (piece: EvidencePiece, fields: Field[], expected: ExpectedUnit | null) => number;

const dateFit: Fit = (piece, fields) => {
  if (
    fields.some(
      (f) =>
        hasValue(f.value) &&
        (DATE_FIELD.test(f.name) ||
          /#(date|dateTime|gYear|gYearMonth)$/.test(f.datatype ?? "") ||
          (typeof f.value === "string" && ISO_DATE.test(f.value))),
    )
  )
    return 1;
  if (chrono.parse(piece.text).some((r) => r.start.isCertain("year") || (r.start.isCertain("month") && r.start.isCertain("day"))))
    return 0.8;
  return YEAR.test(piece.text) ? 0.6 : 0;
};

function numericFit(fields: Field[], text: string, field: RegExp, inText: RegExp | null, expected: ExpectedUnit | null = null): number {
  // A figure whose column states a unit the question rules out ("Warranty (years)" for "how many products") is not the quantity asked for.
  const numbers = fields.filter(
    (f) => isNumeric(f.value) && !ID_FIELD.test(f.name) && unitAgreement(`1 ${f.unit ?? ""}`, expected) > UNIT_CONTRADICTS,
  );
  if (numbers.some((f) => field.test(f.name))) return 1;
  if (inText?.test(text)) return 1;
  // A bare number in a structured field is likely the quantity; one in prose may be anything.
  if (numbers.length) return 0.7;
  return NUMBER_IN_TEXT.test(text) || NUMBER_WORD.test(text) ? 0.4 : 0;
}

const FITS: Record<AnswerType, Fit> = {
  date: dateFit,
  number: (piece, fields, expected) => numericFit(fields, piece.text, COUNT_FIELD, null, expected),
  count: (piece, fields, expected) => numericFit(fields, piece.text, COUNT_FIELD, null, expected),
  money: (piece, fields, expected) => numericFit(fields, piece.text, MONEY_FIELD, MONEY_IN_TEXT, expected),
  percent: (piece, fields, expected) => numericFit(fields, piece.text, PERCENT_FIELD, PERCENT_IN_TEXT, expected),
  person: (piece, fields) => {
    if (isAboutKind(piece, fields, PERSON_LABEL, true)) return piece.kind === "path" ? 1 : 0.9;
    if (fields.some((f) => hasValue(f.value) && !isNumeric(f.value) && (PERSON_FIELD.test(f.name) || isIn(f.name, "role")))) return 0.9;
    return mentionsPerson(piece.text) ? 0.8 : 0;
  },
  organisation: (piece, fields) => {
    if (isAboutKind(piece, fields, ORG_LABEL, false)) return piece.kind === "path" ? 1 : 0.9;
    if (fields.some((f) => hasValue(f.value) && !isNumeric(f.value) && ORG_FIELD.test(f.name))) return 0.9;
    return mentionsOrganisation(piece.text) ? 0.8 : 0;
  },
  location: (piece, fields) => {
    if (fields.some((f) => hasValue(f.value) && !isNumeric(f.value) && PLACE_FIELD.test(f.name))) return 1;
    return mentionsCategory(piece.text, "place") ? 0.8 : 0;
  },
  boolean: (piece, fields) => {
    if (fields.some((f) => typeof f.value === "boolean")) return 1;
    // Any fact about the question's subject can confirm or deny it; none says so by its form.
    return 0.3;
  },
  // Named things: graph and RDF facts are about entities by construction; rows and text when they name some.
  entity: (piece) => (piece.kind === "triple" || piece.kind === "path" ? 0.8 : piece.entities.length ? 0.6 : 0.2),
  text: (piece) => (piece.kind === "passage" ? 0.8 : 0.4),
  // A list comes as many rows, triples or paths; a passage may enumerate one.
  list: (piece) => (piece.kind === "passage" ? 0.5 : 0.7),
};

/** The answer types to check: the intent's, plus what its aggregate implies ("how many" → count). */
export function expectedTypes(intent: Intent): AnswerType[] {
  const types = new Set<AnswerType>(intent.answerTypes);
  if (intent.aggregate === "count") types.add("count");
  else if (intent.aggregate) types.add("number");
  return [...types];
}

export function answerTypeFit(intent: Intent, pieces: EvidencePiece[]): number[] {
  const types = expectedTypes(intent);
  if (!types.length) return pieces.map(() => 0);
  const unit = answerFormOf(intent).unit;
  return pieces.map((piece) => {
    const fields = fieldsOf(piece);
    return Math.max(...types.map((t) => FITS[t](piece, fields, unit)));
  });
}

export const answerTypeScorer: EvidenceScorer = {
  name: "answer-type",
  async score(intent, pieces) {
    return answerTypeFit(intent, pieces);
  },
};
