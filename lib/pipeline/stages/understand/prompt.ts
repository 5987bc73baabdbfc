import { z } from "zod";
import { ANSWER_TYPES } from "../../contracts";
import { dataQuoter } from "../../../llm/quote";
import { OUTPUT_HEADING, systemPrompt } from "../../prompts";

/** What the model returns; Mosaic then links the entities and resolves the time cues itself. */
export const understandOutputSchema = z.object({
  completed: z.string(),
  wh: z.string().nullable(),
  answerTypes: z.array(z.enum(ANSWER_TYPES)),
  entities: z.array(z.string()),
  relation: z.string().nullable(),
  time: z.array(z.string()),
  locations: z.array(z.string()),
  aggregate: z.enum(["count", "sum", "avg", "min", "max"]).nullable(),
  superlative: z.object({ direction: z.enum(["max", "min"]), attribute: z.string().nullable(), limit: z.number().int() }).nullable(),
});
export type UnderstandOutput = z.infer<typeof understandOutputSchema>;

export interface UnderstandPromptInput {
  question: string;
  history: { question: string; completed: string }[];
}

export function understandPrompt(input: UnderstandPromptInput) {
  const q = dataQuoter();
  const system = systemPrompt(
    "understand",
    "You are the question-understanding step of Mosaic, which answers business questions from document collections, relational databases and knowledge graphs.",
    [
      "Describe what the question asks as a structured intent. Do not answer it and do not add facts.",
      '- completed: the question rewritten to stand on its own. For a follow-up ("and in 2024?", "what about Germany?", "where is it located?") resolve pronouns and fragments from the earlier turns; otherwise repeat the question exactly as asked.',
      '- wh: the question word or phrase ("who", "what", "which", "how many", "how much", "when", "where"), or null for a command or keywords.',
      `- answerTypes: the kinds of value that answer it, most specific first, from: ${ANSWER_TYPES.join(", ")}. "count" for how many, "boolean" for yes/no questions, "money" for amounts of money, "percent" for shares; add "list" when several values are expected.`,
      '- entities: the specific things the question names, exactly as written in the completed question: people, organisations, products, places, documents, codes, and the values it filters on (a status such as "returned", a category, a customer segment). Leave out generic nouns ("orders", "customers") and dates.',
      '- relation: the property or relation asked about in the question\'s words ("chief executive", "list price", "number of orders"), or null.',
      '- time: the time expressions as written ("in 2025", "last year", "between 2019 and 2021").',
      "- locations: the places the question restricts the answer to.",
      "- aggregate: count, sum, avg, min or max when the answer is computed over many records; otherwise null.",
      '- superlative: {direction: max or min, attribute, limit} for "the most expensive", "the three largest"; otherwise null.',
      "",
      OUTPUT_HEADING,
      '{"completed": "...", "wh": "how many", "answerTypes": ["count"], "entities": ["..."], "relation": "...", "time": [], "locations": [], "aggregate": "count", "superlative": null}',
    ],
    q.nonce,
  );
  const user = [
    input.history.length
      ? `Earlier turns of the conversation, oldest first:\n${q.block("conversation", input.history)}`
      : "This is the first question of the conversation.",
    "",
    `The question:\n${q.block("question", input.question)}`,
  ].join("\n");
  return { task: "understand", system, user, schema: understandOutputSchema };
}
