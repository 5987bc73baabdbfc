import type { KbStructure, SearchFilters } from "../../../../backends/types";
import { isStopword, normalizeLabel } from "../../../text";
import type { Candidate, FormulatedQuery, Intent } from "../../../contracts";
import { resolveEntities } from "../entities";
import type { Adjustments } from "../feedback";

/**
 * Document collections: BM25 search text built from the intent (OmniRetrieval's search-text
 * rewriting, classically): the entities as mentioned and as linked, the relation, the keywords,
 * time and place words, without stopwords or repeats. A question whose answer is a number also
 * searches the collection's tables; a table matched by source selection is searched on its own.
 */

export type DocumentsStructure = Extract<KbStructure, { kind: "documents" }>;

const NUMERIC_ANSWERS = new Set(["number", "count", "money", "percent", "date"]);
/** The backend takes at most 48 terms; the text stays well under that so the intent's core is never cut. */
const MAX_WORDS = 32;

/** Content words of the parts, in order, each once (case-insensitively), without stopwords. */
export function searchText(parts: string[], language = "en"): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const part of parts) {
    for (const raw of part.split(/\s+/)) {
      const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
      const key = normalizeLabel(word);
      if (!key || seen.has(key) || key.split(" ").every((w) => isStopword(w, language))) continue;
      seen.add(key);
      out.push(word);
      if (out.length >= MAX_WORDS) return out.join(" ");
    }
  }
  return out.join(" ");
}

/**
 * What a search's vector half embeds: the question in its own words. The search text is a keyword
 * list for BM25; a sentence embedder was trained on sentences and the collection's vectors are of
 * passages, so the question, not the keyword list, is what should meet them.
 */
export function semanticText(intent: Pick<Intent, "completed" | "question">): string | undefined {
  const text = (intent.completed || intent.question).trim().slice(0, 2_000);
  return text || undefined;
}

export function formulateSearch(
  intent: Intent,
  candidate: Candidate,
  structure: DocumentsStructure | null,
  adj: Adjustments,
  max: number,
): { queries: FormulatedQuery[]; notes: string[] } {
  const entities = resolveEntities(intent, candidate.kbId, adj);
  const entityParts = entities.flatMap((e) => [e.mention, ...(e.link ? [e.link.label] : [])]);
  // After an empty result or a wrong relation the relation words go: they are the likeliest mismatch.
  const relation = adj.dropRelation || adj.relax || adj.relationRank > 0 ? [] : [intent.relation ?? ""];
  const parts = [...entityParts, ...relation, ...intent.keywords, ...intent.time.map((t) => t.text), ...intent.locations];
  const language = intent.language || "en";
  const text = searchText(parts, language) || searchText([intent.completed], language);
  if (!text) return { queries: [], notes: [`${candidate.kbName}: the question has no searchable word`] };

  const tableKeys = new Set((structure?.tables ?? []).map((t) => t.key));
  const linkedTables = entities.flatMap((e) => (e.link?.sourceObject && tableKeys.has(e.link.sourceObject) ? [e.link.sourceObject] : []));
  const matchedTable = [...candidate.sourceObjects, ...linkedTables].find((k) => tableKeys.has(k)) ?? null;
  const wantsNumber = intent.answerTypes.some((t) => NUMERIC_ANSWERS.has(t)) || intent.aggregate !== null;
  const hasTables = (structure?.tables.length ?? 0) > 0;

  type Draft = { text: string; semantic?: string; filters?: SearchFilters; why: string; sourceObject: string | null };
  const semantic = semanticText(intent);
  const drafts: Draft[] = [{ text, semantic, why: "search text from the intent", sourceObject: null }];
  // A next batch cannot page a search (a search takes no offset): each entity's own search surfaces
  // passages the joint one ranked lower, so they come right after it.
  if (adj.page > 0) {
    for (const e of entities) {
      const own = searchText([e.mention, ...(e.link ? [e.link.label] : []), ...intent.keywords], language);
      if (own && own !== text) drafts.push({ text: own, why: `next batch: passages about "${e.mention}"`, sourceObject: null });
    }
  }
  if (matchedTable) {
    const caption = structure?.tables.find((t) => t.key === matchedTable)?.caption ?? matchedTable;
    drafts.push({
      text,
      semantic,
      filters: { sourceObject: matchedTable },
      why: `only the table "${caption}" that source selection matched`,
      sourceObject: matchedTable,
    });
  } else if (wantsNumber && hasTables) {
    drafts.push({
      text,
      semantic,
      filters: { contentType: "table" },
      why: "only table rows (the answer is a number or date)",
      sourceObject: null,
    });
  }

  const seen = new Set<string>();
  const queries: FormulatedQuery[] = [];
  for (const d of drafts) {
    const key = `${d.text}\u0000${JSON.stringify(d.filters ?? {})}`;
    if (queries.length >= max || seen.has(key)) continue;
    seen.add(key);
    queries.push({
      kbId: candidate.kbId,
      kbName: candidate.kbName,
      kind: candidate.kind,
      query: {
        language: "search",
        text: d.text,
        ...(d.semantic ? { semantic: d.semantic } : {}),
        ...(d.filters ? { filters: d.filters } : {}),
      },
      strategy: "search",
      sourceObject: d.sourceObject,
      explanation: `Search: ${d.why}${adj.notes.length > 0 ? `; ${adj.notes.join("; ")}` : ""}.`,
    });
  }
  return { queries, notes: [] };
}
