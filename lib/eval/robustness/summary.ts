import { count } from "../../format/count";
import { formatDuration } from "../format";
import { aggregate, tagValue } from "../metrics/aggregate";
import { formatDelta, formatMetric, metricInfo } from "../metric-labels";
import type { MetricValue, PairedCounts, QuestionResult, QuestionsFileRef, RobustnessRow, RobustnessSummary, SuiteMetrics } from "../types";
import { ROBUSTNESS_CLASSES } from "./classes";

/**
 * Compares a robustness run with its dev items: the suite's headline on each side, per rewrite class,
 * and each rewrite paired with its dev item (right in both, only as worded in dev, only rewritten,
 * neither). The figures come from the same aggregation as the reports, so the dev column of "all" is the
 * dev items' report figure weighted by how many rewrites each item has.
 */

/** The headline metrics per suite: strict execution match for query suites, TAT-QA's official EM (and F1). */
export function robustnessMetrics(suite: string): string[] {
  return suite === "tatqa" ? ["answer.em", "answer.f1"] : ["execution.match"];
}

function flatValue(m: SuiteMetrics, key: string): MetricValue {
  const [group, name] = key.split(".") as [keyof SuiteMetrics, string];
  const g = m[group] as { n: number; values: Record<string, MetricValue> } | undefined;
  return g && g.n ? (g.values[name] ?? null) : null;
}

function values(results: QuestionResult[], metrics: string[]): Record<string, MetricValue> {
  const m = aggregate(results);
  return Object.fromEntries(metrics.map((k) => [k, flatValue(m, k)]));
}

/** Was the result right by the suite's headline? null when it is not scored (the run could not start, or the gold could not be computed). */
export function rightByHeadline(suite: string, r: QuestionResult): boolean | null {
  if (r.status === "ERROR") return null;
  if (suite === "tatqa") return r.scores.p1 === null ? null : (r.scores.em ?? 0) === 1;
  return r.execution ? r.execution.match : null;
}

function pairedCounts(pairs: { dev: boolean; rewritten: boolean }[]): PairedCounts {
  const c = { n: pairs.length, both: 0, devOnly: 0, rewrittenOnly: 0, neither: 0 };
  for (const p of pairs) {
    if (p.dev && p.rewritten) c.both++;
    else if (p.dev) c.devOnly++;
    else if (p.rewritten) c.rewrittenOnly++;
    else c.neither++;
  }
  return c;
}

export function robustnessSummary(
  suite: string,
  overlay: QuestionsFileRef,
  devResults: QuestionResult[],
  rewrittenResults: QuestionResult[],
): RobustnessSummary {
  const metrics = robustnessMetrics(suite);
  const devById = new Map(devResults.map((r) => [r.id, r]));
  const scored: { cls: string; dev: QuestionResult; rewritten: QuestionResult; devRight: boolean; rwRight: boolean }[] = [];
  let unpaired = 0;
  for (const rw of rewrittenResults) {
    const devId = tagValue(rw, "dev");
    const dev = devId ? devById.get(devId) : undefined;
    const devRight = dev ? rightByHeadline(suite, dev) : null;
    const rwRight = rightByHeadline(suite, rw);
    if (!dev || devRight === null || rwRight === null) {
      unpaired++;
      continue;
    }
    scored.push({ cls: tagValue(rw, "class") ?? "unknown", dev, rewritten: rw, devRight, rwRight });
  }
  const row = (label: string, list: typeof scored): RobustnessRow => ({
    label,
    n: list.length,
    dev: values(
      list.map((p) => p.dev),
      metrics,
    ),
    rewritten: values(
      list.map((p) => p.rewritten),
      metrics,
    ),
    paired: pairedCounts(list.map((p) => ({ dev: p.devRight, rewritten: p.rwRight }))),
  });
  const classes = [
    ...ROBUSTNESS_CLASSES,
    ...new Set(scored.map((p) => p.cls).filter((c) => !(ROBUSTNESS_CLASSES as readonly string[]).includes(c))),
  ];
  const rows = classes
    .map((c) =>
      row(
        c,
        scored.filter((p) => p.cls === c),
      ),
    )
    .filter((r) => r.n > 0);
  rows.push(row("all", scored));
  return {
    suite,
    overlay,
    metrics,
    devItems: { n: devResults.length, values: values(devResults, metrics) },
    rewrites: { n: rewrittenResults.length, values: values(rewrittenResults, metrics) },
    rows,
    unpaired,
  };
}

function pad(s: string, n: number, right = false): string {
  return right ? s.padStart(n) : s.padEnd(n);
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => pad(c, widths[i], i > 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

const delta = (a: MetricValue, b: MetricValue) => (a === null || b === null ? "–" : formatDelta(b - a, "rate"));

/** The comparison as plain text, under the rewritten questions' report. */
export function formatRobustness(s: RobustnessSummary): string {
  const label = (k: string) => metricInfo(k).label.replace(/ \(.*\)$/, "");
  const fmt = (k: string, v: MetricValue) => formatMetric(v, metricInfo(k).format);
  const head = [
    `Robustness: ${s.overlay.name} (sha256 ${s.overlay.sha256.slice(0, 12)}…)`,
    `${count(s.devItems.n, "dev item")} as worded in dev: ${s.metrics.map((k) => `${label(k)} ${fmt(k, s.devItems.values[k])}`).join(", ")}`,
    `${count(s.rewrites.n, "rewrite")}: ${s.metrics.map((k) => `${label(k)} ${fmt(k, s.rewrites.values[k])}`).join(", ")}`,
  ];
  const rows: string[][] = [
    [
      "rewrite class",
      "pairs",
      ...s.metrics.flatMap((k) => [`${label(k)}: dev`, "rewritten", "Δ"]),
      "right in both",
      "only as in dev",
      "only rewritten",
      "in neither",
    ],
  ];
  for (const r of s.rows) {
    rows.push([
      r.label,
      String(r.n),
      ...s.metrics.flatMap((k) => [fmt(k, r.dev[k]), fmt(k, r.rewritten[k]), delta(r.dev[k], r.rewritten[k])]),
      String(r.paired.both),
      String(r.paired.devOnly),
      String(r.paired.rewrittenOnly),
      String(r.paired.neither),
    ]);
  }
  const notes = [
    "Each rewrite is paired with its dev item (a dev item with several rewrites counts once per rewrite); Δ is rewritten − dev.",
  ];
  if (s.unpaired) notes.push(`${count(s.unpaired, "rewrite")} left out of the pairs: not run yet, or a gold answer could not be computed.`);
  return [head.join("\n"), table(rows), notes.join("\n")].join("\n\n");
}

/** One line per robustness set and headline metric (--suite all --robustness): dev items, rewrites, the paired change. */
export function formatRobustnessOverview(sets: { suite: string; summary?: RobustnessSummary; skipped?: string; wallMs: number }[]): string {
  const rows: string[][] = [
    [
      "set",
      "metric",
      "dev items",
      "as in dev",
      "rewrites",
      "rewritten",
      "pairs",
      "Δ (paired)",
      "both",
      "dev only",
      "rewritten only",
      "neither",
      "wall",
    ],
  ];
  for (const s of sets) {
    if (!s.summary) {
      rows.push([s.suite, "skipped", "", "", "", "", "", "", "", "", "", "", formatDuration(s.wallMs)]);
      continue;
    }
    const all = s.summary.rows.find((r) => r.label === "all");
    s.summary.metrics.forEach((k, i) => {
      const info = metricInfo(k);
      rows.push([
        i === 0 ? s.suite : "",
        info.label.replace(/ \(.*\)$/, ""),
        i === 0 ? String(s.summary!.devItems.n) : "",
        formatMetric(s.summary!.devItems.values[k], info.format),
        i === 0 ? String(s.summary!.rewrites.n) : "",
        formatMetric(s.summary!.rewrites.values[k], info.format),
        i === 0 ? String(all?.n ?? 0) : "",
        all ? delta(all.dev[k], all.rewritten[k]) : "–",
        i === 0 && all ? String(all.paired.both) : "",
        i === 0 && all ? String(all.paired.devOnly) : "",
        i === 0 && all ? String(all.paired.rewrittenOnly) : "",
        i === 0 && all ? String(all.paired.neither) : "",
        i === 0 ? formatDuration(s.wallMs) : "",
      ]);
    });
  }
  return table(rows);
}
