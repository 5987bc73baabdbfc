import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { columnSemanticText, linkerColumnText, readableIdentifier } from "@/lib/catalog/semantic-texts";
import lexicon from "@/lib/data/identifier-abbreviations.json";

describe("identifiers in words for the models", () => {
  it("splits identifiers and reads out the short forms the lexicon learned", () => {
    expect(readableIdentifier("emp_fname")).toBe("emp first name");
    expect(readableIdentifier("StuID")).toBe("student id");
    expect(readableIdentifier("Song_release_year")).toBe("song release year");
    expect(linkerColumnText("Faculty_Member", "Lname")).toBe("last name of faculty member");
    // The embedder's texts (and their stored vectors) keep the identifiers' own words.
    expect(columnSemanticText("Faculty_Member", "Lname")).toBe("lname of faculty member");
    expect(columnSemanticText("orders", "num_items", "How many articles the order holds")).toBe(
      "num items of orders. How many articles the order holds",
    );
  });

  it("is the lexicon the training script wrote (its checksum over the readings, as Python's json.dumps writes them)", () => {
    const sorted = Object.fromEntries(Object.entries(lexicon.abbreviations).sort(([a], [b]) => a.localeCompare(b)));
    const body = JSON.stringify(sorted, null, 1) + "\n";
    expect(createHash("sha256").update(body).digest("hex")).toBe(lexicon.meta.sha256_of_abbreviations);
  });
});
