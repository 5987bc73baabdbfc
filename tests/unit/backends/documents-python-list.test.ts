import { describe, expect, it } from "vitest";
import { PythonListSyntaxError, parsePythonStringList } from "@/lib/ingest/benchmarks/python-string-list";

describe("parsePythonStringList (SciFact abstracts)", () => {
  it("reads NumPy's whitespace-separated form", () => {
    const src = "['First sentence.'\n 'Second, with a comma.'\n 'Third.']";
    expect(parsePythonStringList(src)).toEqual(["First sentence.", "Second, with a comma.", "Third."]);
  });

  it("reads Python's comma-separated form", () => {
    expect(parsePythonStringList("['a', 'b','c' ]")).toEqual(["a", "b", "c"]);
  });

  it("handles double-quoted elements that contain apostrophes", () => {
    const src = `['One.'\n "The 3'-unique region of Fisher's model."\n 'Two.']`;
    expect(parsePythonStringList(src)).toEqual(["One.", "The 3'-unique region of Fisher's model.", "Two."]);
  });

  it("decodes Python escapes", () => {
    const src = String.raw`['It\'s', "say \"hi\"", 'tab\there', 'line end.   \n', 'back\\slash', '\x41\u00e9\U0001F600', 'keep \d', '\101']`;
    expect(parsePythonStringList(src)).toEqual(["It's", 'say "hi"', "tab\there", "line end.   \n", "back\\slash", "Aé😀", "keep \\d", "A"]);
  });

  it("keeps commas, brackets and quotes of the other kind inside elements", () => {
    expect(parsePythonStringList(`['a, b [c] "d"', "e ] , 'f'"]`)).toEqual(['a, b [c] "d"', "e ] , 'f'"]);
  });

  it("accepts string prefixes, including raw strings", () => {
    expect(parsePythonStringList(String.raw`[u'x', r'a\nb']`)).toEqual(["x", "a\\nb"]);
  });

  it("reads an empty list", () => {
    expect(parsePythonStringList(" [] ")).toEqual([]);
  });

  it.each([
    ["no list", "'a'"],
    ["unterminated string", "['abc"],
    ["missing bracket", "['a' 'b'"],
    ["bare word", "['a', b]"],
    ["bad escape", String.raw`['\x4']`],
    ["trailing text", "['a'] x"],
  ])("rejects %s with a position", (_, src) => {
    expect(() => parsePythonStringList(src)).toThrow(PythonListSyntaxError);
    expect(() => parsePythonStringList(src)).toThrow(/at character \d+/);
  });
});
