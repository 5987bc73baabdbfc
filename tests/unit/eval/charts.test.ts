import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { BreakdownChart, ReliabilityChart, RiskCoverageChart, SuiteOverviewChart } from "@/components/evaluation/charts";
import { aggregate } from "@/lib/eval/metrics/aggregate";
import { result } from "./fixtures";

const group = (n: number) => ({ n, values: { "answer.f1": 0.5 } });

describe("evaluation charts that say something", () => {
  it("draws no chart of a single group of bars", () => {
    expect(renderToStaticMarkup(createElement(SuiteOverviewChart, { rows: [{ suite: "demo", headline: { "answer.f1": 1 } }] }))).toBe("");
    expect(
      renderToStaticMarkup(
        createElement(SuiteOverviewChart, {
          rows: [
            { suite: "demo", headline: { "answer.f1": 1 } },
            { suite: "tatqa", headline: { "answer.f1": 0.4 } },
          ],
        }),
      ),
    ).toContain("Per suite");
  });

  it("leaves out the unknown group and says how many questions it held", () => {
    const by = { DOCUMENTS: group(10), SQL: group(6), UNKNOWN: group(4) };
    const html = renderToStaticMarkup(
      createElement(BreakdownChart, { title: "By source kind", description: "The kind of the gold source", by }),
    );
    expect(html).toContain("The kind of the gold source; 4 questions without one not shown");
    // One known group and the unknown one: nothing to compare, no chart.
    expect(
      renderToStaticMarkup(
        createElement(BreakdownChart, { title: "By source kind", description: "x", by: { DOCUMENTS: group(10), UNKNOWN: group(4) } }),
      ),
    ).toBe("");
  });

  it("draws the reliability diagram and the risk–coverage curve only for reports that measured confidence", () => {
    const measured = aggregate([result({ id: "a", confidence: 0.9, correct: true }), result({ id: "b", confidence: 0.4, correct: false })]);
    expect(renderToStaticMarkup(createElement(ReliabilityChart, { metrics: measured }))).toContain("Reliability diagram");
    expect(renderToStaticMarkup(createElement(RiskCoverageChart, { metrics: measured }))).toContain("coverage at 90% precision 50.0%");
    const older = aggregate([result({ id: "a" })]);
    expect(renderToStaticMarkup(createElement(ReliabilityChart, { metrics: older }))).toBe("");
    expect(renderToStaticMarkup(createElement(RiskCoverageChart, { metrics: older }))).toBe("");
  });
});
