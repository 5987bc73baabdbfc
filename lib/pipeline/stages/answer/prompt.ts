import { z } from "zod";
import { ANSWER_TYPES, DERIVATION_OPERATIONS, type Intent } from "../../contracts";
import { dataQuoter } from "../../../llm/quote";
import { OUTPUT_HEADING, intentSummary, systemPrompt } from "../../prompts";

/**
 * An operation the model proposes over table cells: TagOp's operator and its operands, each a cell
 * named by the evidence id of its row and the column header. Mosaic reads the cells and computes the
 * result itself; the model's own arithmetic is never used.
 */
export const proposedComputationSchema = z.object({
  operation: z.enum(DERIVATION_OPERATIONS),
  /** In order: for difference and change ratio the new value first, then the old; for division the numerator first. */
  operands: z.array(z.object({ evidence: z.string(), column: z.string() })),
  /** A division asked as a percentage ("what percentage of …"): the ratio × 100. */
  percent: z.boolean(),
});
export type ProposedComputation = z.infer<typeof proposedComputationSchema>;

/** The model's answer; "unknown" (any case) means it refrains. */
export const answerOutputSchema = z.object({
  answer: z.string(),
  citations: z.array(z.string()),
  confidence: z.number(),
  answerType: z.enum(ANSWER_TYPES).nullable(),
  refrainReason: z.string().nullable(),
  /** Set when the answer is computed from table cells (older endpoints that omit it mean: not computed). */
  computation: proposedComputationSchema.nullable().default(null),
});
export type AnswerOutput = z.infer<typeof answerOutputSchema>;

export const UNKNOWN_ANSWER = "unknown";

export interface EvidenceForPrompt {
  id: string;
  kind: string;
  source: string;
  text: string;
}

export function answerPrompt(input: { intent: Intent; evidence: EvidenceForPrompt[] }) {
  const q = dataQuoter();
  const system = systemPrompt(
    "answer",
    "You are the answering step of Mosaic. You answer a business question from retrieved evidence only: passages from documents, table rows, RDF triples and graph paths from the user's knowledge bases, each with an id.",
    [
      "- Give the answer as a short phrase: a name, a number with its unit, a date, names separated by commas for a list, or yes/no. Not a sentence about the evidence.",
      "- Cite the ids of the pieces that state the answer or from which you computed it, and no others.",
      `- Use only what the evidence states. If it does not contain the answer, or pieces contradict each other with no way to decide, answer exactly "${UNKNOWN_ANSWER}", cite nothing, and say why in refrainReason.`,
      "- When you count or add up records, do it over the cited pieces, and cite all of them.",
      `- When the answer is computed from table cells (a total, difference, average, product, ratio, percentage change or count), also fill computation: the operation (${DERIVATION_OPERATIONS.join(", ")}) and its operands in order, each as the id of the row piece and the exact column header of the cell; for difference and change-ratio the newer value first, for division the numerator first; percent true when a share is asked as a percentage. Mosaic reads the cells and computes the result itself. Otherwise computation is null.`,
      "- confidence: from 0 to 1, how firmly the cited evidence establishes the answer.",
      `- answerType: one of ${ANSWER_TYPES.join(", ")}, or null.`,
      "",
      OUTPUT_HEADING,
      '{"answer": "...", "citations": ["E1"], "confidence": 0.9, "answerType": "count", "refrainReason": null, "computation": null}',
    ],
    q.nonce,
  );
  const user = [
    `The question:\n${q.block("question", input.intent.completed)}`,
    "",
    `What it asks:\n${q.block("intent", intentSummary(input.intent))}`,
    "",
    `The evidence, best first (${input.evidence.length} pieces):\n${q.block("evidence", input.evidence)}`,
  ].join("\n");
  return { task: "answer", system, user, schema: answerOutputSchema };
}
