import type { Intent } from "@/lib/pipeline/contracts";

/** A plain intent for a question: nothing understood yet, every field at its empty value, then `over`. */
export function baseIntent(question: string, over: Partial<Intent> = {}): Intent {
  return {
    question,
    completed: question,
    language: "en",
    wh: null,
    answerTypes: [],
    entities: [],
    relation: null,
    time: [],
    locations: [],
    aggregate: null,
    superlative: null,
    keywords: [],
    ...over,
  };
}
