import type { KbStructure } from "../../../backends/types";
import type { TextEmbeddings } from "../../../models/text-embeddings";
import type { CrossEncoder, Embedder } from "../../../models/types";
import { RunCancelledError, type StageContext, type StageStrategy } from "../../stage";
import { normalizeLabel } from "../../text";
import type { Candidate, Feedback, FormulatedQuery, Intent } from "../../contracts";
import { type FormulationCandidate, withColumnMeaning } from "./dense-columns";
import { constructsWithEntities } from "../understand/constructs";
import { type Adjustments, adjustmentsFor } from "./feedback";
import { formulateCypher } from "./graph/formulate-cypher";
import { formulateSparql } from "./graph/formulate-sparql";
import { type FormulateGuide, guideQueries } from "./guide";
import { type GuideExample, learnVocabulary, withNotedSynonyms, withVocabulary } from "./vocabulary";
import { formulateSearch } from "./search/formulate-search";
import { formulateSql } from "./sql/formulate-sql";

/**
 * The formulate stage (OmniRetrieval: one native query per candidate, here up to a few ranked
 * alternatives): per candidate KB, the nearest extraction guide's query adapted to this question,
 * then queries from the KB's structure: SQL schema linking, Cypher neighbourhoods, SPARQL patterns,
 * or search text. The critic's feedback of the previous round changes the formulation (feedback.ts).
 */

export interface FormulateInput {
  intent: Intent;
  candidates: Candidate[];
  /** KbStructure per KB id (KnowledgeBackend.structure()); a KB without one gets only guides (documents: search). */
  structures: Map<string, KbStructure>;
  guides: FormulateGuide[];
  /** Every guide query on the candidates' sources: the vocabulary they teach the linker (vocabulary.ts). */
  guideExamples?: GuideExample[];
  feedback?: Feedback | null;
  /** Queries per candidate, best first; default 3. */
  maxQueriesPerCandidate?: number;
  /** The sentence embedder and the catalog texts' embeddings: schema linking also ranks columns by meaning when given. */
  embedder?: Embedder | null;
  textEmbeddings?: TextEmbeddings | null;
  /** The learned question–schema scorer (lib/models/schema-linker.ts): with it, columns are linked by what it learned. */
  schemaLinker?: CrossEncoder | null;
}

export const DEFAULT_MAX_QUERIES_PER_CANDIDATE = 3;

/** Feedback that says the query's shape was wrong: a guide's fixed shape then goes after the generated queries. */
const SHAPE_FEEDBACK = new Set<Feedback["type"]>(["empty_result", "wrong_relation", "missing_relation", "no_intersection"]);

/**
 * The intent as this round sees it: links the critic rejected removed, dropped mentions gone, so
 * guide adaptation substitutes the same entities the generated queries use.
 */
export function adjustedIntent(intent: Intent, kbId: string, adj: Adjustments): Intent {
  const entities = intent.entities
    .filter((e) => !adj.dropEntities.has(normalizeLabel(e.mention)))
    .map((e) => {
      const skip = adj.skipLinks.get(normalizeLabel(e.mention)) ?? 0;
      if (skip === 0) return e;
      const mine = e.links.filter((l) => l.kbId === kbId).sort((a, b) => b.score - a.score);
      const rejected = new Set(mine.slice(0, skip));
      return { ...e, links: e.links.filter((l) => !rejected.has(l)) };
    });
  const constructs = constructsWithEntities(intent, entities);
  return { ...intent, entities, ...(constructs ? { constructs } : {}) };
}

async function generated(
  intent: Intent,
  candidate: FormulationCandidate,
  structure: KbStructure | null,
  adj: Adjustments,
  max: number,
): Promise<{ queries: FormulatedQuery[]; notes: string[] }> {
  const mismatch = (expected: string) => ({ queries: [], notes: [`${candidate.kbName}: no ${expected} structure to formulate against`] });
  switch (candidate.kind) {
    case "SQL":
      return structure?.kind === "sql" ? formulateSql(intent, candidate, structure, adj, max, adj.page) : mismatch("SQL");
    case "SPARQL":
      return structure?.kind === "rdf" ? formulateSparql(intent, candidate, structure, adj, max, adj.page) : mismatch("RDF");
    case "CYPHER":
      return structure?.kind === "graph" ? formulateCypher(intent, candidate, structure, adj, max, adj.page) : mismatch("graph");
    case "DOCUMENTS":
      // A search needs no structure; the tables only add the table-restricted query.
      return formulateSearch(intent, candidate, structure?.kind === "documents" ? structure : null, adj, max);
  }
}

/** Queries for one candidate: guide adaptations and generated queries, at most `max`, best first. */
export async function formulateCandidate(
  input: FormulateInput,
  candidate: Candidate,
  signal?: AbortSignal,
): Promise<{ queries: FormulatedQuery[]; notes: string[] }> {
  const max = Math.max(1, Math.floor(input.maxQueriesPerCandidate ?? DEFAULT_MAX_QUERIES_PER_CANDIDATE));
  const adj = adjustmentsFor(input.intent, input.feedback);
  const structure = input.structures.get(candidate.kbId) ?? null;
  const guides = await guideQueries(
    input.guides.filter((g) => g.kbId === candidate.kbId),
    adjustedIntent(input.intent, candidate.kbId, adj),
    candidate,
    structure,
  );
  const models =
    input.embedder && input.textEmbeddings
      ? { embedder: input.embedder, texts: input.textEmbeddings, linker: input.schemaLinker ?? null }
      : null;
  const linked = await withColumnMeaning(models, input.intent, candidate, structure, signal);
  const vocabulary = learnVocabulary(
    (input.guideExamples ?? []).filter((g) => g.kbId === candidate.kbId),
    structure,
  );
  const taught = withVocabulary(input.intent, vocabulary);
  const noted = withNotedSynonyms(taught.intent, structure);
  const own = await generated(noted.intent, linked.candidate, structure, adj, max);
  if (taught.learned.length)
    own.notes.push(`${candidate.kbName}: the analysts' guides name ${taught.learned.join(", ")} by words of this question`);
  if (noted.named.length) own.notes.push(`${candidate.kbName}: the analysts' notes name ${noted.named.join(", ")}`);
  // With room for two or more, one slot at least stays with the generated queries, so a misleading
  // guide never fills the list alone (with room for one, the guide's proven shape wins).
  const guideSlots = own.queries.length > 0 && max > 1 ? max - 1 : max;
  const fromGuides = guides.queries.slice(0, guideSlots);
  const shapeWasWrong = input.feedback ? SHAPE_FEEDBACK.has(input.feedback.type) : false;
  // After feedback on the query's shape the generated queries lead, but the best guide keeps a slot.
  const ordered = shapeWasWrong
    ? [...own.queries.slice(0, fromGuides.length > 0 && max > 1 ? max - 1 : max), ...fromGuides]
    : [...fromGuides, ...own.queries];
  return { queries: ordered.slice(0, max), notes: [...linked.notes, ...guides.notes, ...own.notes] };
}

export const classicalFormulate: StageStrategy<FormulateInput, FormulatedQuery[]> = {
  name: "classical",
  async run(input: FormulateInput, ctx: StageContext): Promise<FormulatedQuery[]> {
    const out: FormulatedQuery[] = [];
    for (const candidate of input.candidates) {
      if (ctx.signal.aborted) throw new RunCancelledError();
      const { queries, notes } = await formulateCandidate(input, candidate, ctx.signal);
      for (const note of notes) ctx.trace({ stage: "formulate", type: "INFO", strategy: "classical", summary: note });
      if (queries.length === 0)
        ctx.trace({
          stage: "formulate",
          type: "INFO",
          strategy: "classical",
          summary: `${candidate.kbName}: no query could be formulated`,
        });
      out.push(...queries);
    }
    return out;
  },
};
