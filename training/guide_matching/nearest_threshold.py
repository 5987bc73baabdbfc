"""The guide matcher's threshold where the product uses it: among the three guides nearest a question.

`train_guide_matcher.py` chooses the threshold over every pair of questions on a held-out database, most of
them far apart. A run never sees those pairs: it reads only the three guides whose questions the sentence
embedder puts nearest (lib/guides/retrieval.ts), and takes the one the matcher reads highest when it clears
the threshold. This script replays that decision on the same held-out fifth of the training databases, in two
libraries: every other question of the database is a guide (as after an analyst has imported a team's
questions), and the same without the guides of the question's own template (a library that does not know
it, where taking any guide is wrong). Per threshold it gives how many questions take a guide, how many of
those take one with their own template, and how often a question the library does not know takes one.
The product's later checks (every value named must be in the adapted query, the same polarity) only refuse
more, so these are the product's worst case. The product reads the threshold chosen here.

The robustness rewrites of dev questions (eval/robustness/spider.json) against their dev items as guides are
measured with the same replay, only to check: nothing is chosen on them.

Graph sources have no training split here, so their threshold is decided by cross-validation on
Text2Cypher's dev questions grouped by graph (`graph`): chosen on one graph, measured on the other. When
a held-out graph misses the bar, the report gives no graph threshold and the product matches a graph's
guides by words only.

    python training/guide_matching/nearest_threshold.py --base DIR   # adds `in_product` to models/guide-matcher/training-report.json
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys
from collections import defaultdict

import numpy as np
from transformers import AutoTokenizer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from held_out import held_out_databases  # noqa: E402
from train_guide_matcher import REPO, onnx_scores, sha256, spider_questions, template  # noqa: E402


def embed(path: str, tok, texts: list[str]) -> np.ndarray:
    """The shared sentence embedder as the product runs it: mean of the token vectors, unit length."""
    import onnxruntime as ort

    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = {i.name for i in sess.get_inputs()}
    out = []
    for b in range(0, len(texts), 128):
        enc = tok(texts[b : b + 128], truncation=True, max_length=128, padding=True, return_tensors="np")
        feed = {k: enc[k].astype(np.int64) for k in ["input_ids", "attention_mask", "token_type_ids"] if k in names}
        h = sess.run(None, feed)[0]
        m = enc["attention_mask"][..., None].astype(np.float32)
        v = (h * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        out.append(v / np.linalg.norm(v, axis=1, keepdims=True))
    return np.concatenate(out)


def replay(asked: list[dict], pools: dict[str, list[dict]], vec: dict[str, np.ndarray], matcher: str, tok, k: int, absent: bool = False):
    """Per asked question: its k nearest guides (another text than its own), and the matcher's reading of each.
    Returns rows (best logit, whether that guide has the asked question's template, whether any of the k has).
    `absent`: no guide shares the question's template (a library that does not know the question)."""
    pairs, owners = [], []
    for qi, q in enumerate(asked):
        pool = [g for g in pools[q["db_id"]] if g["question"].strip() != q["question"].strip() and not (absent and g["template"] == q["template"])]
        if not pool:
            continue
        sims = np.array([float(vec[q["question"]] @ vec[g["question"]]) for g in pool])
        for j in np.argsort(-sims, kind="stable")[:k]:
            pairs.append((pool[j]["question"], q["question"]))
            owners.append((qi, pool[j]["template"] == q["template"]))
    logits = onnx_scores(matcher, tok, pairs, 96)
    best: dict[int, tuple[float, bool]] = {}
    reachable: dict[int, bool] = defaultdict(bool)
    for (qi, same), s in zip(owners, logits):
        reachable[qi] |= same
        if qi not in best or s > best[qi][0]:
            best[qi] = (float(s), same)
    return [(s, same, reachable[qi]) for qi, (s, same) in best.items()]


def curve(rows, thresholds) -> list[dict]:
    n = len(rows)
    reachable = sum(1 for r in rows if r[2])
    out = []
    for t in thresholds:
        taken = [r for r in rows if r[0] >= t]
        right = sum(1 for r in taken if r[1])
        out.append({"threshold": round(float(t), 3), "asked": n, "reachable": reachable, "taken": len(taken), "right": right,
                    "precision": round(right / len(taken), 4) if taken else None,
                    "recall": round(right / max(1, reachable), 4)})
    return out


def cypher_template(cypher: str) -> str:
    """A Cypher query with its values masked, its variables and aliases renamed in order of appearance and
    its spelling normalised: two equivalent writings of one pattern compare equal more often (not always:
    a question answered by another pattern still counts as another template, so precision is a floor)."""
    s = cypher
    names: list[str] = []
    for m in re.finditer(r"[(\[]\s*([A-Za-z_]\w*)\s*(?=[:)\]{])", s):
        if m.group(1) not in names:
            names.append(m.group(1))
    for i, n in enumerate(names):
        s = re.sub(rf"(?<![\w.:]){re.escape(n)}\b", f"v{i}", s)
    s = re.sub(r"(?i)\s+as\s+\w+", "", s)
    s = re.sub(r"'(?:[^'\\]|\\.)*'", "'v'", s)
    s = re.sub(r'"[^"]*"', "'v'", s)
    s = re.sub(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])", "n", s)
    s = re.sub(r"\s+", " ", s.lower()).strip()
    return re.sub(r"\s*([(),=<>!*:{}\[\]-])\s*", r"\1", s)


def choose(rows: list[dict], precision: float, absent_rate: float) -> dict | None:
    ok = [r for r in rows if r["precision"] is not None and r["taken"] >= 20 and r["precision"] >= precision and r["absentTakeRate"] <= absent_rate]
    return min(ok, key=lambda r: r["threshold"]) if ok else None


def two_libraries(asked: list[dict], vec, matcher: str, tok, nearest: int, thresholds) -> list[dict]:
    """The replay's curve with every other question of the database as a guide, and per threshold the share of
    questions that take a guide when their own template's guides are left out."""
    pools = defaultdict(list)
    for q in asked:
        pools[q["db_id"]].append(q)
    known = curve(replay(asked, pools, vec, matcher, tok, nearest), thresholds)
    unknown = curve(replay(asked, pools, vec, matcher, tok, nearest, absent=True), thresholds)
    for k, u in zip(known, unknown):
        k["absentTakeRate"] = round(u["taken"] / max(1, u["asked"]), 4)
    return known


def graph_check(datasets: str, tok, matcher: str, models: str, nearest: int, precision: float, absent_rate: float, thresholds) -> dict:
    """Graph questions have no training split here: Text2Cypher's dev questions, grouped by graph (movies,
    northwind). Each graph's threshold is chosen on the other and measured on it; the product takes the
    matcher's word on a graph's guides only if both held-out graphs reach the bar with it."""
    rows = list(csv.DictReader(open(os.path.join(datasets, "text2cypher", "movies-northwind-dev.csv"))))
    qs = [{"question": r["question"], "db_id": r["database"], "template": cypher_template(r["cypher"])} for r in rows]
    texts = sorted({q["question"] for q in qs})
    vec = dict(zip(texts, embed(os.path.join(models, "all-MiniLM-L6-v2", "onnx", "model.onnx"), tok, texts)))
    graphs = sorted({q["db_id"] for q in qs})
    curves = {g: two_libraries([q for q in qs if q["db_id"] == g], vec, matcher, tok, nearest, thresholds) for g in graphs}
    folds = {}
    for g in graphs:
        other = [h for h in graphs if h != g]
        chosen = choose(curves[other[0]], precision, absent_rate) if len(other) == 1 else None
        folds[g] = {"chosen_on": other, "threshold": chosen and chosen["threshold"],
                    "held_out": next((r for r in curves[g] if chosen and r["threshold"] == chosen["threshold"]), None)}
    held = [f["held_out"] for f in folds.values()]
    ok = all(h is not None and h["precision"] is not None and h["precision"] >= precision and h["absentTakeRate"] <= absent_rate for h in held)
    pooled = two_libraries(qs, vec, matcher, tok, nearest, thresholds)
    return {"questions": len(qs), "graphs": graphs, "curves": curves, "folds": folds,
            "threshold": choose(pooled, precision, absent_rate) if ok else None}


def in_product(held_qs: list[dict], dev: list[dict], tok, matcher: str, models: str, datasets: str, nearest: int = 3,
               precision: float = 0.95, absent_rate: float = 0.05) -> dict:
    """The replay on held-out training questions (`held_qs`, templates set) in two libraries: one holding every
    other question of the database, one without the question's own template. The threshold is the loosest
    whose precision in the first reaches `precision` and whose rate of taking a guide in the second stays
    within `absent_rate`: a question the library does not know takes a guide at most once in twenty."""
    rob = json.load(open(os.path.join(REPO, "eval", "robustness", "spider.json")))["items"]
    rob_qs = [{"question": it["question"], "db_id": dev[it["dev"]]["db_id"], "template": template(it.get("query") or dev[it["dev"]]["query"]),
               "class": it["class"]} for it in rob]
    guides = [dev[i] for i in sorted({it["dev"] for it in rob})]
    texts = sorted({q["question"] for q in held_qs + rob_qs + guides})
    vec = dict(zip(texts, embed(os.path.join(models, "all-MiniLM-L6-v2", "onnx", "model.onnx"), tok, texts)))
    thresholds = np.arange(-4.0, 6.01, 0.25)

    known = two_libraries(held_qs, vec, matcher, tok, nearest, thresholds)
    chosen = choose(known, precision, absent_rate)

    rob_pools = defaultdict(list)
    for g in guides:
        rob_pools[g["db_id"]].append(g)
    rob_curve = curve(replay(rob_qs, rob_pools, vec, matcher, tok, nearest), thresholds)
    return {"nearest": nearest, "criteria": {"precision": precision, "absentTakeRate": absent_rate},
            "matcher_sha256": sha256(matcher), "threshold": chosen, "held_out": known,
            "robustness_check": rob_curve,
            "graph": graph_check(datasets, tok, matcher, models, nearest, precision, absent_rate, thresholds)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="all-MiniLM-L6-v2 as a Hugging Face folder (its tokenizer)")
    ap.add_argument("--datasets", default=os.environ.get("DATASETS_DIR", os.path.join(REPO, "..", "shared", "datasets")))
    ap.add_argument("--models", default=os.environ.get("MODELS_DIR", os.path.join(REPO, "..", "shared", "models")))
    ap.add_argument("--dir", default=os.path.join(REPO, "models", "guide-matcher"), help="the matcher's folder: its report gains `in_product`")
    ap.add_argument("--seed", type=int, default=7, help="the matcher's training seed: it drew the held-out databases")
    a = ap.parse_args()
    tok = AutoTokenizer.from_pretrained(a.base)
    train, dev = spider_questions(a.datasets)
    held = held_out_databases(train, a.seed)
    report_path = os.path.join(a.dir, "training-report.json")
    report = json.load(open(report_path))
    report["in_product"] = in_product([q for q in train if q["db_id"] in held], dev, tok,
                                      os.path.join(a.dir, "onnx", "model_quantized.onnx"), a.models, a.datasets)
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    at = report["in_product"]["threshold"]
    rob = next((r for r in report["in_product"]["robustness_check"] if at and r["threshold"] == at["threshold"]), None)
    print(json.dumps({"threshold": at, "robustness_check": rob, "graph": {k: report["in_product"]["graph"][k] for k in ("folds", "threshold")}}, indent=1))


if __name__ == "__main__":
    main()
