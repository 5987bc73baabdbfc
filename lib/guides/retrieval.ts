import type { AccessSubject } from "../catalog/access";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { Bm25Index } from "../pipeline/bm25";
import { parseGuideAction } from "../pipeline/guide-actions";
import type { GuideExamplesSource, GuideHit, GuideSemantics, GuideSource } from "../pipeline/run/types";
import { cosine } from "../pipeline/scorers/dense";
import { calibrated, catalogVectors } from "../pipeline/stages/select/semantic";
import { guideAccessWhere } from "./access";

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
async function guideSimilarities(question: string, guideQuestions: string[], semantic: GuideSemantics | null): Promise<number[]> {
  const index = new Bm25Index(guideQuestions);
  const lexical = index.scores(question).map((s, i) => (s <= 0 ? 0 : Math.min(1, s / (index.selfScore(i) || 1))));
  if (!semantic) return lexical;
  try {
    const [[q], known] = await Promise.all([semantic.embedder.embed([question], "query"), catalogVectors(semantic.texts, guideQuestions)]);
    return lexical.map((l, i) => {
      const v = known.vectors[i];
      return v ? Math.max(l, calibrated(cosine(q, v))) : l;
    });
  } catch {
    // A failing model leaves guide retrieval lexical, as it was before models.
    return lexical;
  }
}

/** AU-RAG's Think Tank: the guides whose questions are closest to this one. */
export async function findNearestGuides(
  prisma: PrismaClient,
  user: AccessSubject,
  question: string,
  kbIds: string[],
  limit = 3,
  minScore = 0.2,
  semantic: GuideSemantics | null = null,
): Promise<GuideHit[]> {
  const guides = await prisma.extractionGuide.findMany({
    where: { AND: [guideAccessWhere(user), { sources: { some: { kbId: { in: kbIds } } } }] },
    include: GUIDE_INCLUDE,
    take: 5000,
  });
  if (!guides.length) return [];
  const scores = await guideSimilarities(
    question,
    guides.map((g) => g.question),
    semantic,
  );
  const hits: GuideHit[] = [];
  scores.forEach((score, i) => {
    if (score <= 0 || score < minScore) return;
    const g = guides[i];
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
      kbIds: [...new Set(g.sources.map((s) => s.kbId))],
      examples: actions.flatMap((a) =>
        a.action.kind === "NATIVE_QUERY" ? [{ kbId: a.kbId, sourceObject: a.sourceObjectKey, query: a.action.params.query }] : [],
      ),
      actions,
      invalidActions: invalid,
    });
  });
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}

/** Every guide query the user may use on these KBs (the pipeline's GuideExamplesSource: the vocabulary guides teach). */
export function guideExamples(prisma: PrismaClient): GuideExamplesSource {
  return async ({ user, kbIds }) => {
    const guides = await prisma.extractionGuide.findMany({
      where: { AND: [guideAccessWhere(user), { sources: { some: { kbId: { in: kbIds } } } }] },
      select: { question: true, sources: { select: { kbId: true, actions: { select: { kind: true, params: true } } } } },
      take: 5000,
    });
    return guides.flatMap((g) =>
      g.sources.flatMap((s) =>
        !kbIds.includes(s.kbId)
          ? []
          : s.actions.flatMap((a) => {
              const parsed = parseGuideAction(a.kind, a.params);
              return parsed?.kind === "NATIVE_QUERY" ? [{ kbId: s.kbId, question: g.question, query: parsed.params.query }] : [];
            }),
      ),
    );
  };
}

/** The run's guide source (the pipeline's GuideSource): the nearest guides, read from this database. */
export function nearestGuides(prisma: PrismaClient): GuideSource {
  return (q) => findNearestGuides(prisma, q.user, q.question, q.kbIds, q.limit, q.minScore, q.semantic);
}
