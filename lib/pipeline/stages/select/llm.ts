import { LlmError } from "../../../llm/errors";
import { type CatalogForPrompt, selectPrompt } from "../../../llm/prompts/select";
import { approxTokens, clip } from "../../../llm/quote";
import type { LlmSession } from "../../../llm/session";
import type { CatalogEntry } from "../../../catalog/snapshot";
import { type StageContext, type StageStrategy, RunCancelledError } from "../../stage";
import { normalizeLabel } from "../../text";
import type { Candidate, SelectionReason } from "../../types";
import { DEFAULT_SELECT_K, type SelectInput, selectSources } from "./index";

/**
 * The LLM select strategy (OmniRetrieval's source selection by a model): the model reads the catalog
 * (each KB's compact descriptor c_b, its source objects, the nearest extraction guides) and returns up
 * to k ranked {kb, sourceObjects, reason}. KBs are shown under short ids; an id that is not in the
 * prompt's catalog (which holds only KBs the user may use, minus those the critic ruled out) is
 * rejected, so the model can never route a run to a KB outside the user's access. When the catalog is
 * larger than the prompt budget, the classical ranking decides which entries the model sees.
 */

const MAX_OBJECTS_PER_KB = 30;
const MAX_DESCRIPTOR_CHARS = 3_000;
const MAX_DESCRIPTION_CHARS = 400;
const MAX_OBJECT_DESCRIPTION_CHARS = 240;
/** Tokens of the prompt besides the catalog: instructions, intent, guides. */
const PROMPT_OVERHEAD_TOKENS = 1_500;

function promptEntry(entry: CatalogEntry, id: string, descriptorChars = MAX_DESCRIPTOR_CHARS): CatalogForPrompt {
  return {
    id,
    name: entry.kbName,
    kind: entry.kind,
    description: clip(entry.description, MAX_DESCRIPTION_CHARS),
    descriptor: clip(entry.descriptor, descriptorChars, { keepLines: true }),
    sourceObjects: entry.sourceObjects.slice(0, MAX_OBJECTS_PER_KB).map((o) => ({
      key: o.key,
      name: o.name,
      type: o.contentType.toLowerCase(),
      description: clip(o.description, MAX_OBJECT_DESCRIPTION_CHARS),
    })),
  };
}

export interface PromptCatalog {
  entries: { alias: string; entry: CatalogEntry }[];
  forPrompt: CatalogForPrompt[];
  omitted: number;
}

/**
 * The catalog entries the model reads, in the classical ranking's order (`ranked`) (then the unranked ones in
 * catalog order), as many as fit `budgetTokens`. The first always goes in, its descriptor cut to fit.
 */
export function promptCatalog(ranked: Candidate[], allowed: CatalogEntry[], budgetTokens: number): PromptCatalog {
  const rank = new Map(ranked.map((c, i) => [c.kbId, i]));
  const ordered = [...allowed].sort((a, b) => (rank.get(a.kbId) ?? Infinity) - (rank.get(b.kbId) ?? Infinity));
  const entries: PromptCatalog["entries"] = [];
  const forPrompt: CatalogForPrompt[] = [];
  let used = 0;
  for (const entry of ordered) {
    const alias = `K${entries.length + 1}`;
    let shown = promptEntry(entry, alias);
    let cost = approxTokens(JSON.stringify(shown));
    if (used + cost > budgetTokens) {
      if (entries.length > 0) continue;
      shown = promptEntry(entry, alias, Math.max(200, (budgetTokens - 500) * 4));
      cost = approxTokens(JSON.stringify(shown));
    }
    entries.push({ alias, entry });
    forPrompt.push(shown);
    used += cost;
  }
  return { entries, forPrompt, omitted: allowed.length - entries.length };
}

/** The KB a model's id names: the short id, or (tolerated) the KB's exact id or name. */
function resolveKb(name: string, catalog: PromptCatalog): CatalogEntry | null {
  const t = name.trim();
  const byAlias = catalog.entries.find((e) => e.alias.toLowerCase() === t.toLowerCase());
  if (byAlias) return byAlias.entry;
  return catalog.entries.find((e) => e.entry.kbId === t || normalizeLabel(e.entry.kbName) === normalizeLabel(t))?.entry ?? null;
}

function resolveObjects(names: string[], entry: CatalogEntry): string[] {
  const out: string[] = [];
  for (const n of names) {
    const key = normalizeLabel(n);
    const hit =
      entry.sourceObjects.find((o) => o.key === n) ??
      entry.sourceObjects.find((o) => normalizeLabel(o.key) === key || normalizeLabel(o.name) === key);
    if (hit && !out.includes(hit.key)) out.push(hit.key);
  }
  return out;
}

export function llmSelect(session: LlmSession): StageStrategy<SelectInput, Candidate[]> {
  return {
    name: "llm",
    async run(input: SelectInput, ctx: StageContext): Promise<Candidate[]> {
      if (ctx.signal.aborted) throw new RunCancelledError();
      const requested = input.requestedKbIds?.length ? new Set(input.requestedKbIds) : null;
      const excluded = new Set(input.exclude ?? []);
      const allowed = input.catalog.filter((e) => !excluded.has(e.kbId) && (!requested || requested.has(e.kbId)));
      if (!allowed.length) return [];
      const k = Math.max(1, input.k || DEFAULT_SELECT_K);
      const ranked = selectSources({ ...input, k: allowed.length });
      const catalog = promptCatalog(ranked, allowed, Math.max(1_000, session.config.contextTokens - PROMPT_OVERHEAD_TOKENS));
      const aliasOf = new Map(catalog.entries.map((e) => [e.entry.kbId, e.alias]));
      const guides = input.guides
        .map((g) => ({ question: g.question, answeredBy: g.kbIds.map((id) => aliasOf.get(id)).filter((a): a is string => !!a) }))
        .filter((g) => g.answeredBy.length > 0);
      if (catalog.omitted) {
        ctx.trace({
          stage: "select",
          type: "INFO",
          strategy: "llm",
          summary: `The catalog exceeds the prompt budget: the model reads the ${catalog.entries.length} best-ranked of ${allowed.length} sources.`,
        });
      }
      const out = await session.call(
        "select",
        ctx,
        selectPrompt({
          intent: input.intent,
          catalog: catalog.forPrompt,
          guides,
          k,
          omitted: catalog.omitted,
          kbLabel: (id) => aliasOf.get(id),
        }),
      );

      const classical = new Map(ranked.map((c) => [c.kbId, c]));
      const chosen: Candidate[] = [];
      const rejected: string[] = [];
      for (const c of out.candidates) {
        const entry = resolveKb(c.kb, catalog);
        if (!entry) {
          rejected.push(c.kb);
          continue;
        }
        if (chosen.some((x) => x.kbId === entry.kbId) || chosen.length >= k) continue;
        const score = Math.round((1 - chosen.length / (k + 1)) * 1000) / 1000;
        const own = resolveObjects(c.sourceObjects, entry);
        const before = classical.get(entry.kbId);
        const reasons: SelectionReason[] = [
          ...(requested ? [{ type: "requested" as const, detail: "chosen by the user", weight: 0 }] : []),
          { type: "description", detail: `model: ${clip(c.reason, 300) || "no reason given"}`, weight: score },
          ...(before?.reasons.filter((r) => r.type !== "requested") ?? []),
        ];
        chosen.push({
          kbId: entry.kbId,
          kbName: entry.kbName,
          kind: entry.kind,
          sourceObjects: own.length ? own : (before?.sourceObjects ?? []),
          score,
          reasons,
        });
      }
      if (rejected.length) {
        ctx.trace({
          stage: "select",
          type: "INFO",
          strategy: "llm",
          summary: `Rejected knowledge bases the model named that are not in its catalog: ${rejected.map((r) => JSON.stringify(clip(r, 60))).join(", ")}`,
        });
      }
      if (!chosen.length) {
        throw new LlmError(
          "invalid_output",
          rejected.length ? "the model named only knowledge bases outside its catalog" : "the model selected no knowledge base",
        );
      }
      ctx.trace({
        stage: "select",
        type: "INFO",
        strategy: "llm",
        summary: `${chosen.length} of ${input.catalog.length} sources: ${chosen.map((c) => c.kbName).join(", ")}`,
        payload: { candidates: chosen.map((c) => ({ kbId: c.kbId, score: c.score, sourceObjects: c.sourceObjects })), rejected },
      });
      return chosen;
    },
  };
}
