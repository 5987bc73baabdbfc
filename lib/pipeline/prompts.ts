import type { Intent } from "./contracts";
import { dataRule } from "../llm/quote";

/**
 * Pieces every stage's prompt (stages/<stage>/prompt.ts) shares. Each system prompt names its task as
 * "(task: <kind>)" on the first line: the trace and the test server read it, and it costs a few tokens.
 */
export function systemPrompt(task: string, role: string, body: string[], nonce: string): string {
  return [`${role} (task: ${task})`, "", ...body, "", dataRule(nonce)].join("\n");
}

/**
 * The parts of the intent a model needs, without the bookkeeping (spans, scores, keywords). Entity
 * matches name their KB by `kbLabel` (the prompt's short ids), or are limited to `onlyKb`.
 */
export function intentSummary(intent: Intent, options: { onlyKb?: string; kbLabel?: (kbId: string) => string | undefined } = {}) {
  return {
    question: intent.completed,
    answerTypes: intent.answerTypes,
    relation: intent.relation,
    entities: intent.entities.map((e) => ({
      mention: e.mention,
      ...(e.fromContext ? { fromEarlierTurn: true } : {}),
      matches: e.links
        .filter((l) => (options.onlyKb ? l.kbId === options.onlyKb : !options.kbLabel || options.kbLabel(l.kbId)))
        .slice(0, 3)
        .map((l) => ({
          label: l.label,
          kind: l.kind,
          ref: l.ref,
          ...(l.sourceObject ? { sourceObject: l.sourceObject } : {}),
          ...(options.kbLabel ? { kb: options.kbLabel(l.kbId) } : {}),
        })),
    })),
    time: intent.time.map((t) => ({ text: t.text, ...(t.start ? { from: t.start } : {}), ...(t.end ? { until: t.end } : {}) })),
    locations: intent.locations,
    aggregate: intent.aggregate,
    superlative: intent.superlative,
  };
}

export const OUTPUT_HEADING = "Output, as JSON:";

const KIND_WORDS: Record<string, string> = {
  DOCUMENTS: "document collection (full-text search)",
  SQL: "SQL database",
  SPARQL: "RDF graph (SPARQL)",
  CYPHER: "property graph (Cypher)",
};

/** A knowledge base's kind as the model reads it. */
export function kindWords(kind: string): string {
  return KIND_WORDS[kind] ?? kind;
}
