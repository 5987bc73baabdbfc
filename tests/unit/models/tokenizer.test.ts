import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// The worker's own module: what runs in the inference threads is what is tested.
import { ModelTokenizer, longestFirst } from "@/workers/inference/tokenizer.mjs";
import { EMBEDDER, SHARED_MODELS_DIR, sharedModelsAvailable } from "@/tests/support/models/fixtures";

const dir = path.join(SHARED_MODELS_DIR, EMBEDDER);
const LONG = Array(12)
  .fill(
    "The lighthouse keeper recorded a storm surge of 3.4 metres on the night of 12 March, and the survey team measured erosion along the northern cliffs.",
  )
  .join(" ");

/**
 * Expected ids come from Python `tokenizers` 0.23.3 (Tokenizer.from_file(tokenizer.json),
 * enable_truncation(256)), the library sentence-transformers uses: see ../shared/models/README.md.
 */
describe.skipIf(!sharedModelsAvailable())("tokenisation of all-MiniLM-L6-v2 (tokenizer.json through @huggingface/tokenizers)", () => {
  const tk = sharedModelsAvailable()
    ? new ModelTokenizer(
        JSON.parse(readFileSync(path.join(dir, "tokenizer.json"), "utf8")),
        JSON.parse(readFileSync(path.join(dir, "tokenizer_config.json"), "utf8")),
      )
    : null!;

  it("gives Python's ids, special tokens included", () => {
    expect(tk.encode("The cat sits outside.", 256).ids).toEqual([101, 1996, 4937, 7719, 2648, 1012, 102]);
    expect(tk.encode("How many oders were retruned?", 256).ids).toEqual([
      101, 2129, 2116, 27215, 2015, 2020, 2128, 16344, 9816, 2094, 1029, 102,
    ]);
  });

  it("truncates at 256 and keeps the final [SEP], as sentence-transformers does (transformers.js drops it)", () => {
    const { ids, typeIds } = tk.encode(LONG, 256);
    expect(ids).toHaveLength(256);
    expect(ids.slice(250)).toEqual([1012, 1018, 3620, 2006, 1996, 102]);
    expect(new Set(typeIds)).toEqual(new Set([0]));
  });

  it("encodes a (question, passage) pair as [CLS] q [SEP] p [SEP], truncating the longer one first", () => {
    const { ids, typeIds } = tk.encodePair("Which customers are located in Munich?", LONG, 256);
    expect(ids).toHaveLength(256);
    expect(ids.slice(0, 12)).toEqual([101, 2029, 6304, 2024, 2284, 1999, 7469, 1029, 102, 1996, 10171, 10684]);
    expect(ids.slice(-2)).toEqual([4040, 102]);
    expect(typeIds.filter((t) => t === 0)).toHaveLength(9);
  });
});

describe("longest-first truncation (Python tokenizers' rule)", () => {
  it("keeps a short first sequence whole and cuts the second", () => expect(longestFirst(10, 400, 253)).toEqual([10, 243]));
  it("halves when both are long, the odd token going to the longer one", () => {
    expect(longestFirst(300, 400, 253)).toEqual([126, 127]);
    expect(longestFirst(400, 300, 253)).toEqual([127, 126]);
    expect(longestFirst(300, 300, 253)).toEqual([126, 127]);
  });
  it("changes nothing that fits", () => expect(longestFirst(100, 100, 253)).toEqual([100, 100]));
});
