"""Builds the small ONNX models the model-runtime tests need, from the shared all-MiniLM-L6-v2 int8 graph.

    python3 tests/support/models/build_fixture_models.py <models_dir> <out_dir>

Writes, in the Hugging Face layout (<name>/onnx/model_quantized.onnx + tokenizer files):
  tiny-cross-encoder/   the embedder's embeddings and first transformer layer, then [CLS] -> linear -> one logit
                        ("logits" [batch, 1]): a sequence-classification model whose scores mean nothing but
                        depend on both texts of a pair, so tests can check pairing, batching, order and fallback;
  wrong-width-embedder/ the same first layer projected to 16 dimensions, offered as a 384-wide embedder;
  wrong-inputs-embedder/ a graph whose input is "pixel_values", offered as a text embedder;
  corrupt-embedder/     bytes that are not an ONNX model.
Needs only the `onnx` package (and numpy, its dependency). The weights of the heads are fixed (seeded).
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, utils

LAYER_OUTPUT = "/m/encoder/layer.0/output/LayerNorm/Add_1_output_0"
TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json"]


def first_layer(src, tmp):
    """The embeddings and layer 0 of the embedder, output = layer 0's hidden states [batch, seq, 384]."""
    utils.extract_model(src, tmp, ["input_ids", "attention_mask", "token_type_ids"], [LAYER_OUTPUT])
    return onnx.load(tmp)


def with_head(model, name, nodes, initializers, outputs):
    g = model.graph
    g.node.extend(nodes)
    g.initializer.extend(initializers)
    del g.output[:]
    g.output.extend(outputs)
    model.graph.name = name
    onnx.checker.check_model(model)
    return model


def write(out_dir, name, model_dir, model=None, raw=None):
    target = os.path.join(out_dir, name)
    os.makedirs(os.path.join(target, "onnx"), exist_ok=True)
    for f in TOKENIZER_FILES:
        if os.path.exists(os.path.join(model_dir, f)):
            shutil.copy(os.path.join(model_dir, f), os.path.join(target, f))
    path = os.path.join(target, "onnx", "model_quantized.onnx")
    if raw is not None:
        with open(path, "wb") as fh:
            fh.write(raw)
    else:
        onnx.save(model, path)


def main():
    models_dir, out_dir = sys.argv[1], sys.argv[2]
    src_dir = os.path.join(models_dir, "all-MiniLM-L6-v2")
    src = os.path.join(src_dir, "onnx", "model_quantized.onnx")
    os.makedirs(out_dir, exist_ok=True)
    tmp = os.path.join(out_dir, "layer0.onnx")
    rng = np.random.default_rng(13)

    # Cross-encoder: [CLS] state of layer 0 -> 384x1 linear -> logits [batch, 1].
    m = first_layer(src, tmp)
    w = numpy_helper.from_array((rng.standard_normal((384, 1)) * 0.2).astype(np.float32), "head.weight")
    b = numpy_helper.from_array(np.array([0.1], dtype=np.float32), "head.bias")
    idx = numpy_helper.from_array(np.array(0, dtype=np.int64), "head.cls_index")
    nodes = [
        helper.make_node("Gather", [LAYER_OUTPUT, "head.cls_index"], ["head.cls"], axis=1),
        helper.make_node("MatMul", ["head.cls", "head.weight"], ["head.matmul"]),
        helper.make_node("Add", ["head.matmul", "head.bias"], ["logits"]),
    ]
    out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", 1])
    write(out_dir, "tiny-cross-encoder", src_dir, with_head(m, "tiny-cross-encoder", nodes, [w, b, idx], [out]))

    # An embedder 16 wide: last_hidden_state [batch, seq, 16].
    m = first_layer(src, tmp)
    p = numpy_helper.from_array((rng.standard_normal((384, 16)) * 0.1).astype(np.float32), "proj.weight")
    nodes = [helper.make_node("MatMul", [LAYER_OUTPUT, "proj.weight"], ["last_hidden_state"])]
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch_size", "sequence_length", 16])
    write(out_dir, "wrong-width-embedder", src_dir, with_head(m, "wrong-width-embedder", nodes, [p], [out]))

    # An image model's input.
    x = helper.make_tensor_value_info("pixel_values", TensorProto.FLOAT, ["batch_size", 3, 8, 8])
    y = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch_size", 3, 8, 8])
    graph = helper.make_graph([helper.make_node("Identity", ["pixel_values"], ["last_hidden_state"])], "image", [x], [y])
    image = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    image.ir_version = 8
    write(out_dir, "wrong-inputs-embedder", src_dir, image)

    write(out_dir, "corrupt-embedder", src_dir, raw=b"this is not an ONNX model\n" * 64)
    os.remove(tmp)
    print("built", out_dir)


if __name__ == "__main__":
    main()
