import { describe, expect, it } from "vitest";
import { capitalizedSpans } from "@/lib/backends/documents/entity-spans";

describe("capitalizedSpans", () => {
  it("finds multiword names and acronyms, with connectors inside names", () => {
    expect(capitalizedSpans("Revenue at Bank of America rose while the MRI unit in New York stalled.")).toEqual([
      "Bank of America",
      "MRI",
      "New York",
    ]);
  });

  it("ignores capitalized sentence openers but keeps names that start a sentence", () => {
    expect(capitalizedSpans("The results were clear. However, Thomas Byrne disagreed. Puffins declined.")).toEqual(["Thomas Byrne"]);
  });

  it("drops titles and section labels and trims function words at the edges", () => {
    expect(capitalizedSpans("Dr. Jane Smith spoke. OBJECTIVE To measure HIV load. RESULTS The In Germany study.")).toEqual([
      "Jane Smith",
      "HIV",
      "Germany",
    ]);
  });

  it("stops at punctuation between names", () => {
    expect(capitalizedSpans("Offices in Rotterdam, Hamburg and Tilburg.")).toEqual(["Rotterdam", "Hamburg", "Tilburg"]);
  });
});
