import { periodsIn } from "../../../tables/periods";
import { DEFAULT_LINKS_PER_MENTION, type EntityLookup, type EntityLookupOptions } from "../../entity-lookup";
import { normalizeLabel } from "../../text";
import { type StageContext, type StageStrategy, RunCancelledError } from "../../stage";
import { type EntityLink, type EntityMention, type Intent, intentSchema, sentenceStartsIn } from "../../contracts";
import { analyzeAggregates } from "./aggregates";
import { readAnswerForm } from "./answer-form";
import { analyzeConstructs } from "./constructs";
import { type Completion, type Turn, completeEllipsis, completePronouns, ellipsisStart, selfContained } from "./conversation";
import { extractKeywords } from "./keywords";
import { guessLanguage } from "./language";
import { type LinkedMention, isNamedMention, selectMentions } from "./linking";
import { extractLocations } from "./locations";
import { type MentionCandidate, MAX_MENTION_TOKENS, ngramSpans, properSpans, quotedSpans } from "./mentions";
import { type QuestionForm, analyzeQuestionForm } from "./question-form";
import { extractRelation } from "./relation";
import { applyCorrections, correctionNote, spellingCandidates, spellingCorrections } from "./spelling";
import { extractTimeCues } from "./time-cues";
import { type Token, tokenize } from "./tokens";

export interface UnderstandInput {
  question: string;
  /** Earlier turns of the conversation, oldest first. */
  history: Turn[];
  /** The KBs the user may use: entity links point into these only. */
  kbIds: string[];
  lookup: EntityLookup;
  /** Reference time for relative cues ("last year"); defaults to the current time. */
  now?: Date;
}

export interface Understanding {
  intent: Intent;
  /** Degradations and decisions worth a trace line (follow-up completion, language, truncation). */
  notes: string[];
}

/** Tokens analysed per question: enough for any real question, bounded for a pasted document. */
const MAX_ANALYSED_TOKENS = 400;
/** Entities per intent: more than any question names. */
const MAX_ENTITIES = 24;
/** Unlinked names tried for containment matching ("Lindqvist" → "Maria Lindqvist"): a table scan, so few. */
const MAX_CONTAINS_MENTIONS = 3;

/** Entity lookups of one understand call, cached so the follow-up and the final analysis share them. */
function cachedLinker(lookup: EntityLookup, kbIds: string[], notes: string[]) {
  const cache = new Map<string, EntityLink[]>();
  let failed = false;
  return async (mentions: string[], options: EntityLookupOptions, signal?: AbortSignal): Promise<Map<string, EntityLink[]>> => {
    const missing = [...new Set(mentions)].filter((m) => !cache.has(m));
    if (missing.length && !failed) {
      try {
        const found = await lookup.find(missing, kbIds, DEFAULT_LINKS_PER_MENTION, options);
        for (const m of missing) cache.set(m, found.get(m) ?? []);
      } catch (e) {
        // Linking is best effort: the run goes on without links and says so.
        failed = true;
        notes.push(`Entity lookup failed (${e instanceof Error ? e.message : String(e)}); continuing without entity links.`);
      }
    }
    if (signal?.aborted) throw new RunCancelledError();
    return cache;
  };
}

type Linker = ReturnType<typeof cachedLinker>;

const within = (t: Token, ranges: [number, number][]) => ranges.some(([s, e]) => t.start >= s && t.end <= e);

/** Candidate mentions of the text and their chosen links; tokens inside `carried` ranges are skipped. */
async function linkMentions(
  text: string,
  tokens: Token[],
  carried: [number, number][],
  timeSpans: [number, number][],
  link: Linker,
  spellable: Set<string>,
  signal?: AbortSignal,
): Promise<LinkedMention[]> {
  const blocked = (t: Token) => within(t, carried);
  const inTime = (c: MentionCandidate) => timeSpans.some(([s, e]) => c.start >= s && c.end <= e);
  const names = [
    ...properSpans(text, tokens, (t) => blocked(t) || within(t, timeSpans)),
    ...quotedSpans(text, tokens).filter((q) => !carried.some(([s, e]) => q.start < e && s < q.end)),
  ];
  const ngrams = ngramSpans(text, tokens, blocked).filter((c) => !inTime(c));
  const candidates = [...names, ...ngrams];
  const nameTexts = new Set(names.map((n) => n.text));
  const containable = new Set(
    names
      .filter((n) => n.words <= 3)
      .slice(0, MAX_CONTAINS_MENTIONS)
      .map((n) => n.text),
  );
  const links = await link(
    candidates.map((c) => c.text),
    {
      prefix: (m) => nameTexts.has(m) || /\s/.test(m.trim()),
      contains: (m) => containable.has(m),
      fuzzy: (m) => containable.has(m) || spellable.has(m),
    },
    signal,
  );
  return selectMentions(candidates, links);
}

/** A question in another language: its entities and time cues are found, its English form is not. */
function unanalysedForm(): QuestionForm {
  return {
    wh: null,
    answerTypes: ["entity", "text"],
    headNoun: null,
    headIndex: null,
    subject: null,
    scaffold: new Set(),
    asksValue: false,
    statement: false,
  };
}

function emptyIntent(question: string): Intent {
  return intentSchema.parse({
    question,
    completed: question,
    language: "en",
    wh: null,
    answerTypes: ["text"],
    entities: [],
    relation: null,
    time: [],
    locations: [],
    aggregate: null,
    superlative: null,
    keywords: [],
    answerForm: readAnswerForm(question),
    periods: periodsIn(question),
    sentenceStarts: sentenceStartsIn(question),
  });
}

/** Follow-up completion: an elliptic fragment ("and in 2024?") or pronouns ("did he…") from earlier turns. */
async function complete(
  question: string,
  tokens: Token[],
  history: Turn[],
  now: Date,
  link: Linker,
  signal?: AbortSignal,
): Promise<Completion> {
  if (!history.length) return selfContained(question);
  const fragment = ellipsisStart(question, tokens);
  if (fragment !== null) {
    const time = extractTimeCues(question, now);
    const mentions = await linkMentions(question, tokens, [], time.spans, link, new Set(), signal);
    const cues = time.cues.map((cue, i) => ({ cue, span: time.spans[i] })).filter(({ span }) => span[0] >= fragment);
    const done = completeEllipsis(question, fragment, mentions, cues, tokens, history);
    if (done) return done;
  }
  const nameStarts = properSpans(question, tokens, () => false).map((n) => n.start);
  return completePronouns(question, tokens, nameStarts, history) ?? selfContained(question);
}

/**
 * Quasar's structured intent by linguistic analysis: answer types from the question form, entity
 * mentions with ranked links, the relation phrase, time cues, locations, aggregation and superlatives,
 * keywords; a follow-up is first completed from the conversation.
 */
export function understandQuestion(input: UnderstandInput, signal?: AbortSignal): Promise<Understanding> {
  return analyse(input, true, signal);
}

async function analyse(input: UnderstandInput, correctSpelling: boolean, signal?: AbortSignal): Promise<Understanding> {
  const question = typeof input.question === "string" ? input.question : String(input.question ?? "");
  const notes: string[] = [];
  if (!question.trim()) return { intent: emptyIntent(question), notes };
  const now = input.now ?? new Date();
  const history = (input.history ?? []).filter((t) => t?.intent);
  const link = cachedLinker(input.lookup, input.kbIds ?? [], notes);

  const questionTokens = tokenize(question, MAX_ANALYSED_TOKENS);
  if (questionTokens.length >= MAX_ANALYSED_TOKENS || questionTokens.length > MAX_MENTION_TOKENS) {
    notes.push(`Long question: only its first ${Math.min(questionTokens.length, MAX_MENTION_TOKENS)} words were searched for entities.`);
  }
  const completion = await complete(question, questionTokens, history, now, link, signal);
  const completed = completion.completed;
  if (completion.kind)
    notes.push(
      `Completed the follow-up from ${completion.turnsBack === 1 ? "the previous turn" : `${completion.turnsBack} turns back`}: "${completed}"`,
    );
  const tokens = completion.kind ? tokenize(completed, MAX_ANALYSED_TOKENS) : questionTokens;

  const language = guessLanguage(question);
  if (language !== "en")
    notes.push(
      `The question looks like language "${language}", not English: its form (answer type, relation, aggregation) was not analysed.`,
    );
  const english = language === "en";
  const time = extractTimeCues(completed, now);
  const form = english ? analyzeQuestionForm(tokens, completed) : unanalysedForm();
  // Misspelt words (a question, not a completed follow-up) are looked up fuzzily with the mentions.
  const spellable = correctSpelling && english && !completion.kind ? spellingCandidates(tokens) : new Set<string>();
  const found = await linkMentions(completed, tokens, completion.carried, time.spans, link, spellable, signal);
  if (spellable.size) {
    const corrections = await spellingCorrections(tokens, spellable, await link([...spellable], {}, signal));
    if (corrections.length) {
      // Analysed again as corrected, so every step (keywords, relation, aggregates, links) sees the words meant.
      const again = await analyse({ ...input, question: applyCorrections(question, corrections) }, false, signal);
      return { intent: { ...again.intent, question }, notes: [...notes, correctionNote(corrections), ...again.notes] };
    }
  }

  // Carried mentions sit where their text was put into the completed question.
  const carriedAt = (m: EntityMention): [number, number] | null => {
    for (const [s, e] of completion.carried) if (completed.slice(s, e).toLowerCase() === m.mention.toLowerCase()) return [s, e];
    const at = completed.toLowerCase().indexOf(m.mention.toLowerCase());
    return at >= 0 ? [at, at + m.mention.length] : null;
  };
  const positioned = [
    ...found.map((m) => ({
      entity: { mention: m.mention, span: [m.start, m.end] as [number, number], links: m.links, fromContext: false },
      at: [m.start, m.end] as [number, number] | null,
      proper: m.proper,
    })),
    ...completion.mentions
      .filter((c) => !found.some((m) => m.mention.toLowerCase() === c.mention.toLowerCase()))
      .map((c) => ({ entity: c, at: carriedAt(c), proper: c.links.length === 0 })),
  ]
    .sort((a, b) => (a.at?.[0] ?? Number.MAX_SAFE_INTEGER) - (b.at?.[0] ?? Number.MAX_SAFE_INTEGER))
    // A name said twice is one entity (its first mention); a pasted document does not flood the intent.
    .filter((p, i, all) => all.findIndex((q) => normalizeLabel(q.entity.mention) === normalizeLabel(p.entity.mention)) === i)
    .slice(0, MAX_ENTITIES);

  // Names are not the relation; schema words ("made by", "revenue") and single lower-case values
  // ("shipped") may well be, so they stay visible to the relation finder.
  const nameSpans = positioned.filter(
    (p) => p.at && isNamedMention(p.entity, p.proper) && (p.proper || /\s/.test(p.entity.mention) || /\p{Lu}/u.test(p.entity.mention)),
  );
  const entityTokens = new Set(tokens.filter((t) => nameSpans.some((p) => p.at && t.start >= p.at[0] && t.end <= p.at[1])).map((t) => t.i));
  // A statement states a count or a maximum ("the number of cases rises"); it does not ask for one.
  const aggregates =
    english && !form.statement
      ? analyzeAggregates(tokens, form.asksValue, form.wh)
      : { aggregate: null, superlative: null, consumed: new Set<number>() };
  const timeTokens = tokens.filter((t) => within(t, time.spans)).map((t) => t.i);
  const relation = english
    ? extractRelation(tokens, { entity: entityTokens, other: new Set([...form.scaffold, ...aggregates.consumed, ...timeTokens]) }, form)
    : null;
  const locations = extractLocations(
    tokens,
    positioned.map((p) => ({
      mention: p.entity.mention,
      start: p.at?.[0] ?? null,
      end: p.at?.[1] ?? null,
      links: p.entity.links,
      proper: p.proper,
    })),
    time.spans,
  );
  const scaffoldWords = new Set([...form.scaffold].map((i) => tokens[i]?.lower).filter((w): w is string => !!w));

  const intent = intentSchema.parse({
    question,
    completed,
    language,
    wh: form.wh,
    answerTypes: form.answerTypes,
    entities: positioned.map((p) => p.entity),
    relation,
    time: time.cues,
    locations,
    aggregate: aggregates.aggregate,
    superlative: aggregates.superlative,
    keywords: extractKeywords(completed, language, scaffoldWords),
    ...(english ? { constructs: analyzeConstructs(completed, { time: time.cues, entities: positioned.map((p) => p.entity) }) } : {}),
    ...(form.statement ? { statement: true } : {}),
    answerForm: readAnswerForm(completed),
    periods: periodsIn(completed),
    sentenceStarts: sentenceStartsIn(completed),
  });
  return { intent, notes };
}

/** The classical understand stage: no model, linguistic analysis and entity lookup only. */
export const classicalUnderstand: StageStrategy<UnderstandInput, Intent> = {
  name: "classical",
  async run(input: UnderstandInput, ctx: StageContext): Promise<Intent> {
    if (ctx.signal.aborted) throw new RunCancelledError();
    const { intent, notes } = await understandQuestion(input, ctx.signal);
    for (const summary of notes) ctx.trace({ stage: "understand", type: "INFO", strategy: "classical", summary });
    return intent;
  },
};

export { analyzeAggregates } from "./aggregates";
export { analyzeConstructs, askSpan } from "./constructs";
export { type Completion, type Turn, completeEllipsis, completePronouns, ellipsisStart } from "./conversation";
export { extractKeywords } from "./keywords";
export { guessLanguage } from "./language";
export { isNamedMention, selectMentions, type LinkedMention } from "./linking";
export { extractLocations } from "./locations";
export { looksLikePerson, looksLikePlace } from "./link-evidence";
export { ngramSpans, properSpans, quotedSpans, type MentionCandidate } from "./mentions";
export { analyzeQuestionForm, type QuestionForm } from "./question-form";
export { extractRelation } from "./relation";
export { extractTimeCues, type TimeAnalysis } from "./time-cues";
export { tokenize, type Token } from "./tokens";
