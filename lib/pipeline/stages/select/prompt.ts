import { z } from "zod";
import type { Intent } from "../../contracts";
import { dataQuoter } from "../../../llm/quote";
import { OUTPUT_HEADING, intentSummary, kindWords, systemPrompt } from "../../prompts";

export const selectOutputSchema = z.object({
  candidates: z.array(z.object({ kb: z.string(), sourceObjects: z.array(z.string()), reason: z.string() })),
});
export type SelectOutput = z.infer<typeof selectOutputSchema>;

/** A catalog entry as the model reads it: a short id instead of the database key. */
export interface CatalogForPrompt {
  id: string;
  name: string;
  kind: string;
  description: string;
  descriptor: string;
  sourceObjects: { key: string; name: string; type: string; description: string }[];
}

export interface SelectPromptInput {
  intent: Intent;
  catalog: CatalogForPrompt[];
  guides: { question: string; answeredBy: string[] }[];
  k: number;
  /** Catalog entries left out because the catalog exceeded the prompt budget. */
  omitted: number;
  /** The short id of a KB in this prompt's catalog (entity matches are shown under it). */
  kbLabel(kbId: string): string | undefined;
}

export function selectPrompt(input: SelectPromptInput) {
  const q = dataQuoter();
  const system = systemPrompt(
    "select",
    "You are the source-selection step of Mosaic, which answers business questions from many knowledge bases, each queried in its own language: document collections (full-text search), SQL databases, RDF graphs (SPARQL) and property graphs (Cypher).",
    [
      `Choose the knowledge bases most likely to hold the answer, best first, at most ${input.k}.`,
      "Read each catalog entry: its kind, its description, its structural descriptor (tables and columns, classes and predicates, node labels and relationships, or the collection's documents and tables) and its source objects. Extraction guides are questions answered before, with the knowledge bases that answered them; a guide close to this question is strong evidence.",
      "- Prefer a database or a graph when the answer must be counted, summed, ranked or filtered over records; prefer documents for policies, explanations and figures stated in reports.",
      "- Name two or more when the question needs facts from several, or when you cannot tell which one holds it.",
      "- For each, list the keys of the source objects the query should use, and give one sentence saying what in the entry matches the question.",
      "- Use only ids that appear in the catalog. If no entry can hold the answer, return an empty list.",
      "",
      OUTPUT_HEADING,
      '{"candidates": [{"kb": "K1", "sourceObjects": ["orders"], "reason": "..."}]}',
    ],
    q.nonce,
  );
  const catalog = input.catalog.map((c) => ({ ...c, kind: kindWords(c.kind) }));
  const user = [
    `The question:\n${q.block("question", input.intent.completed)}`,
    "",
    `What the question asks (from question understanding; "matches" are entries of the knowledge bases' entity indexes, by kb id):\n${q.block("intent", intentSummary(input.intent, { kbLabel: input.kbLabel }))}`,
    "",
    `The catalog (${catalog.length} knowledge bases${input.omitted ? `; ${input.omitted} more that matched the question less were left out to fit the prompt` : ""}):\n${q.block("catalog", catalog)}`,
    "",
    input.guides.length
      ? `Extraction guides (questions answered before, nearest first):\n${q.block("guides", input.guides)}`
      : "No extraction guide is close to this question.",
    "",
    `Return at most ${input.k} candidates.`,
  ].join("\n");
  return { task: "select", system, user, schema: selectOutputSchema };
}
