// Self-attention fused into one onnxruntime operator, for the transformer graphs PyTorch exports.
//
// Why: a BERT-style encoder exported by recent PyTorch spells each layer's attention out in a dozen
// generic operators (reshapes and transposes of the heads, a scaled QKᵀ, an additive mask built from
// the attention mask in every layer, softmax, a NaN guard after it, the product with V, and the
// reshapes back). onnxruntime's own graph optimisations do not recognise this form (its transformer
// optimiser does not either), so on a CPU most of an int8 model's time goes to that glue rather than
// to its quantised matrix products: profiled on all-MiniLM-L6-v2 int8 (32 × 256 tokens), the mask's
// `Where` and the NaN guard alone took 29 % of the run. onnxruntime's `com.microsoft.MultiHeadAttention`
// computes the same attention from the projected Q, K and V in one kernel. Plain JavaScript: the
// inference worker loads it without a compiler (see model.mjs).
//
// The rewrite is exact arithmetic (the fp32 graph gives the same vectors to float precision), but it
// is checked by running both graphs before it is used (model.mjs), because a pattern can match a graph
// that means something else.
import onnxProto from "onnx-proto";

const { onnx } = onnxProto;

const MS_DOMAIN = "com.microsoft";

/**
 * @typedef {import("onnx-proto").onnx.INodeProto} NodeProto
 * @typedef {import("onnx-proto").onnx.ITensorProto} TensorProto
 * @typedef {{ fused: Uint8Array | null, layers: number, reason: string | null }} FusionResult
 * @typedef {{ hiddenSize?: number, heads?: number, mask?: boolean }} ModelShape  what the model's
 *   config.json says (hidden_size, num_attention_heads): PyTorch's export leaves the head count or the
 *   width to be inferred at run time (-1), so the graph alone may not tell it. `mask: false` builds
 *   the graph for batches without padding: attention without a key mask, which onnxruntime computes in
 *   a faster kernel (on all-MiniLM-L6-v2 int8, 32 × 256 tokens, one thread: about a fifth faster).
 */

/** @param {unknown} v */
function toNumber(v) {
  if (typeof v === "number") return v;
  if (v && typeof v === "object" && "toNumber" in v) return /** @type {{ toNumber(): number }} */ (v).toNumber();
  return Number(v);
}

/**
 * The numbers a small constant tensor holds (float or integer), or null for other types.
 * @param {TensorProto} t
 * @returns {number[] | null}
 */
function tensorValues(t) {
  const type = t.dataType ?? 0;
  const raw = t.rawData && t.rawData.length ? t.rawData : null;
  if (type === onnx.TensorProto.DataType.FLOAT) {
    if (!raw) return (t.floatData ?? []).map(Number);
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    return Array.from({ length: raw.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true));
  }
  if (type === onnx.TensorProto.DataType.INT64) {
    if (!raw) return (t.int64Data ?? []).map(toNumber);
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    return Array.from({ length: raw.byteLength / 8 }, (_, i) => Number(view.getBigInt64(i * 8, true)));
  }
  if (type === onnx.TensorProto.DataType.INT32) {
    if (!raw) return (t.int32Data ?? []).map(Number);
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    return Array.from({ length: raw.byteLength / 4 }, (_, i) => view.getInt32(i * 4, true));
  }
  return null;
}

/** @param {NodeProto} node @param {string} name */
function attribute(node, name) {
  return (node.attribute ?? []).find((a) => a.name === name) ?? null;
}

/** @param {NodeProto} node @param {string} name */
function intsAttribute(node, name) {
  const a = attribute(node, name);
  return a ? (a.ints ?? []).map(toNumber) : null;
}

/** The graph's producers, consumers and constant values, for walking patterns. */
class GraphIndex {
  /** @param {import("onnx-proto").onnx.IGraphProto} graph */
  constructor(graph) {
    this.graph = graph;
    /** @type {Map<string, NodeProto>} */
    this.producer = new Map();
    /** @type {Map<string, NodeProto[]>} */
    this.consumers = new Map();
    /** @type {Map<string, TensorProto>} */
    this.constants = new Map();
    for (const init of graph.initializer ?? []) if (init.name) this.constants.set(init.name, init);
    for (const node of graph.node ?? []) {
      for (const out of node.output ?? []) this.producer.set(out, node);
      for (const input of node.input ?? []) {
        if (!input) continue;
        const list = this.consumers.get(input) ?? [];
        list.push(node);
        this.consumers.set(input, list);
      }
      if (node.opType === "Constant" && node.output?.[0]) {
        const value = attribute(node, "value");
        if (value?.t) this.constants.set(node.output[0], value.t);
      }
    }
    this.graphOutputs = new Set((graph.output ?? []).map((o) => o.name ?? ""));
  }

  /** @param {string} name @param {string} [op] */
  from(name, op) {
    const node = this.producer.get(name);
    return node && (!op || node.opType === op) ? node : null;
  }

  /** The value of a constant scalar (one element), or null. @param {string} name */
  scalar(name) {
    const t = this.constants.get(name);
    const values = t ? tensorValues(t) : null;
    return values && values.length === 1 ? values[0] : null;
  }

  /** Whether the tensor is read by exactly one node and is no graph output. @param {string} name */
  usedOnce(name) {
    return (this.consumers.get(name)?.length ?? 0) === 1 && !this.graphOutputs.has(name);
  }

  /** The nodes that read a tensor's values (not only its shape). @param {string} name */
  readers(name) {
    return (this.consumers.get(name) ?? []).filter((n) => n.opType !== "Shape");
  }

  /** Like usedOnce, not counting `Shape` readers (an export reads the heads' shape to reshape them back). @param {string} name */
  usedOnceOrShape(name) {
    return this.readers(name).length === 1 && !this.graphOutputs.has(name);
  }

  /** The graph inputs a tensor is computed from, and whether a matrix product is on the way. @param {string} name */
  origins(name) {
    const inputs = new Set();
    let product = false;
    const seen = new Set();
    const stack = [name];
    while (stack.length) {
      const t = /** @type {string} */ (stack.pop());
      if (!t || seen.has(t)) continue;
      seen.add(t);
      const node = this.producer.get(t);
      if (!node) {
        if (!this.constants.has(t)) inputs.add(t);
        continue;
      }
      if (/MatMul|Gemm|Attention/.test(node.opType ?? "")) product = true;
      stack.push(...(node.input ?? []));
    }
    return { inputs, product };
  }
}

/**
 * Strips multiplications and divisions by a constant scalar off a tensor: the tensor under them and
 * the factor they apply.
 * @param {GraphIndex} g @param {string} name
 */
function unscaled(g, name) {
  let scale = 1;
  let current = name;
  for (;;) {
    const node = g.producer.get(current);
    if (!node || (node.opType !== "Mul" && node.opType !== "Div") || !g.usedOnce(current)) return { name: current, scale };
    const [a, b] = node.input ?? [];
    const cb = g.scalar(b);
    const ca = node.opType === "Mul" ? g.scalar(a) : null;
    if (cb !== null) {
      scale *= node.opType === "Mul" ? cb : 1 / cb;
      current = a;
    } else if (ca !== null) {
      scale *= ca;
      current = b;
    } else {
      return { name: current, scale };
    }
  }
}

/**
 * [batch, length, hidden] reshaped to [batch, length, heads, head size] and transposed with `perm`:
 * the projected tensor and the head count, or null.
 * @param {GraphIndex} g @param {string} name @param {number[]} perm
 */
function heads(g, name, perm) {
  const transpose = g.from(name, "Transpose");
  if (!transpose || !g.usedOnceOrShape(name)) return null;
  const p = intsAttribute(transpose, "perm");
  if (!p || p.join() !== perm.join()) return null;
  const reshape = g.from(transpose.input?.[0] ?? "", "Reshape");
  if (!reshape || !g.usedOnce(transpose.input?.[0] ?? "")) return null;
  const shape = targetShape(g, reshape.input?.[1] ?? "");
  // PyTorch writes one of the two as -1 (inferred); the hidden width behind the layer resolves it.
  if (!shape || shape.length !== 4 || !(shape[2] > 0 || shape[3] > 0)) return null;
  return { projected: /** @type {string} */ (reshape.input?.[0]), heads: shape[2], headSize: shape[3] };
}

/**
 * A reshape's target shape where its last two entries are constants (the first two are usually the
 * batch and length, computed from the input's shape): unknown entries are -1.
 * @param {GraphIndex} g @param {string} name
 * @returns {number[] | null}
 */
function targetShape(g, name) {
  const constant = g.constants.get(name);
  if (constant) return tensorValues(constant);
  const concat = g.from(name, "Concat");
  if (!concat) return null;
  return (concat.input ?? []).map((part) => {
    const t = g.constants.get(part);
    const values = t ? tensorValues(t) : null;
    return values && values.length === 1 ? values[0] : -1;
  });
}

/**
 * The head count the Q, K and V reshapes agree on, each giving the count or the head size (-1 for the
 * other), with the hidden width (-1 when unknown) to turn a head size into a count; null when they
 * disagree or it cannot be told.
 * @param {{ heads: number, headSize: number }[]} parts @param {number} hidden
 */
function headCount(parts, hidden) {
  const counts = new Set();
  const sizes = new Set();
  for (const { heads: h, headSize: d } of parts) {
    if (h > 0) counts.add(h);
    if (d > 0) sizes.add(d);
  }
  if (counts.size > 1 || sizes.size > 1) return null;
  const [h] = counts;
  const [d] = sizes;
  if (h && d && hidden > 0 && h * d !== hidden) return null;
  if (h) return h;
  return d && hidden > 0 && hidden % d === 0 ? hidden / d : null;
}

/**
 * Matches one layer's attention around its softmax:
 *   Softmax(Add(scale · Qₕ·Kₕᵀ, mask)) [→ Where(IsNaN(·), 0, ·)] · Vₕ [→ reshape] → transpose → reshape to [batch, length, hidden]
 * with Qₕ, Kₕ, Vₕ the heads of projected [batch, length, hidden] tensors and the mask computed from the
 * attention mask alone. Returns what MultiHeadAttention needs, or null when the layer is not in this form.
 * @param {GraphIndex} g @param {NodeProto} softmax @param {string} maskInput @param {ModelShape} modelShape
 */
function matchAttention(g, softmax, maskInput, modelShape) {
  const axis = attribute(softmax, "axis");
  if (axis && toNumber(axis.i) !== -1 && toNumber(axis.i) !== 3) return null;
  const logits = softmax.input?.[0] ?? "";
  const add = g.from(logits, "Add");
  if (!add || !g.usedOnce(logits)) return null;
  let scores = null;
  let mask = null;
  for (const [s, m] of [
    [add.input?.[0] ?? "", add.input?.[1] ?? ""],
    [add.input?.[1] ?? "", add.input?.[0] ?? ""],
  ]) {
    const origins = g.origins(m);
    if (origins.product || !origins.inputs.has(maskInput)) continue;
    const inner = unscaled(g, s);
    if (g.from(inner.name, "MatMul")) {
      scores = inner;
      mask = m;
      break;
    }
  }
  if (!scores || !mask) return null;
  const qk = /** @type {NodeProto} */ (g.from(scores.name, "MatMul"));
  const qSide = unscaled(g, qk.input?.[0] ?? "");
  const kSide = unscaled(g, qk.input?.[1] ?? "");
  const q = heads(g, qSide.name, [0, 2, 1, 3]);
  const k = heads(g, kSide.name, [0, 2, 3, 1]);
  if (!q || !k) return null;

  // The probabilities, past an optional guard that zeroes NaN (rows with every key masked).
  let probs = softmax.output?.[0] ?? "";
  const readers = g.consumers.get(probs) ?? [];
  if (readers.length === 2) {
    const isNan = readers.find((n) => n.opType === "IsNaN");
    const where = readers.find((n) => n.opType === "Where");
    if (!isNan || !where || where.input?.[0] !== isNan.output?.[0] || where.input?.[2] !== probs || g.scalar(where.input?.[1] ?? "") !== 0)
      return null;
    probs = where.output?.[0] ?? "";
  } else if (readers.length !== 1 || g.graphOutputs.has(probs)) {
    return null;
  }
  const pv = g.consumers.get(probs)?.[0];
  if (!pv || pv.opType !== "MatMul" || pv.input?.[0] !== probs || !g.usedOnce(probs)) return null;
  const v = heads(g, pv.input?.[1] ?? "", [0, 2, 1, 3]);
  if (!v) return null;

  // Heads back to [batch, length, hidden].
  let context = pv.output?.[0] ?? "";
  // PyTorch's scaled_dot_product_attention export reshapes the heads to their own 4-d shape first.
  const same = g.usedOnceOrShape(context) ? g.readers(context)[0] : null;
  if (same?.opType === "Reshape" && targetShape(g, same.input?.[1] ?? "")?.length === 4) context = same.output?.[0] ?? "";
  if (!g.usedOnceOrShape(context)) return null;
  const back = g.readers(context)[0];
  if (back?.opType !== "Transpose" || intsAttribute(back, "perm")?.join() !== "0,2,1,3") return null;
  const merged = g.consumers.get(back.output?.[0] ?? "") ?? [];
  if (merged.length !== 1 || merged[0].opType !== "Reshape") return null;
  const output = merged[0];
  const shape = targetShape(g, output.input?.[1] ?? "");
  if (!shape || shape.length !== 3) return null;
  const count = headCount([q, k, v], shape[2] > 0 ? shape[2] : (modelShape.hiddenSize ?? -1));
  if (count === null || (modelShape.heads && count !== modelShape.heads)) return null;

  return {
    output,
    query: q.projected,
    key: k.projected,
    value: v.projected,
    heads: count,
    scale: scores.scale * qSide.scale * kSide.scale,
  };
}

/**
 * Nodes that nothing left in the graph reads are dropped (in their order), then the initializers no
 * node reads.
 * @param {import("onnx-proto").onnx.IGraphProto} graph
 */
function pruneDeadNodes(graph) {
  const needed = new Set((graph.output ?? []).map((o) => o.name ?? ""));
  const live = new Set();
  const nodes = graph.node ?? [];
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i];
    if (!(node.output ?? []).some((o) => needed.has(o))) continue;
    live.add(node);
    for (const input of node.input ?? []) needed.add(input);
  }
  graph.node = nodes.filter((n) => live.has(n));
  graph.initializer = (graph.initializer ?? []).filter((t) => needed.has(t.name ?? ""));
}

/**
 * Rewrites every self-attention of a serialised ONNX model into `com.microsoft.MultiHeadAttention`
 * (onnxruntime's contrib operator: projected Q, K, V, a key padding mask, the head count and the
 * scale). `fused` is null, with the reason, when no layer is in the form this rewrite knows, or the
 * graph has no `attention_mask` input to mask padding with.
 * @param {Uint8Array} bytes
 * @param {ModelShape} [modelShape]
 * @returns {FusionResult}
 */
export function fuseAttention(bytes, modelShape = {}) {
  const model = onnx.ModelProto.decode(bytes);
  const graph = model.graph;
  if (!graph) return { fused: null, layers: 0, reason: "the file holds no graph" };
  const maskInput = (graph.input ?? []).find((i) => i.name === "attention_mask")?.name;
  if (!maskInput) return { fused: null, layers: 0, reason: "the graph takes no attention_mask" };
  if ((model.opsetImport ?? []).some((o) => (o.domain ?? "") === MS_DOMAIN && toNumber(o.version) !== 1)) {
    return { fused: null, layers: 0, reason: "the graph imports another version of onnxruntime's operators" };
  }
  const g = new GraphIndex(graph);
  const layers = (graph.node ?? [])
    .filter((n) => n.opType === "Softmax")
    .map((s) => matchAttention(g, s, maskInput, modelShape))
    .filter((m) => m !== null);
  if (!layers.length) return { fused: null, layers: 0, reason: "no self-attention in the form PyTorch exports was found" };

  const keyMask = `${maskInput}/int32_for_attention`;
  const replacement = new Map(
    layers.map((m) => [
      m.output,
      onnx.NodeProto.create({
        name: `${m.output.name ?? "attention"}/MultiHeadAttention`,
        opType: "MultiHeadAttention",
        domain: MS_DOMAIN,
        input: modelShape.mask === false ? [m.query, m.key, m.value] : [m.query, m.key, m.value, "", keyMask],
        output: [...(m.output.output ?? [])],
        attribute: [
          onnx.AttributeProto.create({ name: "num_heads", type: onnx.AttributeProto.AttributeType.INT, i: m.heads }),
          onnx.AttributeProto.create({ name: "scale", type: onnx.AttributeProto.AttributeType.FLOAT, f: m.scale }),
        ],
      }),
    ]),
  );
  const cast = onnx.NodeProto.create({
    name: `${keyMask}/Cast`,
    opType: "Cast",
    input: [maskInput],
    output: [keyMask],
    attribute: [
      onnx.AttributeProto.create({ name: "to", type: onnx.AttributeProto.AttributeType.INT, i: onnx.TensorProto.DataType.INT32 }),
    ],
  });
  // Each fused node takes the place of the reshape it replaces, after its inputs, so the order stays topological.
  graph.node = [...(modelShape.mask === false ? [] : [cast]), ...(graph.node ?? []).map((n) => replacement.get(n) ?? n)];
  pruneDeadNodes(graph);
  if (!(model.opsetImport ?? []).some((o) => (o.domain ?? "") === MS_DOMAIN)) {
    model.opsetImport = [...(model.opsetImport ?? []), onnx.OperatorSetIdProto.create({ domain: MS_DOMAIN, version: 1 })];
  }
  return { fused: onnx.ModelProto.encode(model).finish(), layers: layers.length, reason: null };
}
