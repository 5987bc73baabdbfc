import { formatScalar } from "../../../backends/evidence";
import { type EvidencePiece, type PassageData, type RowData, provenanceQueryText } from "../../../backends/types";
import type { Occurrence } from "./occurrence";
import { terms } from "../../text";
import {
  type QuestionFocus,
  isQuestionEntityValue,
  matchesQuestionEntity,
  queryNamesEntity,
  focusMatches,
  termSet,
} from "./question-focus";
import { displayCell, valueKey } from "./value-key";
import { countOfOtherNoun } from "../../units";
import { classifyValue, hintFromLabel, isAggregateColumn, isIdColumn, isNameColumn, typeFit } from "./value-types";

/** Cells scoring at least this share of the row's best cell stay candidates (a row answers one thing, maybe two). */
const KEEP_SHARE = 0.75;
const MAX_CELLS_PER_ROW = 3;
/** A row that neither names a question entity nor came from a query filtered on one is weaker evidence. */
const UNANCHORED_FACTOR = 0.7;
/** A row that mentions nothing the question is about besides the column asked (rowAboutQuestion) is weaker still. */
const OFF_SUBJECT_FACTOR = 0.4;

export function isRowPiece(piece: EvidencePiece): piece is EvidencePiece & { data: RowData } {
  return piece.kind === "row" && "columns" in piece.data;
}

/**
 * Whether a row is about the question's entities: a cell or its section (a node's caption) names one,
 * its key is a linked reference, or the query that produced it filtered on one. True when the question
 * names no entity (nothing to anchor on).
 */
export function rowAnchored(piece: EvidencePiece & { data: RowData }, focus: QuestionFocus): boolean {
  if (focus.entities.length === 0) return true;
  const { data } = piece;
  const texts = [...data.values.filter((v) => typeof v === "string").map((v) => String(v)), ...(data.section ? [data.section] : [])];
  const keyRefs = data.key ? Object.values(data.key).map(String) : [];
  if (texts.some((t) => matchesQuestionEntity(t, focus, keyRefs))) return true;
  // Only a structured query filters on what it names; a search text names the entity for every hit.
  if (piece.provenance.language === "search") return false;
  const query = provenanceQueryText(piece.provenance);
  return focus.entities.some((e) => queryNamesEntity(query, e));
}

/**
 * Whether a row shares any word the question is about, beyond the column it asks for: "In which city
 * is the returns warehouse?" is about returns and a warehouse, which a customers row (its table, its
 * headers, its cells) never mentions, however well its city column fits. True when the question
 * names an entity (rowAnchored decides then) or nothing besides the asked column.
 */
export function rowAboutQuestion(data: RowData, focus: QuestionFocus, askedColumns: string[], documentTitle = ""): boolean {
  if (focus.entities.length > 0) return true;
  const subject = subjectTerms(focus, askedColumns);
  if (subject.length === 0) return true;
  const own = rowWords(data, documentTitle, focus.language);
  return subject.some((t) => own.has(t));
}

/** The question's content words besides the asked column's and the answer's class ("city" of "in which city"). */
export function subjectTerms(focus: QuestionFocus, askedColumns: string[]): string[] {
  const asked = new Set([
    ...askedColumns.flatMap((c) => terms(c, focus.language)),
    ...[...focus.answerClasses].flatMap((c) => terms(c, focus.language)),
  ]);
  return [...focus.questionTerms].filter((t) => !asked.has(t) && !/^\d+$/.test(t));
}

/** The words a row speaks with: its table's caption and section, its document's title, its headers and its cells. */
export function rowWords(data: RowData, documentTitle: string, language: string): Set<string> {
  return termSet(
    [documentTitle, data.table, data.section ?? "", ...data.columns, ...data.values.map((v) => formatScalar(v))]
      .join(" ")
      .replace(/[_/]+/g, " "),
    language,
  );
}

/** The titles of the documents the evidence's passages come from, by KB and document: the context of a document table's rows. */
export function documentTitles(pieces: EvidencePiece[]): Map<string, string> {
  const titles = new Map<string, string>();
  for (const p of pieces) {
    const title = p.kind === "passage" ? (p.data as PassageData).documentTitle : undefined;
    const doc = p.provenance.location.document;
    if (title && doc !== undefined && doc !== null) titles.set(`${p.provenance.kb}\u0000${String(doc)}`, title);
  }
  return titles;
}

/** The title of the document a piece sits in, when a passage of it is in the evidence. */
export function documentTitleOf(piece: EvidencePiece, titles: Map<string, string>): string {
  const doc = piece.provenance.location.document;
  return doc === undefined || doc === null ? "" : (titles.get(`${piece.provenance.kb}\u0000${String(doc)}`) ?? "");
}

/** The question names a relation and no column of the row does: the row is about the entity, not the thing asked (as triples do). */
const UNMATCHED_RELATION = 0.4;

interface CellScore {
  relationMatches: number;
  column: string;
  display: string;
  type: ReturnType<typeof classifyValue>;
  score: number;
}

/**
 * How much a cell looks like the answer: its column is an aggregate when one was asked (COUNT for
 * "how many"), its column's words are the relation asked about ("Return window (days)" for "return
 * window"), and its column is a name column for who/which questions; all scaled by the answer-type fit,
 * so a column that matches the words but holds the wrong kind of value (the price column of "which
 * product has the highest price?") does not beat the names.
 */
function scoreCell(column: string, display: string, type: CellScore["type"], focus: QuestionFocus, relationMatches: number): number {
  const aggregate = focus.wantsAggregate && isAggregateColumn(column) ? 1 : 0;
  const name = focus.asksForName && isNameColumn(column) ? 1 : 0;
  return typeFit(focus.wanted, type, display) * (1 + 2 * aggregate + 1.5 * Math.min(relationMatches, 2) + 0.5 * name);
}

/**
 * Candidates from a table row (SQL rows, document table rows, SPARQL/Cypher "Query result" rows, graph
 * nodes as rows). Cells that repeat a question entity are skipped (they are what the question names, not
 * what it asks), identifier columns are skipped unless the question asks for an id, and only the cells that best match
 * the question survive. A one-cell row (an aggregate result) is its own answer. `rowFactor` scales the
 * row (superlative ordering, see superlative.ts).
 */
export function rowOccurrences(
  piece: EvidencePiece & { data: RowData },
  pieceIndex: number,
  focus: QuestionFocus,
  rowFactor = 1,
  documentTitle = "",
): Occurrence[] {
  const { data } = piece;
  const cells: CellScore[] = [];
  data.columns.forEach((column, i) => {
    const value = data.values[i];
    const text = formatScalar(value);
    if (text === "" || isQuestionEntityValue(text, focus)) return;
    // "customer_id" shares "customer" with "how many customers": only a question about ids makes keys answers.
    if (isIdColumn(column) && !focus.asksForId) return;
    // A count of another noun ("number of organisation" for "how many employees") does not answer the count asked.
    if (isAggregateColumn(column) && countOfOtherNoun(column, focus.expectedUnit)) return;
    const type = classifyValue(value, hintFromLabel(column), focus.wantsNameKind);
    const display = displayCell(value, column, type);
    const relationMatches = focusMatches(column, focus);
    cells.push({ column, display, type, relationMatches, score: scoreCell(column, display, type, focus, relationMatches) });
  });
  if (cells.length === 0) return [];
  const best = Math.max(...cells.map((c) => c.score));
  const askedColumns = cells.filter((c) => c.relationMatches > 0).map((c) => c.column);
  const offSubject = !rowAboutQuestion(data, focus, askedColumns, documentTitle);
  const anchor = offSubject ? OFF_SUBJECT_FACTOR : rowAnchored(piece, focus) ? 1 : UNANCHORED_FACTOR;
  // Only a row none of whose columns (nor the table) names the relation: a counted or aggregated row
  // answers through its aggregate column, and "the Tents row" of a return-window table names it.
  const relationNamed =
    focus.focusTerms.size === 0 ||
    data.columns.length === 1 ||
    cells.some((c) => c.relationMatches > 0) ||
    focusMatches(data.table, focus) > 0;
  const relationFactor = relationNamed ? 1 : UNMATCHED_RELATION;
  const single = cells.length === 1;
  // A cell's weight blends its rank inside the row with how well it matches in absolute terms: the best
  // cell of a row that holds nothing asked about (the segment of a customer, for "who founded it?") is
  // only half-trusted. The yardstick is a fitting value in a column named by the question.
  const yardstick = 1 + (focus.focusTerms.size > 0 ? 1.5 : 0);
  const weightOf = (score: number) => (single || best <= 0 ? 1 : (score / best + Math.min(1, score / yardstick)) / 2);
  return cells
    .filter((c) => single || c.score >= KEEP_SHARE * best)
    .sort((a, b) => b.score - a.score)
    .slice(0, MAX_CELLS_PER_ROW)
    .map((c) => ({
      display: c.display,
      key: valueKey(c.display, c.type),
      type: c.type,
      pieceIndex,
      weight: weightOf(c.score) * anchor * rowFactor * relationFactor,
      slot: [piece.provenance.kb, piece.provenance.query, data.table, c.column].join("|"),
      ...(offSubject ? { offSubject } : {}),
    }));
}
