import type { Intent } from "@/lib/pipeline/contracts";
import { periodsIn } from "@/lib/tables/periods";
import { readAnswerForm } from "@/lib/pipeline/stages/understand/answer-form";
import { analyzeConstructs } from "@/lib/pipeline/stages/understand/constructs";

/** A plain intent for a question: its constructs as the understand stage reads them, every other field at its empty value, then `over`. */
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
    // As the understand stage gives every English question (understand/classical.ts).
    constructs: analyzeConstructs(over.completed ?? question),
    answerForm: readAnswerForm(over.completed ?? question),
    periods: periodsIn(over.completed ?? question),
    ...over,
  };
}
