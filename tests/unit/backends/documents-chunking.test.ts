import { describe, expect, it } from "vitest";
import { assembleDocument } from "@/lib/ingest/documents/assemble";
import { chunkSentences } from "@/lib/ingest/documents/chunking";
import { splitSentences } from "@/lib/backends/documents/sentences";

describe("splitSentences", () => {
  it("splits at sentence ends and reports exact, trimmed offsets", () => {
    const text = "The tide rose quickly.  Did the wall hold? Yes! It held.";
    const spans = splitSentences(text, "en");
    expect(spans.map((s) => s.text)).toEqual(["The tide rose quickly.", "Did the wall hold?", "Yes!", "It held."]);
    for (const s of spans) expect(text.slice(s.start, s.end)).toBe(s.text);
  });

  it("does not end a sentence after common English abbreviations", () => {
    const spans = splitSentences("Dr. Smith agreed with Prof. Jones. Fig. 2 shows the trend, e.g. in March. See No. 5 for details.", "en");
    expect(spans.map((s) => s.text)).toEqual([
      "Dr. Smith agreed with Prof. Jones.",
      "Fig. 2 shows the trend, e.g. in March.",
      "See No. 5 for details.",
    ]);
  });

  it("still ends a sentence on a word that is only sometimes an abbreviation", () => {
    expect(splitSentences("The answer was no. The board agreed.", "en").map((s) => s.text)).toEqual([
      "The answer was no.",
      "The board agreed.",
    ]);
  });

  it("cuts text without sentence punctuation at a space once it exceeds the limit", () => {
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ");
    const spans = splitSentences(words, "en", 300);
    expect(spans.length).toBeGreaterThan(1);
    for (const s of spans) {
      expect(s.text.length).toBeLessThanOrEqual(300);
      expect(words.slice(s.start, s.end)).toBe(s.text);
      expect(s.text).toMatch(/^word\d+( word\d+)*$/); // no word cut in half
    }
    expect(spans.map((s) => s.text).join(" ")).toBe(words);
  });

  it("uses the language's own rules", () => {
    expect(splitSentences("Das ist gut. Wir gehen heute.", "de").map((s) => s.text)).toEqual(["Das ist gut.", "Wir gehen heute."]);
  });
});

describe("chunkSentences", () => {
  const spans = (texts: string[]) => {
    let offset = 0;
    return texts.map((text) => {
      const s = { text, start: offset, end: offset + text.length };
      offset += text.length + 1;
      return s;
    });
  };

  it("packs whole sentences up to the limit and never splits one", () => {
    const input = spans(["a".repeat(40), "b".repeat(40), "c".repeat(40), "d".repeat(10)]);
    const chunks = chunkSentences(input, 90);
    expect(chunks.map((c) => c.sentences.map((s) => s.text[0]).join(""))).toEqual(["ab", "cd"]);
    expect(chunks.map((c) => c.firstSentence)).toEqual([0, 2]);
    for (const c of chunks) expect(c.end - c.start).toBeLessThanOrEqual(90);
  });

  it("puts a sentence longer than the limit in a passage of its own", () => {
    const input = spans(["short one.", "x".repeat(150), "short two."]);
    const chunks = chunkSentences(input, 100);
    expect(chunks.map((c) => c.sentences.length)).toEqual([1, 1, 1]);
    expect(chunks[1].sentences[0].text).toHaveLength(150);
  });

  it("covers every sentence exactly once, in order", () => {
    const input = spans(Array.from({ length: 57 }, (_, i) => `Sentence number ${i} is here.`));
    const chunks = chunkSentences(input, 120);
    expect(chunks.flatMap((c) => c.sentences)).toEqual(input);
  });
});

describe("assembleDocument", () => {
  const settings = { language: "en", chunkMaxChars: 200 };

  it("gives passages offsets into the stored text and document-wide sentence indexes", () => {
    const doc = assembleDocument(
      {
        title: "Survey",
        blocks: [
          { text: "First paragraph has one sentence.\nIt wraps onto a second line.", section: "Intro" },
          { text: "Second paragraph. ".repeat(20), section: "Intro" },
          { text: "Findings start here. They are short.", section: "Findings" },
        ],
        tables: [],
      },
      settings,
    );
    const sentences: string[] = [];
    for (const c of doc.chunks) {
      expect(doc.text.slice(c.start, c.end)).toBe(c.text);
      expect(c.text.length).toBeLessThanOrEqual(200);
      expect(c.firstSentenceIndex).toBe(sentences.length);
      sentences.push(...c.sentences);
      for (const s of c.sentences) expect(c.text).toContain(s);
    }
    expect(sentences[1]).toBe("It wraps onto a second line.");
    expect(sentences.filter((s) => s === "Second paragraph.")).toHaveLength(20);
    // A passage never crosses a heading.
    const findings = doc.chunks.filter((c) => c.section === "Findings");
    expect(findings).toHaveLength(1);
    expect(findings[0].sentences).toEqual(["Findings start here.", "They are short."]);
  });

  it("keeps given sentences as they are, blank ones included, so dataset indexes stay valid", () => {
    const given = ["One.", "  ", "Three has a 'quote', and a comma.", "Four."];
    const doc = assembleDocument({ title: "T", blocks: [{ text: "", sentences: given }], tables: [] }, settings);
    const all = doc.chunks.flatMap((c) => c.sentences);
    expect(all).toEqual(["One.", "", "Three has a 'quote', and a comma.", "Four."]);
    expect(all.indexOf("Four.")).toBe(3);
  });

  it("never lets a passage mix two pages", () => {
    const doc = assembleDocument(
      {
        title: "T",
        blocks: [
          { text: "Page one text.", location: { page: 1 } },
          { text: "Page two text.", location: { page: 2 } },
        ],
        tables: [],
      },
      settings,
    );
    expect(doc.chunks.map((c) => [c.location.page, c.text])).toEqual([
      [1, "Page one text."],
      [2, "Page two text."],
    ]);
  });

  it("names unnamed columns, widens short rows, drops empty rows and places tables", () => {
    const doc = assembleDocument(
      {
        title: "Report",
        blocks: [{ text: "Before." }, { text: "After." }],
        tables: [
          {
            header: ["", "2019", "2019"],
            rows: [
              ["Sales", "1"],
              ["", "", ""],
              ["Costs", "2", "3", "extra"],
            ],
            beforeBlock: 1,
          },
          { caption: "Given caption", header: [], rows: [], beforeBlock: 2 },
        ],
      },
      settings,
    );
    expect(doc.tables).toHaveLength(1);
    const [t] = doc.tables;
    expect(t.caption).toBe("Table 1 of Report");
    expect(t.header).toEqual(["Item", "2019", "2019 (2)", "Column 4"]);
    expect(t.rows).toEqual([
      ["Sales", "1", null, null],
      ["Costs", "2", "3", "extra"],
    ]);
    expect(t.position).toBe(doc.text.indexOf("After."));
  });
});
