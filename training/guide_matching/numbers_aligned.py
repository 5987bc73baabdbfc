"""An experiment on the shipped guide matcher, measured and not shipped (docs/EVALUATION.md, "Numbers aligned
before scoring"): does writing the new question's numbers into the guide question before scoring (when both
hold as many) let the matcher take "the same question with other values" without losing precision?

Reads the shipped int8 graph and its threshold, and prints, at that threshold, what the alignment changes on
the held-out training databases (the ones that chose the threshold), on Spider dev pairs and on the
robustness rewrites by class (checked only).

    /tmp/venv/bin/python training/guide_matching/numbers_aligned.py --base DIR
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys

import numpy as np
from transformers import AutoTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "schema_linking"))
from held_out import held_out_databases  # noqa: E402
from train_guide_matcher import REPO, all_pairs, curve, onnx_scores, robustness_pairs, spider_questions  # noqa: E402

NUM = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def align(guide: str, question: str) -> str:
    """The guide question with the new question's numbers in order, when both hold as many."""
    gn, qn = NUM.findall(guide), NUM.findall(question)
    if not gn or len(gn) != len(qn):
        return guide
    it = iter(qn)
    return NUM.sub(lambda m: next(it), guide)


def compare(name: str, pairs, model: str, tok, threshold: float) -> None:
    lab = np.array([p[2] for p in pairs])
    changed = [i for i, p in enumerate(pairs) if align(p[0], p[1]) != p[0]]
    raw = onnx_scores(model, tok, [(pairs[i][0], pairs[i][1]) for i in changed], 96)
    al = onnx_scores(model, tok, [(align(pairs[i][0], pairs[i][1]), pairs[i][1]) for i in changed], 96)
    sub = lab[changed]
    print(f"{name}: {len(pairs)} pairs, {len(changed)} changed by the alignment ({int(sub.sum())} positive); "
          f"among them raw {curve(sub, raw, [threshold])[0]}, aligned {curve(sub, al, [threshold])[0]}", flush=True)
    classes = sorted({p[3] for p in pairs if len(p) > 3 and p[3]})
    for c in classes:
        idx = [k for k, i in enumerate(changed) if pairs[i][3] == c]
        if idx:
            print(f"  {c}: raw {curve(sub[idx], raw[idx], [threshold])[0]}, aligned {curve(sub[idx], al[idx], [threshold])[0]}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="all-MiniLM-L6-v2 as a Hugging Face folder (its tokenizer)")
    ap.add_argument("--datasets", default=os.environ.get("DATASETS_DIR", os.path.join(REPO, "..", "shared", "datasets")))
    a = ap.parse_args()
    folder = os.path.join(REPO, "models", "guide-matcher")
    report = json.load(open(os.path.join(folder, "training-report.json")))
    threshold, seed = report["threshold"]["threshold"], report["params"]["seed"]
    model = os.path.join(folder, "onnx", "model_quantized.onnx")
    tok = AutoTokenizer.from_pretrained(a.base)
    train, dev = spider_questions(a.datasets)
    held = held_out_databases(train, seed)
    compare("held-out training databases", all_pairs([q for q in train if q["db_id"] in held]), model, tok, threshold)
    compare("Spider dev (checked only)", all_pairs(dev), model, tok, threshold)
    compare("robustness rewrites (checked only)", robustness_pairs(dev), model, tok, threshold)


if __name__ == "__main__":
    main()
