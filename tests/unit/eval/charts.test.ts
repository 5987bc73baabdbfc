import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { BreakdownChart, SuiteOverviewChart } from "@/components/evaluation/charts";

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
});
