import { QueryRejectedError, QuerySyntaxError } from "../../../backends/errors";
import { LANGUAGE_OF, type KbStructure, type NativeQuery } from "../../../backends/types";
import { renderExpression } from "../../../catalog/table-notes";
import { LlmError } from "../../../llm/errors";
import { type FormulatePromptInput, formulatePrompt, passagePrompt } from "./prompt";
import { clip } from "../../../llm/quote";
import type { LlmSession } from "../../../llm/session";
import { type StageContext, type StageStrategy, RunCancelledError } from "../../stage";
import { isStopword, words } from "../../text";
import type { Candidate, ExecutedQuery, FormulatedQuery, Intent } from "../../contracts";
import { type CheckedQuery, type GeneratedLanguage, checkGeneratedQuery } from "./llm-safety";
import { DEFAULT_MAX_QUERIES_PER_CANDIDATE, type FormulateInput, formulateCandidate } from "./strategy";

/**
 * The LLM formulate strategy (OmniRetrieval's per-candidate native query): text-to-SQL, -SPARQL or
 * -Cypher conditioned on the candidate's descriptor c_b and the nearest guides' question/query pairs as
 * demonstrations; for a document collection, the verbatim question followed by a hypothetical passage
 * (not for a short keyword query, which is searched as typed). The generated query leads; the
 * classical queries for the same candidate follow it within the per-candidate limit, so a wrong
 * generation never leaves a source without a proven query.
 *
 * Every generated query passes the backend's safety checks before it is returned (llm-safety.ts). An
 * unsafe one is refused and recorded, never retried. One that does not parse is rewritten once with the
 * parser's message; one that fails when it runs is rewritten once with the engine's message
 * (repairFailed, called by the execute step), so each generated query gets at most one repair.
 */

export interface GeneratedQuery {
  kbId: string;
  language: GeneratedLanguage;
  prompt: FormulatePromptInput;
  /** Already rewritten once: no second repair. */
  repaired: boolean;
}

export interface RefusedQuery {
  kbId: string;
  kbName: string;
  language: GeneratedLanguage;
  query: string;
  reason: string;
}

export interface LlmFormulateOptions {
  /** The KB's descriptor c_b (full form): what the model writes the query against. */
  descriptorOf(kbId: string): Promise<string | null>;
  /** Rows asked for in LIMIT (the executor caps them anyway). */
  maxRows?: number;
}

const STRATEGY_OF: Record<GeneratedLanguage, FormulatedQuery["strategy"]> = {
  sql: "schema-linking",
  sparql: "sparql-pattern",
  cypher: "neighborhood",
};
const LANGUAGE_NAMES: Record<GeneratedLanguage, string> = { sql: "SQL", sparql: "SPARQL", cypher: "Cypher" };
/** At most this many demonstrations per prompt: the nearest guides. */
const MAX_EXAMPLES = 3;
/** A question of at most this many content words, without a question word or mark, is a keyword query. */
const KEYWORD_QUERY_WORDS = 4;
const MAX_PASSAGE_CHARS = 800;

const keyOf = (kbId: string, text: string) => `${kbId}\u0000${text}`;

/** "returns policy Oslo": searched as typed; a hypothetical passage would only dilute it. */
export function isKeywordQuery(intent: Intent): boolean {
  const text = intent.completed.trim();
  if (intent.wh || /\?\s*$/.test(text)) return false;
  const content = words(text).filter((w) => !isStopword(w, intent.language || "en"));
  return content.length > 0 && content.length <= KEYWORD_QUERY_WORDS;
}

/**
 * The analysts' notes on a relational KB's tables (table-notes.ts) as descriptor lines: measures with the
 * expression to write in their place, and the words the business uses for columns. "" when there are none.
 */
export function describeNotes(structure: KbStructure | null): string {
  if (structure?.kind !== "sql") return "";
  const lines: string[] = [];
  for (const t of structure.tables) {
    for (const c of t.columns) {
      const also = c.synonyms?.length ? ` (also called ${c.synonyms.join(", ")})` : "";
      const meaning = c.description ? `: ${c.description}` : "";
      if (c.measure) {
        const expression = renderExpression(c.measure.parts, (name) => `${t.name}.${name}`);
        lines.push(`  measure "${c.name}"${also} = ${c.measure.aggregate.toUpperCase()}(${expression})${meaning}`);
      } else if (also || meaning) lines.push(`  ${t.name}.${c.name}${also}${meaning}`);
    }
  }
  return lines.length ? `Analysts' notes (a measure is no column: write its expression):\n${lines.join("\n")}` : "";
}

/** A readable descriptor from the structure, for a KB whose stored descriptor is missing. */
export function describeStructure(structure: KbStructure | null): string {
  if (!structure) return "";
  switch (structure.kind) {
    case "sql":
      return structure.tables
        .map((t) => {
          // Measures are no column (describeNotes says how to write them).
          const cols = t.columns
            .filter((c) => !c.measure)
            .map(
              (c) =>
                `  ${c.name} ${c.type}${
                  c.examples.length
                    ? ` -- e.g. ${c.examples
                        .slice(0, 3)
                        .map((e) => JSON.stringify(e))
                        .join(", ")}`
                    : ""
                }`,
            );
          const fks = t.foreignKeys.map(
            (f) => `  FOREIGN KEY (${f.columns.join(", ")}) REFERENCES ${f.refTable}(${f.refColumns.join(", ")})`,
          );
          return `CREATE TABLE ${t.name} (\n${[...cols, ...fks].join(",\n")}\n);`;
        })
        .join("\n");
    case "rdf":
      return [
        ...Object.entries(structure.prefixes).map(([p, iri]) => `PREFIX ${p}: <${iri}>`),
        "Classes:",
        ...structure.classes.map((c) => `  <${c.iri}> "${c.label}" (${c.instances})`),
        "Predicates:",
        ...structure.predicates.map((p) => `  <${p.iri}> "${p.label}"${p.literal ? " (literal)" : ""}`),
        `Label predicates: ${structure.labelPredicates.join(", ")}`,
      ].join("\n");
    case "graph":
      return [
        "Node labels:",
        ...structure.labels.map((l) => `  (:${l.label} {${l.properties.map((p) => p.name).join(", ")}})`),
        "Relationships:",
        ...structure.patterns.map((p) => `  (:${p.from})-[:${p.type}]->(:${p.to})`),
      ].join("\n");
    case "documents":
      return `${structure.documents} documents; tables: ${structure.tables.map((t) => t.caption).join("; ")}`;
  }
}

function languageOf(candidate: Candidate): GeneratedLanguage | null {
  const lang = LANGUAGE_OF[candidate.kind];
  return lang === "search" ? null : lang;
}

export class LlmFormulate implements StageStrategy<FormulateInput, FormulatedQuery[]> {
  readonly name = "llm";
  /** Generated queries of this run by KB and text: the execute step repairs them from here. */
  private readonly generated = new Map<string, GeneratedQuery>();
  readonly refused: RefusedQuery[] = [];

  constructor(
    private readonly session: LlmSession,
    private readonly options: LlmFormulateOptions,
  ) {}

  async run(input: FormulateInput, ctx: StageContext): Promise<FormulatedQuery[]> {
    if (ctx.signal.aborted) throw new RunCancelledError();
    const max = Math.max(1, Math.floor(input.maxQueriesPerCandidate ?? DEFAULT_MAX_QUERIES_PER_CANDIDATE));
    const settled = await Promise.all(
      input.candidates.map((c) =>
        this.forCandidate(input, c, ctx).then(
          (query) => ({ candidate: c, query, error: null as unknown }),
          (error: unknown) => ({ candidate: c, query: null, error }),
        ),
      ),
    );
    const cancelled = settled.find((s) => s.error && !(s.error instanceof LlmError));
    if (cancelled && ctx.signal.aborted) throw cancelled.error;

    const out: FormulatedQuery[] = [];
    let generatedAny = false;
    let firstError: LlmError | null = null;
    for (const { candidate, query, error } of settled) {
      const classical = await formulateCandidate(input, candidate);
      for (const note of classical.notes) ctx.trace({ stage: "formulate", type: "INFO", strategy: "classical", summary: note });
      if (query) {
        generatedAny = true;
        const rest = classical.queries.filter(
          (q) => q.query.text !== query.query.text || JSON.stringify(q.query.filters ?? {}) !== JSON.stringify(query.query.filters ?? {}),
        );
        out.push(query, ...rest.slice(0, max - 1));
        continue;
      }
      const why = error instanceof LlmError ? error.message : error instanceof Error ? error.message : String(error);
      if (error instanceof LlmError) firstError ??= error;
      else if (error) throw error;
      ctx.trace({
        stage: "formulate",
        type: "INFO",
        strategy: "llm",
        summary: `${candidate.kbName}: no generated query (${why}); its classical queries run instead`,
      });
      if (classical.queries.length === 0)
        ctx.trace({
          stage: "formulate",
          type: "INFO",
          strategy: "classical",
          summary: `${candidate.kbName}: no query could be formulated`,
        });
      out.push(...classical.queries.slice(0, max));
    }
    // No candidate got a generated query because the model failed: the whole stage is a fallback.
    if (!generatedAny && firstError) throw firstError;
    return out;
  }

  /** The generated query for one candidate, checked; throws LlmError when there is none to run. */
  private async forCandidate(input: FormulateInput, candidate: Candidate, ctx: StageContext): Promise<FormulatedQuery> {
    const language = languageOf(candidate);
    if (!language) return this.searchQuery(input.intent, candidate, ctx);
    const structure = input.structures.get(candidate.kbId) ?? null;
    const stored = (await this.options.descriptorOf(candidate.kbId)) || describeStructure(structure);
    const notes = describeNotes(structure);
    const descriptor = notes ? `${stored}\n${notes}` : stored;
    const prompt: FormulatePromptInput = {
      language,
      dialect: structure?.kind === "sql" ? structure.dialect : undefined,
      intent: input.intent,
      kbId: candidate.kbId,
      kbName: candidate.kbName,
      descriptor,
      sourceObjects: candidate.sourceObjects,
      examples: input.guides
        .filter((g) => g.kbId === candidate.kbId && g.query.language === language)
        .sort((a, b) => b.score - a.score)
        .slice(0, MAX_EXAMPLES)
        .map((g) => ({ question: g.question, query: g.query.text })),
      feedback: input.feedback ?? null,
      maxRows: this.options.maxRows ?? 50,
    };
    const first = await this.session.call("formulate", ctx, formulatePrompt(prompt));
    let checked = await this.check(language, first.query, candidate, structure, ctx);
    let explanation = first.explanation;
    let repaired = false;
    if (checked instanceof QuerySyntaxError) {
      ctx.trace({
        stage: "formulate",
        type: "INFO",
        strategy: "llm",
        summary: `${candidate.kbName}: the generated ${LANGUAGE_NAMES[language]} does not parse (${checked.message}); asking the model once more with the error`,
        payload: { query: first.query, error: checked.message },
      });
      const second = await this.session.call(
        "formulate",
        ctx,
        formulatePrompt({ ...prompt, failed: { query: first.query, error: checked.message } }),
      );
      checked = await this.check(language, second.query, candidate, structure, ctx);
      explanation = second.explanation;
      repaired = true;
      if (checked instanceof QuerySyntaxError)
        throw new LlmError("invalid_output", `the rewritten ${LANGUAGE_NAMES[language]} still does not parse: ${checked.message}`);
    }
    if (checked instanceof QueryRejectedError)
      throw new LlmError("refused", `the generated ${LANGUAGE_NAMES[language]} was refused by the safety checks (${checked.reason})`);
    const query: FormulatedQuery = {
      kbId: candidate.kbId,
      kbName: candidate.kbName,
      kind: candidate.kind,
      query: { language, text: checked.text },
      strategy: STRATEGY_OF[language],
      sourceObject: checked.table && candidate.sourceObjects.includes(checked.table) ? checked.table : null,
      explanation: `Written by the model (${this.session.model("formulate")})${repaired ? " after a parse error" : ""}: ${clip(explanation, 300)}`,
    };
    this.generated.set(keyOf(candidate.kbId, checked.text), { kbId: candidate.kbId, language, prompt, repaired });
    return query;
  }

  /** The checked query, or the checker's error (refusals are recorded here). */
  private async check(
    language: GeneratedLanguage,
    text: string,
    candidate: Candidate,
    structure: KbStructure | null,
    ctx: StageContext,
  ): Promise<CheckedQuery | QueryRejectedError | QuerySyntaxError> {
    try {
      return await checkGeneratedQuery(language, text, { dialect: structure?.kind === "sql" ? structure.dialect : "sqlite" });
    } catch (e) {
      if (e instanceof QueryRejectedError) {
        const refused: RefusedQuery = { kbId: candidate.kbId, kbName: candidate.kbName, language, query: text, reason: e.reason };
        this.refused.push(refused);
        ctx.trace({
          stage: "formulate",
          type: "INFO",
          strategy: "llm",
          summary: `${candidate.kbName}: refused the generated ${LANGUAGE_NAMES[language]}: ${e.reason}`,
          payload: { refused },
        });
        return e;
      }
      if (e instanceof QuerySyntaxError) return e;
      return new QuerySyntaxError(e instanceof Error ? e.message : String(e), text);
    }
  }

  private async searchQuery(intent: Intent, candidate: Candidate, ctx: StageContext): Promise<FormulatedQuery> {
    const base = { kbId: candidate.kbId, kbName: candidate.kbName, kind: candidate.kind, strategy: "search" as const, sourceObject: null };
    if (isKeywordQuery(intent)) {
      return {
        ...base,
        query: { language: "search", text: intent.completed },
        explanation: "Search with the question as typed (a short keyword query gets no hypothetical passage).",
      };
    }
    const descriptor = (await this.options.descriptorOf(candidate.kbId)) ?? "";
    const out = await this.session.call("formulate", ctx, passagePrompt({ intent, kbName: candidate.kbName, descriptor }));
    const passage = clip(out.passage, MAX_PASSAGE_CHARS);
    const text = passage ? `${intent.completed} ${passage}` : intent.completed;
    return {
      ...base,
      query: { language: "search", text },
      explanation: `Search: the question followed by a hypothetical passage written by the model (${this.session.model("formulate")}).`,
    };
  }

  /** Whether this executed query was generated by the model in this run, and can still be repaired. */
  repairable(q: ExecutedQuery): GeneratedQuery | null {
    const g = this.generated.get(keyOf(q.kbId, q.query.text));
    if (!g || g.repaired) return null;
    if (q.status === "error") return g;
    // A syntax error found by the engine (QuerySyntaxError) is repairable; a safety refusal is not.
    if (q.status === "refused" && q.error && !/^Query refused:/.test(q.error)) return g;
    return null;
  }

  /**
   * A generated query that failed when it ran, rewritten once with the engine's error message and
   * checked again. Null when the rewrite is refused or unreadable (recorded in the trace).
   */
  async repair(q: ExecutedQuery, ctx: StageContext): Promise<FormulatedQuery | null> {
    const g = this.repairable(q);
    if (!g) return null;
    g.repaired = true;
    const error = clip(q.error ?? q.status, 1_000);
    ctx.trace({
      stage: "execute",
      type: "INFO",
      strategy: "llm",
      summary: `${q.kbName}: the generated ${LANGUAGE_NAMES[g.language]} failed (${error}); asking the model once more with the error`,
      payload: { query: q.query.text, error },
    });
    const out = await this.session.call("formulate", ctx, formulatePrompt({ ...g.prompt, failed: { query: q.query.text, error } }));
    let checked: CheckedQuery;
    try {
      checked = await checkGeneratedQuery(g.language, out.query, { dialect: g.prompt.dialect === "postgres" ? "postgres" : "sqlite" });
    } catch (e) {
      const reason = e instanceof QueryRejectedError ? `refused: ${e.reason}` : e instanceof Error ? e.message : String(e);
      if (e instanceof QueryRejectedError)
        this.refused.push({ kbId: q.kbId, kbName: q.kbName, language: g.language, query: out.query, reason: e.reason });
      ctx.trace({
        stage: "execute",
        type: "INFO",
        strategy: "llm",
        summary: `${q.kbName}: the rewritten query cannot run (${reason})`,
        payload: { query: out.query },
      });
      return null;
    }
    const query: NativeQuery = { language: g.language, text: checked.text };
    this.generated.set(keyOf(q.kbId, checked.text), { ...g, repaired: true });
    return {
      kbId: q.kbId,
      kbName: q.kbName,
      kind: q.kind,
      query,
      strategy: q.strategy,
      sourceObject: q.sourceObject,
      explanation: `Rewritten by the model after the error "${clip(error, 160)}": ${clip(out.explanation, 240)}`,
    };
  }
}
