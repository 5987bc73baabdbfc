import { isStopword, words } from "../../text";
import type { Answer, Candidate, Intent } from "../../contracts";
import { quoteList } from "./refusal";

/**
 * Refusals whose cause lies before any evidence was weighed, told as that cause: the question is in a
 * language the workspace does not read, or none of the user's sources knows its words (a misspelling,
 * most often). The answer stage only sees empty or unrelated evidence and would blame the sources
 * ("the selected sources returned no evidence" when none was selected; a German question refused
 * over unrelated regions), which contradicts the Candidate sources panel and sends the user the wrong
 * way. An answered question is left as it is.
 */
export function explainUnreadQuestion(answer: Answer, intent: Intent | null, candidates: Candidate[]): Answer {
  if (!answer.refrained || !intent) return answer;
  const reason = unreadQuestionReason(intent, candidates);
  return reason ? { ...answer, reason } : answer;
}

/**
 * A refusal names the sources it searched when its reason does not already ("None of the sources found
 * mentions 'Asia'" → which sources?): the user can tell a gap in the data from a source that was not asked.
 */
export function withSourcesSearched(answer: Answer, candidates: Candidate[]): Answer {
  if (!answer.refrained || !answer.reason || candidates.length === 0) return answer;
  const names = [...new Set(candidates.map((c) => c.kbName))];
  if (names.some((n) => answer.reason!.includes(n))) return answer;
  const said = answer.reason.trim();
  return { ...answer, reason: `${said}${/[.!?]$/.test(said) ? "" : "."} Sources searched: ${names.join("; ")}.` };
}

export function unreadQuestionReason(intent: Intent, candidates: Candidate[]): string | null {
  if (intent.language !== "en") {
    return `This question looks like it is in ${languageName(intent.language)}. Mosaic reads questions in English and searches the sources with their words, so it found nothing it can stand behind. Please ask the question in English.`;
  }
  if (candidates.length > 0) return null;
  const asked = contentWords(intent.question, intent.keywords);
  if (asked.length === 0)
    return "The question has no words to look up in the sources. Name what you want to know, for example the product, customer, document or period.";
  return `None of your sources mentions ${quoteList(asked)}, so no source was searched. Check the spelling, or choose the knowledge bases to search under “Knowledge bases” and ask again.`;
}

/**
 * The words the sources were searched for, as the question writes them (the understand stage's
 * keywords, which leave out question scaffolding such as "how many"), at most six.
 */
function contentWords(question: string, keywords: string[]): string[] {
  const searched = new Set(keywords.map((k) => k.toLowerCase()));
  const out: string[] = [];
  for (const w of words(question)) {
    if (w.length < 2 || /^\d+$/.test(w) || isStopword(w, "en") || out.includes(w)) continue;
    if (searched.size > 0 && !searched.has(w)) continue;
    out.push(w);
  }
  return out.slice(0, 6);
}

/** "de" → "German"; an unknown code is named as itself. */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "language" }).of(code) ?? code;
  } catch {
    return code;
  }
}
