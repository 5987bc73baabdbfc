import type { ExecutedQuery } from "../../contracts";
import { count } from "../../../format/count";
import { queryOutcomeInWords, strategyInWords } from "../../strategy-words";
import type { EvidencePiece } from "../../../backends/types";
import { type ValueType, columnValueType, connectsToEntityOf, pieceMentionsEntity, typeFit } from "../answer/classical";
import { type RoundAnalysis, isProductive } from "./analysis";
import { constructChecks } from "./construct-checks";
import type { Check } from "./types";

/** The validator's check names, in the order they are reported. */
export const CHECKS = {
  answerType: "answer type fits",
  entitiesCited: "question entities in the cited evidence",
  queriesReturned: "queries returned rows",
  connection: "path from the question's entities to the answer",
  notRefused: "answer is not a refusal",
} as const;

/** A fit at least this good counts as the asked-for type (value-types.ts: 0.7 = plausible, ≤ 0.4 = another kind). */
const TYPE_FIT_PASS = 0.5;

function quote(values: string[]): string {
  return values.map((v) => `'${v}'`).join(", ");
}

export function checkAnswerType(a: RoundAnalysis): Check {
  const name = CHECKS.answerType;
  if (a.value === null) return { name, passed: false, detail: "No answer to type-check: the answer refrained." };
  const wanted = a.focus.wanted;
  if (wanted.length === 0) return { name, passed: true, detail: "The question asks for no particular type of answer." };
  const type = (a.valueType ?? "entity") as ValueType;
  const fit = typeFit(wanted, type, a.value);
  if (fit < TYPE_FIT_PASS) {
    // A table answer shows every column: "name: count" rows answer a which-question by their names.
    const column = tableColumnOfType(a, wanted);
    if (column) {
      return {
        name,
        passed: true,
        detail: `'${a.value}' reads as ${type}, and its column '${column.label}' holds ${column.type}; the question asks for ${wanted.join(" or ")}.`,
      };
    }
  }
  const passed = fit >= TYPE_FIT_PASS;
  return {
    name,
    passed,
    detail: `'${a.value}' reads as ${type}; the question asks for ${wanted.join(" or ")}${passed ? "." : ": a different kind of value."}`,
  };
}

/** The first column of a several-column answer whose values are of an asked-for type, read as any candidate is. */
function tableColumnOfType(a: RoundAnalysis, wanted: RoundAnalysis["focus"]["wanted"]): { label: string; type: ValueType } | null {
  const shape = a.input.answer.shape;
  if (!shape || shape.kind !== "table" || shape.columns.length < 2) return null;
  for (const [at, label] of shape.columns.entries()) {
    const read = columnValueType(
      label,
      shape.rows.map((r) => r[at]),
    );
    if (read && typeFit(wanted, read.type, String(read.cell)) >= TYPE_FIT_PASS) return { label, type: read.type };
  }
  return null;
}

export function checkEntitiesCited(a: RoundAnalysis): Check {
  const name = CHECKS.entitiesCited;
  const linked = a.entities.filter((e) => e.entity.linked);
  if (linked.length === 0) return { name, passed: true, detail: "The question names no linked entity to look for." };
  if (a.cited.length === 0)
    return {
      name,
      passed: false,
      detail: `Nothing is cited, so ${quote(linked.map((e) => e.entity.mention))} appear in no cited evidence.`,
    };
  const missing = linked.filter((e) => !e.inCited).map((e) => e.entity.mention);
  if (missing.length === 0)
    return { name, passed: true, detail: `${quote(linked.map((e) => e.entity.mention))} appear in the cited evidence.` };
  return { name, passed: false, detail: `${quote(missing)} appear in none of the ${a.cited.length} cited pieces.` };
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function describeQuery(q: ExecutedQuery): string {
  return `the ${strategyInWords(q.strategy)} on ${q.kbName} ${queryOutcomeInWords(q)}${q.error ? ` (${q.error})` : ""}`;
}

/** Passes when at least one query returned rows; names every query that did not, and why. */
export function checkQueriesReturned(a: RoundAnalysis): Check {
  const name = CHECKS.queriesReturned;
  const executed = a.input.executed;
  if (executed.length === 0) return { name, passed: false, detail: "No query was run." };
  const productive = executed.filter(isProductive);
  const truncated = productive.filter((q) => q.truncated).map((q) => q.kbName);
  const parts = [`${productive.length} of ${count(executed.length, "query", "queries")} returned rows`];
  if (a.unproductive.length > 0) parts.push(capitalized(a.unproductive.map(describeQuery).join("; ")));
  if (truncated.length > 0) parts.push(`results cut at the row limit: ${[...new Set(truncated)].join(", ")}`);
  return { name, passed: productive.length > 0, detail: `${parts.join(". ")}.` };
}

/**
 * The answer must connect, in some cited piece that supports it, to every linked question entity (an
 * intersection question needs all of them: a movie of Tom Hanks is not a movie of Tom Hanks and Meg
 * Ryan), or to one of them when none is linked.
 */
export function checkConnection(a: RoundAnalysis): Check {
  const name = CHECKS.connection;
  if (a.value === null) return { name, passed: false, detail: "No answer to connect: the answer refrained." };
  if (a.focus.entities.length === 0) return { name, passed: true, detail: "The question names no entity to connect the answer to." };
  const value = a.value;
  const linked = a.focus.entities.map((e, i) => ({ e, i })).filter(({ e }) => e.linked);
  const required = linked.length > 0 ? linked : a.focus.entities.map((e, i) => ({ e, i }));
  const anyOf = linked.length === 0;
  const links = required.map(({ e, i }) => ({
    mention: e.mention,
    piece: a.supporting.find((p) => connectsToEntityOf(p, value, a.focus, i, true)) ?? viaBridge(a, value, i),
  }));
  const connected = links.filter((l) => l.piece);
  const passed = anyOf ? connected.length > 0 : connected.length === links.length;
  if (passed) {
    const via = connected.map((l) => `'${l.mention}'`).join(", ");
    const piece = connected[0].piece!;
    return { name, passed, detail: `'${value}' is connected to ${via} in ${piece.id} (${piece.kind}).` };
  }
  const missing = links.filter((l) => !l.piece).map((l) => l.mention);
  return { name, passed, detail: `No cited piece connects '${value}' to ${quote(missing)}.` };
}

/**
 * The two-source path: a cited fact leads from entity `i` to a bridge entity, and a supporting piece
 * connects the bridge to the answer (Fjelltex Textiles -located in-> Oslo; the Oslo row holds 210 EUR).
 */
function viaBridge(a: RoundAnalysis, value: string, i: number): EvidencePiece | undefined {
  const entity = a.focus.entities[i];
  for (const b of a.bridges) {
    const fact = a.pieces[b.via];
    if (!fact || !a.cited.includes(fact) || !pieceMentionsEntity(fact, entity, a.focus.language)) continue;
    const bridged = { ...a.focus, entities: [b.entity] };
    const row = a.supporting.find((p) => p !== fact && connectsToEntityOf(p, value, bridged, 0, true));
    if (row) return row;
  }
  return undefined;
}

export function checkNotRefused(a: RoundAnalysis): Check {
  const answer = a.input.answer;
  return answer.refrained
    ? { name: CHECKS.notRefused, passed: false, detail: `Refrained: ${answer.reason ?? "no reason given"}` }
    : { name: CHECKS.notRefused, passed: true, detail: `Answered with confidence ${answer.confidence.toFixed(2)}.` };
}

/** HybGRAG's validator: every check, in a fixed order; the construct checks last (construct-checks.ts). */
export function validate(a: RoundAnalysis): Check[] {
  return [
    checkAnswerType(a),
    checkEntitiesCited(a),
    checkQueriesReturned(a),
    checkConnection(a),
    checkNotRefused(a),
    ...constructChecks(a),
  ];
}
