import { z } from "zod";
import type { Intent } from "../../contracts";
import { dataQuoter } from "../../../llm/quote";
import { OUTPUT_HEADING, intentSummary, kindWords, systemPrompt } from "../../prompts";

export const selectEvidenceOutputSchema = z.object({ kb: z.string().nullable(), reason: z.string() });
export type SelectEvidenceOutput = z.infer<typeof selectEvidenceOutputSchema>;

export interface SourceResults {
  id: string;
  name: string;
  kind: string;
  queries: { language: string; query: string; status: string; rows: number }[];
  /** Its best pieces, best first, already clipped. */
  evidence: string[];
}

export function selectEvidencePrompt(input: { intent: Intent; sources: SourceResults[] }) {
  const q = dataQuoter();
  const system = systemPrompt(
    "select-evidence",
    "You are the evidence-selection step of Mosaic: several knowledge bases were queried for the same question, and you decide whose results answer it.",
    [
      "Pick the knowledge base whose results best answer the question: the one whose evidence states the answer, or lets it be computed directly, for the question's own entities and conditions (time, place, filters).",
      "- Evidence that only repeats the question's words, or is about another entity, does not answer it.",
      '- A count or total computed by a query over the right records answers a "how many" question better than a passage that mentions a similar figure.',
      "- If no knowledge base's results answer the question, return null.",
      "",
      OUTPUT_HEADING,
      '{"kb": "K1", "reason": "<one sentence>"}',
    ],
    q.nonce,
  );
  const sources = input.sources.map((s) => ({ ...s, kind: kindWords(s.kind) }));
  const user = [
    `The question:\n${q.block("question", input.intent.completed)}`,
    "",
    `What it asks:\n${q.block("intent", intentSummary(input.intent))}`,
    "",
    `The knowledge bases' queries and their best evidence:\n${q.block("results", sources)}`,
  ].join("\n");
  return { task: "select-evidence", system, user, schema: selectEvidenceOutputSchema };
}
