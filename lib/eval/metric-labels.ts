import { ROBUSTNESS_CLASSES } from "./robustness/classes";
import type { MetricValue } from "./types";

/**
 * How each flat metric key ("source.rankedFirst", "presence.pool.ap@100", "latency.rerank.p95") is named
 * and shown. Shared by the command line, the comparison and the dashboard so they read the same.
 */

/** "score": a 0–1 figure that is not a share of questions (calibration error, Brier score), shown with three decimals. */
export type MetricFormat = "rate" | "ms" | "count" | "usd" | "score";

export interface MetricInfo {
  group: string;
  label: string;
  format: MetricFormat;
  /** Lower is better (latency, cost): deltas are coloured the other way. */
  lowerIsBetter?: boolean;
}

const FIXED: Record<string, Omit<MetricInfo, "group">> = {
  "source.inCandidates": { label: "gold source among the candidates", format: "rate" },
  "source.rankedFirst": { label: "gold source ranked first", format: "rate" },
  "source.winner": { label: "answer drawn from the gold source", format: "rate" },
  "retrieval.mrr@10": { label: "MRR@10", format: "rate" },
  "retrieval.ndcg@10": { label: "NDCG@10", format: "rate" },
  "evidence.recall": { label: "gold evidence in the answer's evidence", format: "rate" },
  "execution.match": { label: "execution match (on the gold source)", format: "rate" },
  "execution.matchColumns": { label: "execution match, lenient (extra columns allowed)", format: "rate" },
  "execution.anyMatch": { label: "execution match, any query run on the gold source", format: "rate" },
  "execution.matchAnyKb": { label: "same rows from any source (diagnostic)", format: "rate" },
  "answer.p@1": { label: "P@1 (answer correct)", format: "rate" },
  "answer.em": { label: "exact match", format: "rate" },
  "answer.f1": { label: "F1", format: "rate" },
  "answer.emNoScale": { label: "exact match ignoring scale (diagnostic)", format: "rate" },
  "refrain.rate": { label: "refrain rate", format: "rate" },
  "refrain.accuracy": { label: "refrain accuracy (right to answer or not)", format: "rate" },
  "refrain.shownAccuracy": { label: "right to show or hold back (refrained or not certain)", format: "rate" },
  "refrain.unanswerableRefrained": { label: "refrained on unanswerable questions", format: "rate" },
  "calibration.ece": { label: "expected calibration error (10 bins)", format: "score", lowerIsBetter: true },
  "calibration.brier": { label: "Brier score", format: "score", lowerIsBetter: true },
  "calibration.aurc": { label: "area under the risk–coverage curve", format: "score", lowerIsBetter: true },
  "calibration.precisionHigh": { label: "right among answers at confidence ≥ 80%", format: "rate" },
  "calibration.coverageHigh": { label: "questions answered at confidence ≥ 80%", format: "rate" },
  "calibration.coverageAt90": { label: "coverage at 90% precision", format: "rate" },
  "calibration.cautionTarget": { label: "caution target (show an answer only at this confidence)", format: "rate" },
  "calibration.shownCoverage": { label: "questions shown as answers (coverage)", format: "rate" },
  "calibration.shownPrecision": { label: "right among answers shown (precision)", format: "rate" },
  "calibration.heldByTarget": { label: "held back as not certain by the caution target", format: "rate" },
  "usage.tokens": { label: "LLM tokens", format: "count", lowerIsBetter: true },
  "usage.costUsd": { label: "LLM cost", format: "usd", lowerIsBetter: true },
};

const GROUP_LABELS: Record<string, string> = {
  source: "Source selection",
  retrieval: "Document retrieval",
  stage: "Retrieval by stage",
  evidence: "Gold evidence",
  execution: "Execution match",
  presence: "Answer presence",
  answer: "Answer accuracy",
  refrain: "Refrain",
  calibration: "Calibration",
  latency: "Latency",
  usage: "LLM usage",
};

/** "rerank:1:bm25-entity" → "re-rank 1 (bm25-entity)". */
export function rankingLabel(label: string): string {
  const m = /^rerank:(\d+):(.+)$/.exec(label);
  if (m) return `re-rank ${m[1]} (${m[2]})`;
  if (label === "evidence") return "answer evidence";
  if (label === "retrieval") return "first-stage retrieval";
  return label;
}

export function metricInfo(key: string): MetricInfo {
  const group = key.split(".")[0];
  const groupLabel = GROUP_LABELS[group] ?? group;
  const fixed = FIXED[key];
  if (fixed) return { group: groupLabel, ...fixed };
  let m = /^retrieval\.(hit|recall)@(\d+)$/.exec(key);
  if (m) return { group: groupLabel, label: `${m[1] === "hit" ? "Hit" : "Recall"}@${m[2]}`, format: "rate" };
  m = /^stage\.(.+)\.(ndcg|recall|mrr)@(\d+)$/.exec(key);
  if (m)
    return {
      group: groupLabel,
      label: `${m[2] === "ndcg" ? "NDCG" : m[2] === "mrr" ? "MRR" : "Recall"}@${m[3]} after ${rankingLabel(m[1])}`,
      format: "rate",
    };
  m = /^presence\.(.+)\.ap@(\d+)$/.exec(key);
  if (m) return { group: groupLabel, label: `AP@${m[2]} after ${rankingLabel(m[1])}`, format: "rate" };
  m = /^latency\.(.+)\.(p50|p95)$/.exec(key);
  if (m) return { group: groupLabel, label: `${m[1]} ${m[2]}`, format: "ms", lowerIsBetter: true };
  return { group: groupLabel, label: key.slice(group.length + 1), format: "rate" };
}

export function formatMetric(value: MetricValue | undefined, format: MetricFormat): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  switch (format) {
    case "rate":
      return `${(value * 100).toFixed(1)}%`;
    case "ms":
      return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
    case "count":
      return Math.round(value).toLocaleString("en");
    case "usd":
      return `$${value.toFixed(value < 1 ? 4 : 2)}`;
    case "score":
      return value.toFixed(3);
  }
}

/** A delta as shown: percentage points for rates, plain differences otherwise. */
export function formatDelta(delta: number | null, format: MetricFormat): string {
  if (delta === null || Number.isNaN(delta)) return "–";
  const sign = delta > 0 ? "+" : delta < 0 ? "−" : "±";
  const abs = Math.abs(delta);
  switch (format) {
    case "rate":
      return `${sign}${(abs * 100).toFixed(1)} pt`;
    case "ms":
      return `${sign}${Math.round(abs)} ms`;
    case "count":
      return `${sign}${Math.round(abs).toLocaleString("en")}`;
    case "usd":
      return `${sign}$${abs.toFixed(4)}`;
    case "score":
      return `${sign}${abs.toFixed(3)}`;
  }
}

/** The metrics a summary shows first, in this order (those that apply to the suite). */
export const HEADLINE_METRICS = [
  "source.rankedFirst",
  "retrieval.ndcg@10",
  "retrieval.recall@100",
  "execution.match",
  "answer.p@1",
  "answer.f1",
  "refrain.accuracy",
  "calibration.ece",
  "calibration.precisionHigh",
  "latency.total.p50",
];

/** The pipeline's stage order (DESIGN.md); unknown stages after, "total" last. */
const STAGE_ORDER = ["understand", "select", "formulate", "execute", "pool", "rerank", "select-evidence", "answer", "critique"];
export function stageRank(stage: string): number {
  if (stage === "total") return 1000;
  const i = STAGE_ORDER.indexOf(stage);
  return i < 0 ? 500 : i;
}

/** Rankings in the order the run makes them: first-stage retrieval, pool, each re-rank round, the answer's evidence. */
export function rankingRank(label: string): number {
  if (label === "retrieval") return -1;
  if (label === "pool") return 0;
  const m = /^rerank:(\d+):/.exec(label);
  if (m) return Number(m[1]);
  return label === "evidence" ? 100 : 50;
}

/**
 * Stored metrics come back from PostgreSQL's JSONB with their keys reordered (by length), so every
 * reader sorts: stages by pipeline order, rankings by round, and metric keys by group and name.
 */
export function sortedEntries<T>(record: Record<string, T>, rank: (key: string) => number): [string, T][] {
  return Object.entries(record).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}

const GROUP_ORDER = [
  "source",
  "retrieval",
  "stage",
  "evidence",
  "execution",
  "presence",
  "answer",
  "refrain",
  "calibration",
  "latency",
  "usage",
];
const WITHIN_GROUP: Record<string, string[]> = {
  source: ["inCandidates", "rankedFirst", "winner"],
  retrieval: ["hit@1", "hit@5", "hit@10", "mrr@10", "ndcg@10", "recall@10", "recall@100"],
  execution: ["match", "matchColumns", "anyMatch", "matchAnyKb"],
  answer: ["p@1", "em", "f1", "emNoScale"],
  refrain: ["rate", "accuracy", "shownAccuracy", "unanswerableRefrained"],
  calibration: ["ece", "brier", "aurc", "precisionHigh", "coverageHigh", "coverageAt90"],
};

/** Orders flat metric keys as tables read them: by group, ranking and k, stage, then the group's own order. */
export function compareMetricKeys(a: string, b: string): number {
  const ga = GROUP_ORDER.indexOf(a.split(".")[0]);
  const gb = GROUP_ORDER.indexOf(b.split(".")[0]);
  if (ga !== gb) return ga - gb;
  const group = a.split(".")[0];
  if (group === "stage") {
    const [, la, ma] = /^stage\.(.+)\.([^.]+)$/.exec(a) ?? [, a, ""];
    const [, lb, mb] = /^stage\.(.+)\.([^.]+)$/.exec(b) ?? [, b, ""];
    const order = ["ndcg@10", "recall@100", "mrr@10"];
    return rankingRank(la!) - rankingRank(lb!) || la!.localeCompare(lb!) || order.indexOf(ma!) - order.indexOf(mb!);
  }
  if (group === "presence") {
    const [, la, ka] = /^presence\.(.+)\.ap@(\d+)$/.exec(a) ?? [, a, "0"];
    const [, lb, kb] = /^presence\.(.+)\.ap@(\d+)$/.exec(b) ?? [, b, "0"];
    return rankingRank(la!) - rankingRank(lb!) || Number(ka) - Number(kb);
  }
  if (group === "latency") {
    const sa = a.slice(8).replace(/\.p(50|95)$/, "");
    const sb = b.slice(8).replace(/\.p(50|95)$/, "");
    return stageRank(sa) - stageRank(sb) || a.localeCompare(b);
  }
  const order = WITHIN_GROUP[group] ?? [];
  const ia = order.indexOf(a.slice(group.length + 1));
  const ib = order.indexOf(b.slice(group.length + 1));
  return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
}

/** What each tag breakdown is called in tables. */
export const BREAKDOWN_TITLES: Record<string, string> = {
  db: "database",
  hardness: "Spider hardness",
  type: "type",
  class: "rewrite class",
  category: "question category",
};

const HARDNESS_ORDER = ["easy", "medium", "hard", "extra", "unknown"];

/** Values of a breakdown in reading order: Spider's hardness classes from easy to extra, rewrite classes as listed, anything else by name. */
export function breakdownValueRank(tag: string): (value: string) => number {
  if (tag === "hardness") return (v) => HARDNESS_ORDER.indexOf(v);
  if (tag === "class") return (v) => (ROBUSTNESS_CLASSES as readonly string[]).indexOf(v);
  return () => 0;
}
