// One loaded model inside an inference worker: an onnxruntime-node session, its tokenizer, and the
// checks that refuse a file that is not the model it claims to be (wrong inputs, wrong outputs, wrong
// width) before any request reaches it. The main thread resolves and verifies the files; this module
// only reads them. Plain JavaScript because Node loads worker files itself (see lib/models/worker-path.ts).
import { readFileSync } from "node:fs";
import path from "node:path";
import * as ort from "onnxruntime-node";
import { sessionOptions } from "./session-options.mjs";
import { ModelTokenizer } from "./tokenizer.mjs";

/**
 * @typedef {{
 *   key: string,
 *   task: "embedding" | "cross-encoder",
 *   name: string,
 *   onnxPath: string,
 *   tokenizerPath: string,
 *   tokenizerConfigPath: string | null,
 *   maxTokens: number,
 *   pooling?: "mean" | "cls",
 *   dimensions?: number,
 *   threads?: number,
 *   fuseAttention?: boolean,
 * }} ModelDescriptor
 */

/**
 * Probe texts for checking a rewritten graph against the published one: different lengths, so that a
 * batch of them is padded and the padding mask is exercised.
 */
const FUSION_PROBES = [
  "What is the return window for tents?",
  "Nonsteroidal anti-inflammatory drugs show potential anticancer indications in several cohort studies.",
  "Customers in Munich",
  "The quarterly report lists revenue, operating income and the net change in cash for each segment, with the prior year beside it for comparison, and explains the largest movements in a short note below the table.",
  "Which movies did Tom Hanks act in after 1995?",
  "a",
];

/**
 * Below this cosine between the vectors of the rewritten and the published graph, the rewrite is not
 * used. A rewrite that misreads the graph (wrong head count, scale or mask) gives 0.7–0.9 on
 * all-MiniLM-L6-v2; a correct one gives 1.0 in fp32, and in int8 differs only where dynamic
 * quantisation rounds differently (≥ 0.99: onnxruntime's own optimisation levels differ by as much).
 */
const FUSION_MIN_COSINE = 0.99;

/** Inputs a text model may ask for; anything else (pixel_values, past_key_values...) is another kind of model. */
const TEXT_INPUTS = new Set(["input_ids", "attention_mask", "token_type_ids"]);
const EMBEDDING_OUTPUTS = ["last_hidden_state", "token_embeddings", "sentence_embedding"];

export class ModelLoadError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "ModelLoadError";
  }
}

/** @param {string} file @param {string} what */
function readJson(file, what) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new ModelLoadError(`${file}: the ${what} cannot be read (${/** @type {Error} */ (e).message}).`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ModelLoadError(`${file}: the ${what} is not valid JSON (${/** @type {Error} */ (e).message}).`);
  }
}

/** @param {readonly (string | number)[] | undefined} shape */
function lastDim(shape) {
  const d = shape?.[shape.length - 1];
  return typeof d === "number" ? d : null;
}

/**
 * hidden_size and num_attention_heads from the config.json beside the tokenizer (the Hugging Face
 * layout), which the attention rewrite needs where the exported graph leaves them to run time.
 * @param {string} tokenizerPath
 * @returns {{ hiddenSize?: number, heads?: number }}
 */
function modelShape(tokenizerPath) {
  try {
    const config = JSON.parse(readFileSync(path.join(path.dirname(tokenizerPath), "config.json"), "utf8"));
    const hiddenSize = Number(config.hidden_size);
    const heads = Number(config.num_attention_heads);
    return { ...(hiddenSize > 0 ? { hiddenSize } : {}), ...(heads > 0 ? { heads } : {}) };
  } catch {
    return {};
  }
}

/**
 * The smallest cosine between corresponding rows of two sets of n unit vectors (row-major).
 * @param {Float32Array} a @param {Float32Array} b @param {number} n
 */
function minCosine(a, b, n) {
  const width = n ? a.length / n : 0;
  if (a.length !== b.length || !Number.isInteger(width) || !width) return Number.NaN;
  let min = 1;
  for (let i = 0; i < a.length / width; i++) {
    let dot = 0;
    for (let k = 0; k < width; k++) dot += a[i * width + k] * b[i * width + k];
    min = Math.min(min, dot);
  }
  return min;
}

export class LoadedModel {
  /** @param {ModelDescriptor} descriptor @param {ort.InferenceSession} session @param {ModelTokenizer} tokenizer @param {string} output */
  constructor(descriptor, session, tokenizer, output) {
    this.descriptor = descriptor;
    this.session = session;
    this.tokenizer = tokenizer;
    this.output = output;
    this.feedsTypeIds = session.inputNames.includes("token_type_ids");
    /** @type {ort.InferenceSession | null} the fused graph without a mask, for batches with no padding */
    this.unpadded = null;
    /** @type {string} which graph runs, in words for the admin */
    this.graph = "as published";
  }

  /**
   * Loads and checks a model. Every refusal names the file and what is wrong with it.
   * @param {ModelDescriptor} d
   */
  static async load(d) {
    const tokenizerJson = readJson(d.tokenizerPath, "tokenizer");
    const tokenizerConfig = d.tokenizerConfigPath ? readJson(d.tokenizerConfigPath, "tokenizer configuration") : {};
    let tokenizer;
    try {
      tokenizer = new ModelTokenizer(tokenizerJson, tokenizerConfig);
    } catch (e) {
      throw new ModelLoadError(`${d.tokenizerPath}: the tokenizer cannot be used (${/** @type {Error} */ (e).message}).`);
    }
    let session;
    try {
      session = await ort.InferenceSession.create(d.onnxPath, sessionOptions(d.threads ?? 1));
    } catch (e) {
      const reason = /** @type {Error} */ (e).message.replace(/\s+/g, " ").slice(0, 300);
      throw new ModelLoadError(`${d.onnxPath} is not a loadable ONNX model (${reason}).`);
    }
    const file = path.basename(d.onnxPath);
    const unknown = session.inputNames.filter((n) => !TEXT_INPUTS.has(n));
    if (unknown.length || !session.inputNames.includes("input_ids") || !session.inputNames.includes("attention_mask")) {
      await session.release();
      throw new ModelLoadError(
        `${d.onnxPath} has the inputs ${session.inputNames.join(", ") || "(none)"}; a text ${d.task === "embedding" ? "embedder" : "cross-encoder"} needs input_ids and attention_mask (and optionally token_type_ids).`,
      );
    }
    let output;
    if (d.task === "embedding") {
      output = EMBEDDING_OUTPUTS.find((n) => session.outputNames.includes(n));
      if (!output) {
        await session.release();
        throw new ModelLoadError(
          `${d.onnxPath} has the outputs ${session.outputNames.join(", ")}; a sentence embedder needs last_hidden_state (or sentence_embedding).`,
        );
      }
    } else {
      output = session.outputNames.includes("logits") ? "logits" : session.outputNames[0];
    }
    const model = new LoadedModel(d, session, tokenizer, output);
    try {
      await model.probe(file);
    } catch (e) {
      await session.release();
      throw e;
    }
    if (d.task === "embedding" && d.fuseAttention) await model.fuseAttention();
    return model;
  }

  /**
   * Runs the model with its self-attention fused into onnxruntime's MultiHeadAttention operator
   * (attention-fusion.mjs), when the rewrite applies and gives the published graph's vectors: a
   * padded probe batch through the masked rewrite, an unpadded one through the rewrite without a
   * mask. That second graph serves batches with no padding (long passages cut at the token limit):
   * onnxruntime computes attention without a mask in its faster fused kernel. Anything else keeps
   * the published graph, and `graph` says why.
   */
  async fuseAttention() {
    const d = this.descriptor;
    let rewritten;
    try {
      // Loaded here, not with the worker: should the rewrite's own code fail to load, the model still runs as published.
      const { fuseAttention } = await import("./attention-fusion.mjs");
      const bytes = readFileSync(d.onnxPath);
      const shape = modelShape(d.tokenizerPath);
      const masked = fuseAttention(bytes, shape);
      if (!masked.fused) {
        this.graph = `as published (self-attention not fused: ${masked.reason})`;
        return;
      }
      const unmasked = fuseAttention(bytes, { ...shape, mask: false });
      rewritten = {
        layers: masked.layers,
        masked: await ort.InferenceSession.create(masked.fused, sessionOptions(d.threads ?? 1)),
        unmasked: unmasked.fused ? await ort.InferenceSession.create(unmasked.fused, sessionOptions(d.threads ?? 1)) : null,
      };
    } catch (e) {
      await rewritten?.masked.release();
      this.graph = `as published (self-attention not fused: ${/** @type {Error} */ (e).message.replace(/\s+/g, " ").slice(0, 200)})`;
      return;
    }
    const padded = FUSION_PROBES.map((t) => this.tokenizer.encode(t, d.maxTokens));
    const shortest = Math.min(...padded.map((r) => r.ids.length).filter((n) => n > 3));
    const even = padded
      .map((r) => ({ ids: r.ids.slice(0, shortest), typeIds: r.typeIds.slice(0, shortest) }))
      .filter((r) => r.ids.length === shortest);
    const published = { padded: await this.pooled(this.session, padded), even: await this.pooled(this.session, even) };
    const agreement = Math.min(
      minCosine(published.padded, await this.pooled(rewritten.masked, padded), padded.length),
      rewritten.unmasked ? minCosine(published.even, await this.pooled(rewritten.unmasked, even), even.length) : 1,
    );
    if (!(agreement >= FUSION_MIN_COSINE)) {
      await rewritten.masked.release();
      await rewritten.unmasked?.release();
      this.graph = `as published (the fused graph was not used: its vectors differ from the published graph's, cosine ${agreement.toFixed(3)})`;
      return;
    }
    await this.session.release();
    this.session = rewritten.masked;
    this.unpadded = rewritten.unmasked;
    this.graph = `self-attention fused in ${rewritten.layers} layers (onnxruntime MultiHeadAttention); vectors checked against the published graph, cosine ≥ ${agreement.toFixed(4)}`;
  }

  /**
   * Runs one short input and checks the output's width: the declared shapes are often symbolic, so
   * only a real run shows a 768-wide model where a 384-wide one was expected.
   * @param {string} file
   */
  async probe(file) {
    const d = this.descriptor;
    if (d.task === "embedding") {
      let vectors;
      try {
        vectors = await this.embed(["probe"]);
      } catch (e) {
        throw new ModelLoadError(`${d.onnxPath} fails on a test sentence (${/** @type {Error} */ (e).message.slice(0, 300)}).`);
      }
      const width = vectors.length;
      if (d.dimensions && width !== d.dimensions) {
        throw new ModelLoadError(
          `${d.onnxPath} produces ${width}-dimensional vectors; ${d.name} must produce ${d.dimensions}. The file ${file} is not ${d.name}.`,
        );
      }
    } else {
      const declared = lastDim(
        /** @type {any} */ (this.session).outputMetadata?.find?.((/** @type {any} */ m) => m.name === this.output)?.shape,
      );
      if (declared !== null && declared !== 1 && declared !== 2) {
        throw new ModelLoadError(
          `${d.onnxPath} has ${declared} output labels; a re-ranking cross-encoder has one relevance logit (or two labels).`,
        );
      }
      let scores;
      try {
        scores = await this.score([["probe", "probe"]]);
      } catch (e) {
        throw new ModelLoadError(`${d.onnxPath} fails on a test pair (${/** @type {Error} */ (e).message.slice(0, 300)}).`);
      }
      if (scores.length !== 1)
        throw new ModelLoadError(`${d.onnxPath} returned ${scores.length} scores for one pair; a cross-encoder returns one.`);
    }
  }

  /** What the main thread shows about the loaded model. */
  describe() {
    return {
      key: this.descriptor.key,
      inputs: this.session.inputNames,
      output: this.output,
      dimensions: this.descriptor.dimensions ?? null,
      graph: this.graph,
    };
  }

  /**
   * Pads encoded rows to the longest and builds the int64 tensors the graph takes.
   * @param {{ ids: number[], typeIds: number[] }[]} rows
   */
  feeds(rows) {
    const width = Math.max(1, ...rows.map((r) => r.ids.length));
    const n = rows.length;
    const ids = new BigInt64Array(n * width);
    const mask = new BigInt64Array(n * width);
    const types = new BigInt64Array(n * width);
    const pad = BigInt(this.tokenizer.padId);
    rows.forEach((r, i) => {
      for (let j = 0; j < width; j++) {
        const at = i * width + j;
        if (j < r.ids.length) {
          ids[at] = BigInt(r.ids[j]);
          mask[at] = 1n;
          types[at] = BigInt(r.typeIds[j]);
        } else {
          ids[at] = pad;
        }
      }
    });
    /** @type {Record<string, ort.Tensor>} */
    const feeds = {
      input_ids: new ort.Tensor("int64", ids, [n, width]),
      attention_mask: new ort.Tensor("int64", mask, [n, width]),
    };
    if (this.feedsTypeIds) feeds.token_type_ids = new ort.Tensor("int64", types, [n, width]);
    return { feeds, width, mask };
  }

  /**
   * Sentence embeddings, pooled (mean over real tokens, or [CLS]) and L2-normalised: one Float32Array
   * of n × dimensions, row-major.
   * @param {string[]} texts
   */
  async embed(texts) {
    return this.pooled(
      this.session,
      texts.map((t) => this.tokenizer.encode(t, this.descriptor.maxTokens)),
    );
  }

  /**
   * `embed` for encoded rows through one session (the published graph or its rewrite). A batch
   * without padding runs the rewrite without a mask where there is one.
   * @param {ort.InferenceSession} session
   * @param {{ ids: number[], typeIds: number[] }[]} rows
   */
  async pooled(session, rows) {
    const { feeds, width, mask } = this.feeds(rows);
    const unpadded = session === this.session && this.unpadded && rows.every((r) => r.ids.length === width) ? this.unpadded : session;
    const result = await unpadded.run(feeds, [this.output]);
    const out = result[this.output];
    const data = /** @type {Float32Array} */ (out.data);
    const dims = out.dims;
    const n = rows.length;
    const hidden = Number(dims[dims.length - 1]);
    const vectors = new Float32Array(n * hidden);
    if (dims.length === 2) {
      vectors.set(data.subarray(0, n * hidden));
    } else {
      for (let i = 0; i < n; i++) {
        const v = vectors.subarray(i * hidden, (i + 1) * hidden);
        if (this.descriptor.pooling === "cls") {
          v.set(data.subarray(i * width * hidden, i * width * hidden + hidden));
          continue;
        }
        let count = 0;
        for (let j = 0; j < width; j++) {
          if (mask[i * width + j] === 0n) continue;
          count++;
          const base = (i * width + j) * hidden;
          for (let k = 0; k < hidden; k++) v[k] += data[base + k];
        }
        const inv = 1 / Math.max(count, 1e-9);
        for (let k = 0; k < hidden; k++) v[k] *= inv;
      }
    }
    for (let i = 0; i < n; i++) {
      const v = vectors.subarray(i * hidden, (i + 1) * hidden);
      let norm = 0;
      for (let k = 0; k < hidden; k++) norm += v[k] * v[k];
      const inv = 1 / Math.max(Math.sqrt(norm), 1e-12);
      for (let k = 0; k < hidden; k++) v[k] *= inv;
    }
    for (const t of Object.values(result)) t.dispose?.();
    return vectors;
  }

  /**
   * Cross-encoder relevance logits, one per (query, passage) pair. A two-label head gives the log-odds
   * of the second label (relevant), which orders pairs the same way a one-logit head does.
   * @param {[string, string][]} pairs
   */
  async score(pairs) {
    const rows = pairs.map(([a, b]) => this.tokenizer.encodePair(a, b, this.descriptor.maxTokens));
    const { feeds } = this.feeds(rows);
    const result = await this.session.run(feeds, [this.output]);
    const out = result[this.output];
    const data = /** @type {Float32Array} */ (out.data);
    const labels = Number(out.dims[out.dims.length - 1]) || 1;
    const scores = new Float32Array(pairs.length);
    for (let i = 0; i < pairs.length; i++) scores[i] = labels === 1 ? data[i] : data[i * labels + 1] - data[i * labels];
    for (const t of Object.values(result)) t.dispose?.();
    return scores;
  }

  async release() {
    await this.session.release();
    await this.unpadded?.release();
  }
}
