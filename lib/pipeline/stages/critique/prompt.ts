import { z } from "zod";
import { FEEDBACK_TYPES, type Feedback, type Intent } from "../../contracts";
import { dataQuoter } from "../../../llm/quote";
import { OUTPUT_HEADING, intentSummary, systemPrompt } from "../../prompts";

export const validatorOutputSchema = z.object({ valid: z.boolean(), reason: z.string() });
export type ValidatorOutput = z.infer<typeof validatorOutputSchema>;

export const commentorOutputSchema = z.object({ type: z.enum(FEEDBACK_TYPES), target: z.string().nullable(), detail: z.string() });
export type CommentorOutput = z.infer<typeof commentorOutputSchema>;

/** One reasoning path: a query run on a knowledge base and what it gave. */
export interface ReasoningPath {
  kb: string;
  strategy: string;
  language: string;
  query: string;
  status: string;
  rows: number;
  error?: string;
}

export interface CritiquePromptInput {
  intent: Intent;
  answer: { text: string; refrained: boolean; reason: string | null };
  paths: ReasoningPath[];
  cited: { id: string; source: string; text: string }[];
  /** Other top evidence, for context when the answer cites little. */
  context: { id: string; source: string; text: string }[];
}

export function validatorPrompt(input: CritiquePromptInput) {
  const q = dataQuoter();
  const system = systemPrompt(
    "critique.validator",
    "You are the validator of Mosaic's critic. You judge whether an answer produced by retrieval is right for the question.",
    [
      "Decide whether the answer is correct and complete for the question, given the reasoning paths that produced it (the queries run on each knowledge base and their outcome) and the evidence it cites.",
      "- valid is true only when the cited evidence states the answer, or it follows directly from it, for exactly the question's entities, relation and conditions (time, place, filters).",
      "- valid is false when the answer is about another entity or relation, misses a condition, is of the wrong kind, or is not supported by the cited evidence.",
      "",
      OUTPUT_HEADING,
      '{"valid": true, "reason": "<one sentence>"}',
    ],
    q.nonce,
  );
  const user = [
    `The question:\n${q.block("question", input.intent.completed)}`,
    "",
    `What it asks:\n${q.block("intent", intentSummary(input.intent))}`,
    "",
    `The answer:\n${q.block("answer", input.answer.text)}`,
    "",
    `Reasoning paths (queries run, with their outcome):\n${q.block("paths", input.paths)}`,
    "",
    `Cited evidence:\n${q.block("cited", input.cited)}`,
    ...(input.context.length ? ["", `Other top evidence:\n${q.block("context", input.context)}`] : []),
  ].join("\n");
  return { task: "critique.validator", system, user, schema: validatorOutputSchema };
}

export interface CommentorPromptInput extends CritiquePromptInput {
  verdict: string;
  sources: string[];
  strategies: string[];
  previousFeedback: Feedback[];
  /** Analysts' corrections recorded on the nearest extraction guides. */
  corrections: { question: string; runAnswer: string | null; correctAnswer: string }[];
}

const FEEDBACK_MEANINGS: Record<(typeof FEEDBACK_TYPES)[number], string> = {
  wrong_entity: "an entity of the question was matched to the wrong thing in a source (target: the entity as mentioned)",
  missing_entity: "an entity of the question was not found in any source (target: the entity as mentioned)",
  wrong_relation: "the queries used the wrong column, predicate or relationship (target: the relation phrase)",
  missing_relation: "the relation matched nothing in the sources; retrieve without it (target: the relation phrase)",
  empty_result: "the queries returned nothing; relax their filters (target: the knowledge base's name)",
  no_intersection: 'a query over several entities together found nothing while each alone has facts (target: "A & B")',
  wrong_source: "the evidence comes from a source that cannot answer; select others (target: that knowledge base's name)",
  wrong_module: "one retrieval module misled the answer; use the others (target: the module's strategy name)",
  next_batch: 'the right entity was found but the answer is beyond the first results (target: the page to fetch, "1" for the second page)',
  missing_negation: "the question says 'not', 'without' or 'except' but the answer query has no negation (target: the negated words)",
  missing_grouping: "the question asks 'for each', 'per' or 'by' but the answer query does not group (target: what to group by)",
  missing_filter: "the question names a value but the answer query does not filter on it (target: the value as mentioned)",
};

export function commentorPrompt(input: CommentorPromptInput) {
  const q = dataQuoter();
  const system = systemPrompt(
    "critique.commentor",
    "You are the commentor of Mosaic's critic. The validator judged the answer wrong; you say what the next retrieval round must change.",
    [
      "Give exactly one corrective feedback, of one of these types:",
      ...FEEDBACK_TYPES.map((t) => `- ${t}: ${FEEDBACK_MEANINGS[t]}`),
      "Rules:",
      "- Choose the type that fixes what blocks the answer first (an empty result before a wrong relation, a wrong entity before a next batch).",
      "- Never repeat a feedback already given with the same target.",
      "- target must name something in the inputs: an entity as mentioned, the relation phrase, a knowledge base from the sources list, a strategy from the strategies list, or a page number.",
      "- The corrections are answers analysts corrected on similar questions; learn from what went wrong there.",
      "",
      OUTPUT_HEADING,
      '{"type": "wrong_source", "target": "<name>", "detail": "<one sentence the user will read>"}',
    ],
    q.nonce,
  );
  const user = [
    `The question:\n${q.block("question", input.intent.completed)}`,
    "",
    `What it asks:\n${q.block("intent", intentSummary(input.intent))}`,
    "",
    `The answer:\n${q.block("answer", input.answer.refrained ? `(refrained: ${input.answer.reason ?? "no reason"})` : input.answer.text)}`,
    "",
    `The validator's verdict:\n${q.block("verdict", input.verdict)}`,
    "",
    `Reasoning paths (queries run, with their outcome):\n${q.block("paths", input.paths)}`,
    "",
    `Cited evidence:\n${q.block("cited", input.cited)}`,
    ...(input.context.length ? ["", `Other top evidence:\n${q.block("context", input.context)}`] : []),
    "",
    `Sources selected this round:\n${q.block("sources", input.sources)}`,
    "",
    `Strategies used this round:\n${q.block("strategies", input.strategies)}`,
    "",
    input.previousFeedback.length
      ? `Feedback already given in earlier rounds (do not repeat):\n${q.block("previous_feedback", input.previousFeedback)}`
      : "No feedback was given in earlier rounds.",
    "",
    input.corrections.length
      ? `Corrections from extraction guides:\n${q.block("corrections", input.corrections)}`
      : "No corrections are recorded for similar questions.",
  ].join("\n");
  return { task: "critique.commentor", system, user, schema: commentorOutputSchema };
}
