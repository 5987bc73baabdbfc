import { periodsIn } from "../../../tables/periods";
import type { LlmSession } from "../../../llm/session";
import { understandPrompt, type UnderstandOutput } from "./prompt";
import { DEFAULT_LINKS_PER_MENTION } from "../../entity-lookup";
import { type StageContext, type StageStrategy, RunCancelledError } from "../../stage";
import { normalizeLabel } from "../../text";
import { type EntityLink, type EntityMention, type Intent, intentSchema, sentenceStartsIn } from "../../contracts";
import { readAnswerForm } from "./answer-form";
import { analyzeConstructs } from "./constructs";
import { type UnderstandInput, type Understanding, understandQuestion } from "./classical";
import { extractTimeCues } from "./time-cues";

/**
 * The LLM understand strategy (Quasar's structured intent from a model): the model reads the question
 * and the conversation so far and returns the intent as JSON: the completed question, answer types,
 * entity mentions, relation, time, locations, aggregation. Mosaic then does what a model cannot do
 * reliably: links the entities into the KBs' entity indexes (the classical linking), resolves the time
 * expressions to dates, and computes the keywords. Classical mentions the model left out but that link
 * into a source (a table, a value) are kept after the model's, so selection and formulation still see them.
 */

const MAX_ENTITIES = 24;

interface Settled<T> {
  value?: T;
  error?: unknown;
}

function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  return p.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );
}

const overlaps = (a: [number, number], b: [number, number]) => a[0] < b[1] && b[0] < a[1];

function spanIn(text: string, mention: string): [number, number] | null {
  const at = text.toLowerCase().indexOf(mention.toLowerCase());
  return at >= 0 ? [at, at + mention.length] : null;
}

function cleanList(values: string[], max: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const v of values) {
    const t = v.replace(/\s+/g, " ").trim().slice(0, 200);
    const key = normalizeLabel(t);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    out.push(t);
    if (out.length >= max) break;
  }
  return out;
}

async function linkAll(input: UnderstandInput, mentions: string[], notes: string[]): Promise<Map<string, EntityLink[]>> {
  if (!mentions.length) return new Map();
  try {
    return await input.lookup.find(mentions, input.kbIds ?? [], DEFAULT_LINKS_PER_MENTION, {
      prefix: () => true,
      contains: (m) => m.trim().split(/\s+/).length <= 3,
    });
  } catch (e) {
    notes.push(`Entity lookup failed (${e instanceof Error ? e.message : String(e)}); continuing without entity links.`);
    return new Map();
  }
}

/** The model's intent joined with Mosaic's linking, time resolution and keywords. */
export async function mergeUnderstanding(
  input: UnderstandInput,
  out: UnderstandOutput,
  completed: string,
  classical: Understanding,
): Promise<Understanding> {
  const notes = [...classical.notes];
  const question = input.question;
  const history = input.history ?? [];
  const base = classical.intent;
  const timeTexts = new Set(out.time.map((t) => normalizeLabel(t)));
  const mentions = cleanList(out.entities, MAX_ENTITIES).filter((m) => !timeTexts.has(normalizeLabel(m)));
  const classicalByKey = new Map(base.entities.map((e) => [normalizeLabel(e.mention), e]));
  const unknown = mentions.filter((m) => !classicalByKey.get(normalizeLabel(m))?.links.length);
  // A mention nothing links to stays, unlinked: a question about an unknown name keeps it (as classically).
  const found = await linkAll(input, unknown, notes);

  const fromModel: EntityMention[] = mentions.map((m) => {
    const known = classicalByKey.get(normalizeLabel(m));
    const span = spanIn(completed, m);
    const inQuestion = spanIn(question, m) !== null;
    return {
      mention: m,
      span,
      links: known?.links.length ? known.links : (found.get(m) ?? []),
      fromContext: history.length > 0 && !inQuestion,
    };
  });
  // Classical mentions that link into a source and that the model did not name (schema words such as a
  // table, a value it took for generic) stay after the model's.
  const modelSpans = fromModel.map((e) => e.span).filter((s): s is [number, number] => !!s);
  const modelKeys = new Set(fromModel.map((e) => normalizeLabel(e.mention)));
  const extra = base.entities.filter(
    (e) => e.links.length > 0 && !modelKeys.has(normalizeLabel(e.mention)) && !(e.span && modelSpans.some((s) => overlaps(s, e.span!))),
  );

  // Time: Mosaic resolves the dates; a cue the model saw and the analysis missed is resolved on its own.
  const now = input.now ?? new Date();
  const time = [...base.time];
  for (const t of out.time) {
    const key = normalizeLabel(t);
    if (!key || time.some((c) => normalizeLabel(c.text).includes(key) || key.includes(normalizeLabel(c.text)))) continue;
    time.push(...extractTimeCues(t, now).cues);
  }

  const answerTypes = [...new Set(out.answerTypes)];
  const relation = out.relation?.trim() ? out.relation.trim().slice(0, 200) : null;
  const superlative = out.superlative
    ? {
        ...out.superlative,
        attribute: out.superlative.attribute?.trim() || null,
        limit: Math.max(1, Math.round(out.superlative.limit || 1)),
      }
    : null;
  const intent: Intent = intentSchema.parse({
    question,
    completed,
    language: base.language,
    wh: out.wh?.trim() ? out.wh.trim().toLowerCase().slice(0, 40) : base.wh,
    answerTypes: answerTypes.length ? answerTypes : base.answerTypes,
    entities: [...fromModel, ...extra].slice(0, MAX_ENTITIES),
    relation,
    time,
    locations: cleanList([...out.locations, ...base.locations], 12),
    aggregate: out.aggregate,
    superlative,
    keywords: base.keywords,
    // The same reading of the question's constructs and answer form as the classical strategy's, on the completed question.
    ...(base.constructs ? { constructs: base.completed === completed ? base.constructs : analyzeConstructs(completed) } : {}),
    answerForm: base.completed === completed && base.answerForm ? base.answerForm : readAnswerForm(completed),
    periods: base.completed === completed && base.periods ? base.periods : periodsIn(completed),
    sentenceStarts: sentenceStartsIn(completed),
  });
  return { intent, notes };
}

export function llmUnderstand(session: LlmSession): StageStrategy<UnderstandInput, Intent> {
  return {
    name: "llm",
    async run(input: UnderstandInput, ctx: StageContext): Promise<Intent> {
      if (ctx.signal.aborted) throw new RunCancelledError();
      const history = (input.history ?? []).filter((t) => t?.intent);
      const prompt = understandPrompt({
        question: input.question,
        history: history.slice(-6).map((t) => ({ question: t.question, completed: t.intent.completed })),
      });
      // A first question is analysed classically while the model thinks; a follow-up waits for the
      // model's completed question, which the analysis then reads instead of re-completing it.
      const early = history.length ? null : settle(understandQuestion({ ...input, history: [] }, ctx.signal));
      const out = await session.call("understand", ctx, prompt);
      const completed = history.length && out.completed.trim() ? out.completed.replace(/\s+/g, " ").trim().slice(0, 2_000) : input.question;
      let classical: Understanding;
      if (early) {
        const settled = await early;
        if (settled.error) throw settled.error;
        classical = settled.value!;
      } else {
        classical = await understandQuestion({ ...input, question: completed, history: [] }, ctx.signal);
      }
      const merged = await mergeUnderstanding(input, out, completed, classical);
      if (completed !== input.question) merged.notes.unshift(`The model completed the follow-up: "${completed}"`);
      for (const summary of merged.notes) ctx.trace({ stage: "understand", type: "INFO", strategy: "llm", summary });
      return merged.intent;
    },
  };
}
