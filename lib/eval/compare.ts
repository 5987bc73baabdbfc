import { z } from "zod";
import { flattenMetrics } from "./metrics/aggregate";
import { compareMetricKeys, metricInfo, type MetricFormat } from "./metric-labels";
import { correctOf } from "./correct";
import type { MetricValue, QuestionResult, QuestionsFileRef, ReportJson, SuiteMetrics } from "./types";
import { count } from "../format/count";

/** The part of a report the comparison reads; validated so a wrong file gives a clear message. */
export const reportFileSchema = z.object({
  suite: z.string(),
  suiteLabel: z.string().optional(),
  seed: z.number().optional(),
  n: z.number(),
  config: z.record(z.string(), z.unknown()).optional(),
  questionsFile: z.object({ name: z.string(), sha256: z.string() }).nullable().optional(),
  metrics: z.object({ n: z.number() }).passthrough(),
  perQuestion: z.array(z.object({ id: z.string(), question: z.string() }).passthrough()),
});

export interface MetricDelta {
  key: string;
  group: string;
  label: string;
  format: MetricFormat;
  lowerIsBetter: boolean;
  a: MetricValue;
  b: MetricValue;
  delta: number | null;
}

export interface QuestionChange {
  id: string;
  question: string;
  /** fixed: wrong → right; broken: right → wrong; changed: the answer changed, correctness did not. */
  change: "fixed" | "broken" | "changed";
  a: { answer: string | null; correct: boolean | null; runId: string | null };
  b: { answer: string | null; correct: boolean | null; runId: string | null };
}

export interface Comparison {
  a: { suite: string; label: string; n: number; seed?: number };
  b: { suite: string; label: string; n: number; seed?: number };
  metrics: MetricDelta[];
  changes: QuestionChange[];
  counts: { common: number; fixed: number; broken: number; changed: number; onlyInA: number; onlyInB: number };
  warnings: string[];
}

type ComparableReport = Pick<ReportJson, "suite" | "n" | "perQuestion"> & {
  suiteLabel?: string;
  seed?: number;
  config?: Record<string, unknown>;
  metrics: SuiteMetrics;
  questionsFile?: QuestionsFileRef | null;
};

function fileLabel(f: QuestionsFileRef | null | undefined): string {
  return f ? `${f.name} (sha256 ${f.sha256.slice(0, 12)}…)` : "the suite's own questions";
}

function shown(r: QuestionResult): string | null {
  return r.answer ?? (r.refrain?.refrained ? "(refrained)" : null);
}

/**
 * Per-metric deltas (b − a) over every metric either report has, and the questions whose outcome
 * changed (matched by question id): fixed, broken, or answered differently with the same correctness.
 */
export function compareReports(a: ComparableReport, b: ComparableReport): Comparison {
  const fa = flattenMetrics(a.metrics);
  const fb = flattenMetrics(b.metrics);
  const keys = [...new Set([...Object.keys(fa), ...Object.keys(fb)])].sort(compareMetricKeys);
  const metrics: MetricDelta[] = keys.map((key) => {
    const info = metricInfo(key);
    const va = fa[key] ?? null;
    const vb = fb[key] ?? null;
    return {
      key,
      group: info.group,
      label: info.label,
      format: info.format,
      lowerIsBetter: !!info.lowerIsBetter,
      a: va,
      b: vb,
      delta: va !== null && vb !== null ? vb - va : null,
    };
  });
  const byA = new Map(a.perQuestion.map((r) => [r.id, r]));
  const byB = new Map(b.perQuestion.map((r) => [r.id, r]));
  const changes: QuestionChange[] = [];
  let common = 0;
  for (const [id, ra] of byA) {
    const rb = byB.get(id);
    if (!rb) continue;
    common++;
    const ca = correctOf(ra);
    const cb = correctOf(rb);
    const change: QuestionChange["change"] | null =
      ca === false && cb === true ? "fixed" : ca === true && cb === false ? "broken" : shown(ra) !== shown(rb) ? "changed" : null;
    if (!change) continue;
    changes.push({
      id,
      question: ra.question,
      change,
      a: { answer: shown(ra), correct: ca, runId: ra.runId },
      b: { answer: shown(rb), correct: cb, runId: rb.runId },
    });
  }
  const order = { broken: 0, fixed: 1, changed: 2 };
  changes.sort((x, y) => order[x.change] - order[y.change] || x.id.localeCompare(y.id));
  const warnings: string[] = [];
  if (a.suite !== b.suite)
    warnings.push(`The reports are of different suites (${a.suite} and ${b.suite}): only questions they share are compared.`);
  if (a.seed !== undefined && b.seed !== undefined && a.seed !== b.seed)
    warnings.push(`The reports drew questions with different seeds (${a.seed} and ${b.seed}).`);
  if ((a.questionsFile?.sha256 ?? null) !== (b.questionsFile?.sha256 ?? null)) {
    // Question ids of a file are positions in it: the same id may be another question in another file.
    warnings.push(
      `The reports read different questions (${fileLabel(a.questionsFile)} and ${fileLabel(b.questionsFile)}): questions with the same id may differ.`,
    );
  }
  const onlyInA = [...byA.keys()].filter((id) => !byB.has(id)).length;
  const onlyInB = [...byB.keys()].filter((id) => !byA.has(id)).length;
  if (onlyInA || onlyInB)
    warnings.push(
      `${count(onlyInA, "question")} only in the first report and ${onlyInB} only in the second: their metrics are over different questions.`,
    );
  return {
    a: { suite: a.suite, label: a.suiteLabel ?? a.suite, n: a.n, seed: a.seed },
    b: { suite: b.suite, label: b.suiteLabel ?? b.suite, n: b.n, seed: b.seed },
    metrics,
    changes,
    counts: {
      common,
      fixed: changes.filter((c) => c.change === "fixed").length,
      broken: changes.filter((c) => c.change === "broken").length,
      changed: changes.filter((c) => c.change === "changed").length,
      onlyInA,
      onlyInB,
    },
    warnings,
  };
}
