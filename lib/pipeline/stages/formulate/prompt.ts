import { z } from "zod";
import type { Feedback, Intent } from "../../contracts";
import { clip, dataQuoter } from "../../../llm/quote";
import { OUTPUT_HEADING, intentSummary, systemPrompt } from "../../prompts";

export const queryOutputSchema = z.object({ query: z.string(), explanation: z.string() });
export type QueryOutput = z.infer<typeof queryOutputSchema>;

export const passageOutputSchema = z.object({ passage: z.string() });
export type PassageOutput = z.infer<typeof passageOutputSchema>;

export type QueryLanguageForPrompt = "sql" | "sparql" | "cypher";

export interface FormulatePromptInput {
  language: QueryLanguageForPrompt;
  /** sqlite / postgres for SQL. */
  dialect?: string;
  intent: Intent;
  kbId: string;
  kbName: string;
  /** The KB's descriptor c_b. */
  descriptor: string;
  /** Source objects source selection matched. */
  sourceObjects: string[];
  /** Nearest guides' question/query pairs on this KB (demonstrations). */
  examples: { question: string; query: string }[];
  feedback: Feedback | null;
  /** A failed earlier attempt and its error: the repair prompt. */
  failed?: { query: string; error: string };
  maxRows: number;
}

/** Descriptors are bounded by the backends already; this keeps one runaway KB from filling the prompt. */
const MAX_DESCRIPTOR_CHARS = 24_000;

function rules(input: FormulatePromptInput): string[] {
  const limit = `Add LIMIT ${input.maxRows} unless the query aggregates to a few rows.`;
  switch (input.language) {
    case "sql":
      return [
        `Write one read-only SQL query in the ${input.dialect ?? "standard"} dialect that retrieves the answer to the question from the database described below.`,
        "- Use only the tables and columns of the descriptor; join along the foreign keys it lists. Quote identifiers with double quotes when they contain spaces or capitals.",
        "- Exactly one SELECT statement (WITH … SELECT is fine). INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, ATTACH, PRAGMA, COPY, several statements, or functions with side effects are refused.",
        "- Return what a reader needs to check the answer: the asked value and the names that identify each row (not only ids). Alias computed columns with words, e.g. COUNT(*) AS number_of_orders.",
        "- Compare with values as stored (the descriptor shows examples); when unsure of case, compare LOWER(column) with a lower-case value.",
        `- ${limit}`,
      ];
    case "sparql":
      return [
        "Write one SPARQL 1.1 query (SELECT, or ASK for a yes/no question) that retrieves the answer to the question from the RDF graph described below.",
        "- Use only the prefixes, classes and predicates of the descriptor, and declare every prefix you use.",
        "- Return a label next to each IRI (rdfs:label or the descriptor's label predicates), so the answer reads as names.",
        '- Find named things through their labels (e.g. ?x rdfs:label ?l . FILTER(LCASE(STR(?l)) = "name")) unless the question\'s entity matches give the IRI.',
        "- INSERT, DELETE, LOAD, CLEAR, DROP, CREATE and SERVICE are refused.",
        `- ${limit}`,
      ];
    case "cypher":
      return [
        "Write one read-only Cypher query (MATCH … RETURN) that retrieves the answer to the question from the property graph described below.",
        "- Use only the node labels, relationship types and properties of the descriptor, in the directions its patterns show.",
        "- CREATE, MERGE, SET, DELETE, REMOVE, FOREACH, LOAD CSV, CALL apoc.*, CALL dbms.* and several statements are refused.",
        "- Return the nodes, relationships or paths that show the answer (RETURN p for a path MATCH p = …, or the asked properties with the names of their nodes).",
        '- Match names case-insensitively, e.g. WHERE toLower(n.name) = toLower("Name").',
        `- ${limit}`,
      ];
  }
}

const LANGUAGE_NAMES: Record<QueryLanguageForPrompt, string> = { sql: "SQL", sparql: "SPARQL", cypher: "Cypher" };

export function formulatePrompt(input: FormulatePromptInput) {
  const q = dataQuoter();
  const task = input.failed ? "formulate.repair" : `formulate.${input.language}`;
  const system = systemPrompt(
    task,
    "You are the query-writing step of Mosaic, which answers business questions from knowledge bases in their native query languages.",
    [
      ...rules(input),
      "- The examples are queries that answered similar questions on this knowledge base; follow their shape where it fits this question.",
      "- When the critic's feedback on the previous round is given, change the query as it says.",
      ...(input.failed ? ["- Your previous query failed; the error message says why. Write a corrected query that avoids the error."] : []),
      "",
      OUTPUT_HEADING,
      `{"query": "<the ${LANGUAGE_NAMES[input.language]} query>", "explanation": "<one sentence: what the query retrieves>"}`,
    ],
    q.nonce,
  );
  const parts = [
    `The question:\n${q.block("question", input.intent.completed)}`,
    "",
    `What the question asks ("matches" are this knowledge base's entries for the question's entities):\n${q.block("intent", intentSummary(input.intent, { onlyKb: input.kbId }))}`,
    "",
    `Knowledge base "${input.kbName}" (${LANGUAGE_NAMES[input.language]}${input.dialect ? `, ${input.dialect}` : ""}). Its descriptor:\n${q.block("descriptor", clip(input.descriptor, MAX_DESCRIPTOR_CHARS, { keepLines: true }))}`,
  ];
  if (input.sourceObjects.length)
    parts.push("", `Source objects that source selection matched:\n${q.block("source_objects", input.sourceObjects)}`);
  parts.push(
    "",
    input.examples.length
      ? `Examples from extraction guides (question → query that answered it):\n${q.block("examples", input.examples)}`
      : "No extraction guide has an example for this knowledge base.",
  );
  if (input.feedback) parts.push("", `The critic's feedback on the previous round:\n${q.block("feedback", input.feedback)}`);
  if (input.failed)
    parts.push(
      "",
      `Your previous query:\n${q.block("previous_query", input.failed.query)}`,
      "",
      `It failed with:\n${q.block("error", input.failed.error)}`,
    );
  return { task, system, user: parts.join("\n"), schema: queryOutputSchema };
}

export interface PassagePromptInput {
  intent: Intent;
  kbName: string;
  /** The collection's descriptor: what its documents are about. */
  descriptor: string;
}

export function passagePrompt(input: PassagePromptInput) {
  const q = dataQuoter();
  const system = systemPrompt(
    "formulate.search",
    "You are the query-writing step of Mosaic, which searches document collections with full-text (BM25) search.",
    [
      "Write a short hypothetical passage (two to four sentences, at most 80 words) that would answer the question the way the collection's documents would state it: use the words such documents use (their terms, names, units and kinds of figures).",
      "The passage is only search text added to the question; it is never shown or taken as fact. Where you do not know a value, write a plausible placeholder rather than refusing.",
      "",
      OUTPUT_HEADING,
      '{"passage": "..."}',
    ],
    q.nonce,
  );
  const user = [
    `The question:\n${q.block("question", input.intent.completed)}`,
    "",
    `The collection "${input.kbName}":\n${q.block("descriptor", clip(input.descriptor, 4_000, { keepLines: true }))}`,
  ].join("\n");
  return { task: "formulate.search", system, user, schema: passageOutputSchema };
}
