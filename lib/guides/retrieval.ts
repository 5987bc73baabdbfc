import type { AccessSubject } from "../catalog/access";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { Bm25Index } from "../pipeline/bm25";
import { parseGuideAction } from "../pipeline/guide-actions";
import type { GuideExamplesSource, GuideHit, GuideSemantics, GuideSource } from "../pipeline/run/types";
import type { GuideExample } from "../pipeline/stages/formulate/vocabulary";
import { cosine } from "../pipeline/scorers/dense";
import { calibrated, catalogVectors } from "../pipeline/stages/select/semantic";
import { guideAccessWhere } from "./access";
import { type RememberedGuide, guideMemory } from "./guide-memory";

const GUIDE_INCLUDE = {
  sources: {
    include: { actions: { orderBy: { position: "asc" } }, sourceObject: { select: { key: true } } },
    orderBy: { position: "asc" },
  },
} satisfies Prisma.ExtractionGuideInclude;

/**
 * How close each guide's question is to this one, 0..1: BM25 relative to the guide's own self-match,
 * and with a sentence embedder the calibrated cosine of the two questions (a paraphrase shares few
 * words but says the same); the closer of the two counts.
 */
async function guideSimilarities(
  question: string,
  guides: RememberedGuide[],
  semantic: GuideSemantics | null,
): Promise<{ lexical: number[]; scores: number[] }> {
  const index = new Bm25Index(guides.map((g) => g.terms));
  const lexical = index.scores(question).map((s, i) => (s <= 0 ? 0 : Math.min(1, s / (index.selfScore(i) || 1))));
  return { lexical, scores: await withMeaning(question, guides, semantic, lexical) };
}

async function withMeaning(
  question: string,
  guides: RememberedGuide[],
  semantic: GuideSemantics | null,
  lexical: number[],
): Promise<number[]> {
  if (!semantic) return lexical;
  try {
    const model = semantic.embedder.info.id;
    const unknown = guides.filter((g) => !g.vectors.has(model));
    const [[q], known] = await Promise.all([
      semantic.question ? semantic.question.then((v) => [v]) : semantic.embedder.embed([question], "query"),
      catalogVectors(
        semantic.texts,
        unknown.map((g) => g.question),
      ),
    ]);
    unknown.forEach((g, i) => {
      const v = known.vectors[i];
      if (v) g.vectors.set(model, v);
    });
    return lexical.map((l, i) => {
      const v = guides[i].vectors.get(model);
      return v ? Math.max(l, calibrated(cosine(q, v))) : l;
    });
  } catch {
    // A failing model leaves guide retrieval lexical, as it was before models.
    return lexical;
  }
}

type Visible = (user: AccessSubject, kbIds: string[]) => Promise<RememberedGuide[]>;

/** AU-RAG's Think Tank: the guides whose questions are closest to this one. */
async function nearestOf(
  prisma: PrismaClient,
  visible: Visible,
  user: AccessSubject,
  question: string,
  kbIds: string[],
  limit: number,
  minScore: number,
  semantic: GuideSemantics | null,
): Promise<GuideHit[]> {
  const guides = await visible(user, kbIds);
  if (!guides.length) return [];
  const { lexical, scores } = await guideSimilarities(question, guides, semantic);
  const best = scores
    .map((score, i) => ({ score, i }))
    .filter((x) => x.score > 0 && x.score >= minScore)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
  if (!best.length) return [];
  // What the run executes is read fresh, with the access rule again: never a remembered action.
  const rows = await prisma.extractionGuide.findMany({
    where: { AND: [guideAccessWhere(user), { id: { in: best.map((b) => guides[b.i].id) } }] },
    include: GUIDE_INCLUDE,
  });
  const byId = new Map(rows.map((g) => [g.id, g]));
  const hits: GuideHit[] = [];
  for (const { score, i } of best) {
    const g = byId.get(guides[i].id);
    if (!g) continue; // deleted or no longer shared since the ranking read
    let invalid = 0;
    const actions: GuideHit["actions"] = [];
    for (const src of g.sources) {
      if (!kbIds.includes(src.kbId)) continue;
      for (const a of src.actions) {
        const parsed = parseGuideAction(a.kind, a.params);
        if (parsed)
          actions.push({
            kbId: src.kbId,
            sourceObjectId: src.sourceObjectId,
            sourceObjectKey: src.sourceObject?.key ?? null,
            action: parsed,
          });
        else invalid++;
      }
    }
    hits.push({
      guideId: g.id,
      question: g.question,
      score,
      lexicalScore: lexical[i],
      kbIds: [...new Set(g.sources.map((s) => s.kbId))],
      examples: actions.flatMap((a) =>
        a.action.kind === "NATIVE_QUERY" ? [{ kbId: a.kbId, sourceObject: a.sourceObjectKey, query: a.action.params.query }] : [],
      ),
      actions,
      invalidActions: invalid,
    });
  }
  return hits;
}

async function examplesOf(visible: Visible, user: AccessSubject, kbIds: string[]): Promise<GuideExample[]> {
  const guides = await visible(user, kbIds);
  const wanted = new Set(kbIds);
  return guides.flatMap((g) =>
    g.queries.filter((q) => wanted.has(q.kbId)).map((q) => ({ kbId: q.kbId, question: g.question, query: q.query })),
  );
}

/** AU-RAG's Think Tank: the guides whose questions are closest to this one (one read of its own). */
export function findNearestGuides(
  prisma: PrismaClient,
  user: AccessSubject,
  question: string,
  kbIds: string[],
  limit = 3,
  minScore = 0.2,
  semantic: GuideSemantics | null = null,
): Promise<GuideHit[]> {
  const memory = guideMemory(prisma);
  return nearestOf(prisma, (u, k) => memory.visible(u, k), user, question, kbIds, limit, minScore, semantic);
}

/**
 * What one run reads of the guides: the nearest ones (the pipeline's GuideSource) and every guide query
 * the user may use on these KBs (its GuideExamplesSource: the vocabulary guides teach). The run asks
 * both for the same user and KBs, so the guides it may use are read from the database once per run.
 */
export function runGuideReader(prisma: PrismaClient): { nearest: GuideSource; examples: GuideExamplesSource } {
  const memory = guideMemory(prisma);
  const reads = new Map<string, Promise<RememberedGuide[]>>();
  const visible: Visible = (user, kbIds) => {
    const key = JSON.stringify([user.id, user.role, [...user.groupIds].sort(), [...kbIds].sort()]);
    let read = reads.get(key);
    if (!read) {
      read = memory.visible(user, kbIds);
      reads.set(key, read);
      // A failed read is not kept: the next caller in the run reads again.
      read.catch(() => reads.delete(key));
    }
    return read;
  };
  return {
    nearest: (q) => nearestOf(prisma, visible, q.user, q.question, q.kbIds, q.limit, q.minScore, q.semantic),
    examples: ({ user, kbIds }) => examplesOf(visible, user, kbIds),
  };
}
