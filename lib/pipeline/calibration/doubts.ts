import type { FeatureName, Features } from "./features";

/**
 * Why a run is not sure, in words (issue 32, part 3). Each feature the calibrator weighs pulls the
 * probability of being right up or down; a feature that sits away from its favourable end (1 when its
 * weight is positive, 0 when negative) costs |weight| × distance in log-odds. The costliest ones that
 * mean something to a person are said, most costly first. Features that only describe the source
 * (its kind, the number of rows) or repeat another (refrained) are not reasons.
 */

type Words = (f: Features) => string | null;

const WORDS: Partial<Record<FeatureName, Words>> = {
  linkStrength: (f) =>
    f.hasEntities && f.linkedShare > 0
      ? `a name or condition in the question was matched to the data only loosely (link strength ${Math.round(f.linkStrength * 100)} %)`
      : null,
  linkedShare: (f) => (f.hasEntities ? "not every name in the question was found in the sources" : null),
  shapeMismatch: (f) =>
    f.shapeMismatch ? "the result's shape does not fit the question: one value was asked, several rows came back" : null,
  criticAccepted: (f) => (f.criticAccepted ? null : "the critic doubts the answer: no round's answer passed its checks"),
  roundAgreement: (f) => (f.roundAgreement < 1 ? "the rounds did not agree on the answer" : null),
  extraRounds: (f) => (f.extraRounds > 0 ? "the first round's answer was not accepted, so the run tried again" : null),
  valuesMissed: (f) => (f.valuesMissed > 0 ? "the query could not use a value the question names" : null),
  emptyResult: (f) => (f.emptyResult ? "the query returned nothing" : null),
  coverage: (f) => (f.queryResult ? "the query accounts for only part of the question's words" : null),
  margin: (f) => (f.topScore > 0 ? "the sources disagree: the evidence barely favours this answer over another" : null),
  topScore: (f) => (f.topScore < 1 ? "the best evidence for it scores low" : null),
  uncertain: (f) => (f.uncertain ? "the evidence supports it only weakly" : null),
  // An empty result was computed by a query too; "the query returned nothing" says what it is.
  queryResult: (f) => (f.queryResult || f.emptyResult ? null : "it was read from passages, not computed by a query"),
  raw: () => "the answer stage itself gave it a low score",
  // 0 on both also means no scorer measured relevance on a comparable scale: not a reason then.
  citedRelevance: (f) => (f.citedRelevance > 0 ? "the passage or row it is read from matches the question only loosely" : null),
  documentMargin: (f) => (f.citedRelevance > 0 ? "other documents match the question about as well as the one it is read from" : null),
};

export interface Doubt {
  feature: FeatureName;
  /** Log-odds the feature costs (|weight| × distance from its favourable end). */
  cost: number;
  words: string;
}

/** The run's doubts, costliest first (at most `max`, each costing at least `minCost` log-odds). */
export function doubtsOf(features: Features, weights: Record<FeatureName, number>, max = 3, minCost = 0.05): Doubt[] {
  const out: Doubt[] = [];
  for (const [name, say] of Object.entries(WORDS) as [FeatureName, Words][]) {
    const w = weights[name] ?? 0;
    const favourable = w >= 0 ? 1 : 0;
    const cost = Math.abs(w) * Math.abs(favourable - features[name]);
    if (cost < minCost) continue;
    const words = say(features);
    if (words) out.push({ feature: name, cost, words });
  }
  return out.sort((a, b) => b.cost - a.cost).slice(0, max);
}
