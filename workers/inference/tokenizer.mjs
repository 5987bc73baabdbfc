// Tokenisation for the inference worker: @huggingface/tokenizers reads tokenizer.json (normaliser,
// pre-tokeniser, WordPiece/BPE/Unigram model) and gives ids without special tokens; this module adds the
// model's special tokens from the tokenizer's own post-processor and truncates the way Python
// `tokenizers` / sentence-transformers do (`enable_truncation(max_length)`, strategy longest_first), so a
// text longer than the limit keeps its final [SEP] (transformers.js 4.3.1 drops it; see
// ../shared/models/README.md, "Caveats found"). tokenizer.json's own `truncation`/`padding` blocks
// (128 tokens upstream) are ignored on purpose: the limit is the model's, given by the caller.
import { Tokenizer } from "@huggingface/tokenizers";

/** A text is cut to this many characters per allowed token before tokenising: no real token is longer. */
const CHARS_PER_TOKEN_BOUND = 24;

/**
 * @typedef {{ kind: "special", ids: number[], typeId: number } | { kind: "sequence", which: "A" | "B", typeId: number }} TemplatePart
 * @typedef {{ ids: number[], typeIds: number[] }} Encoded
 */

/**
 * The single and pair templates of the post-processor, as parts. TemplateProcessing (BERT-style models
 * exported by transformers), BertProcessing and RobertaProcessing are read; a tokenizer without a
 * post-processor adds nothing.
 * @param {any} post
 * @returns {{ single: TemplatePart[], pair: TemplatePart[] }}
 */
function templatesOf(post) {
  if (!post) return { single: [seq("A", 0)], pair: [seq("A", 0), seq("B", 1)] };
  if (post.type === "TemplateProcessing") {
    const special = post.special_tokens ?? {};
    /** @param {any[]} parts */
    const read = (parts) =>
      parts.map((p) => {
        if (p.Sequence) return seq(p.Sequence.id, p.Sequence.type_id ?? 0);
        const token = special[p.SpecialToken.id];
        if (!token) throw new Error(`tokenizer.json's post-processor names the special token ${p.SpecialToken.id} without its id`);
        return /** @type {TemplatePart} */ ({ kind: "special", ids: token.ids, typeId: p.SpecialToken.type_id ?? 0 });
      });
    return { single: read(post.single), pair: read(post.pair) };
  }
  if (post.type === "BertProcessing") {
    const cls = sp(post.cls[1], 0);
    return {
      single: [cls, seq("A", 0), sp(post.sep[1], 0)],
      pair: [cls, seq("A", 0), sp(post.sep[1], 0), seq("B", 1), sp(post.sep[1], 1)],
    };
  }
  if (post.type === "RobertaProcessing") {
    const cls = sp(post.cls[1], 0);
    const sep = sp(post.sep[1], 0);
    return { single: [cls, seq("A", 0), sep], pair: [cls, seq("A", 0), sep, sep, seq("B", 0), sep] };
  }
  if (post.type === "Sequence") {
    const template = (post.processors ?? []).find((/** @type {any} */ p) =>
      ["TemplateProcessing", "BertProcessing", "RobertaProcessing"].includes(p.type),
    );
    return templatesOf(template ?? null);
  }
  throw new Error(`tokenizer.json uses the post-processor "${post.type}", which this runtime does not read`);
}

/** @param {"A" | "B"} which @param {number} typeId @returns {TemplatePart} */
function seq(which, typeId) {
  return { kind: "sequence", which, typeId };
}

/** @param {number} id @param {number} typeId @returns {TemplatePart} */
function sp(id, typeId) {
  return { kind: "special", ids: [id], typeId };
}

/** @param {TemplatePart[]} template */
function specialCount(template) {
  return template.reduce((n, p) => n + (p.kind === "special" ? p.ids.length : 0), 0);
}

/**
 * How many ids of each sequence Python `tokenizers`' longest_first keeps (its Rust `truncate_encodings`):
 * the shorter sequence stays whole when it fits in half the budget; otherwise both get half, the odd
 * id going to the longer one (to the second on a tie).
 * @param {number} a @param {number} b @param {number} budget
 */
export function longestFirst(a, b, budget) {
  if (a + b <= budget) return [a, b];
  if (budget <= 0) return [0, 0];
  const half = Math.floor(budget / 2);
  if (a <= half) return [a, budget - a];
  if (b <= half) return [budget - b, b];
  return a > b ? [budget - half, half] : [half, budget - half];
}

export class ModelTokenizer {
  /** @param {object} tokenizerJson @param {object} tokenizerConfig */
  constructor(tokenizerJson, tokenizerConfig) {
    this.tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
    const templates = templatesOf(/** @type {any} */ (tokenizerJson).post_processor ?? null);
    this.single = templates.single;
    this.pair = templates.pair;
    const padToken = /** @type {any} */ (tokenizerConfig).pad_token;
    const padId = typeof padToken === "string" ? this.tokenizer.token_to_id(padToken) : undefined;
    /** Padding id: the tokenizer's [PAD] (0 for BERT vocabularies). */
    this.padId = padId ?? 0;
  }

  /** @param {string} text @param {number} maxTokens */
  idsOf(text, maxTokens) {
    const bounded = text.length > maxTokens * CHARS_PER_TOKEN_BOUND ? text.slice(0, maxTokens * CHARS_PER_TOKEN_BOUND) : text;
    return this.tokenizer.encode(bounded, { add_special_tokens: false }).ids;
  }

  /**
   * One text, truncated to `maxTokens` ids including the special tokens.
   * @param {string} text @param {number} maxTokens @returns {Encoded}
   */
  encode(text, maxTokens) {
    const ids = this.idsOf(text, maxTokens);
    const keep = Math.max(0, maxTokens - specialCount(this.single));
    return this.assemble(this.single, ids.slice(0, keep), []);
  }

  /**
   * A (query, passage) pair for a cross-encoder, truncated longest-first to `maxTokens` ids.
   * @param {string} a @param {string} b @param {number} maxTokens @returns {Encoded}
   */
  encodePair(a, b, maxTokens) {
    const idsA = this.idsOf(a, maxTokens);
    const idsB = this.idsOf(b, maxTokens);
    const [keepA, keepB] = longestFirst(idsA.length, idsB.length, Math.max(0, maxTokens - specialCount(this.pair)));
    return this.assemble(this.pair, idsA.slice(0, keepA), idsB.slice(0, keepB));
  }

  /** @param {TemplatePart[]} template @param {number[]} a @param {number[]} b @returns {Encoded} */
  assemble(template, a, b) {
    /** @type {number[]} */
    const ids = [];
    /** @type {number[]} */
    const typeIds = [];
    for (const part of template) {
      const piece = part.kind === "special" ? part.ids : part.which === "A" ? a : b;
      for (const id of piece) {
        ids.push(id);
        typeIds.push(part.typeId);
      }
    }
    return { ids, typeIds };
  }
}
