import type { Constructs, Intent } from "../../contracts";
import { analyzeConstructs } from "../understand/constructs";

/** The question's constructs as understand read them, or read here when the intent came without (an LLM intent, a test). */
export function constructsOf(intent: Intent): Constructs {
  return intent.constructs ?? analyzeConstructs(intent.completed, intent);
}
