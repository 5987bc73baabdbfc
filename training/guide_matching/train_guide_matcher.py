"""Fine-tunes all-MiniLM-L6-v2 into Mosaic's guide matcher: a cross-encoder that reads an analyst's guide
question beside a new question on the same source and gives the log-odds that one query template answers
both (the same SQL once its literal values are masked: values are the guide's slots, adapted apart).

Why a learned matcher: a guide's query becomes the committed answer only when the two questions are the
same question. Words alone (lexical overlap, masked-template Dice) miss paraphrases ("How many vocalists
do we have?" for a guide "How many singers are there?"), and the embedder's cosine finds questions built
alike that ask other things ("above 18" / "below 18"). Spider's training split holds many questions with
the same SQL written by different people, and many on one database that differ in one word: exactly the
pairs to learn from.

Pairs come from Spider's training questions only (train-questions.json, 138 databases): positives are two
questions on one database whose gold queries share a template, negatives are questions on that database
with another template, the hardest first (most words in common). Four fifths of the training databases
are fitted; the held-out fifth (whole databases the model never saw) gives the figures: over all its pairs
(`threshold`: the loosest whose precision reaches --precision), and where the product decides, among the
three guides nearest a question (`in_product`, nearest_threshold.py: the threshold the product uses). Spider dev
and the repository's robustness rewrites of dev questions (eval/robustness/spider.json: a dev question
and its rewrite share the gold template) are measured only, never fitted on.

    python training/guide_matching/train_guide_matcher.py --base DIR --out OUT

Deterministic for a given seed on one machine (torch.use_deterministic_algorithms; base weights rounded
to half precision first, as the schema linker's script does).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import defaultdict

import numpy as np
import torch
from transformers import AutoTokenizer

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "schema_linking"))
from train_column_scorer import auc, export_checked, onnx_logits, sha256, train_pairs  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from held_out import held_out_databases  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))


def template(sql: str) -> str:
    """The query with its values masked and its spelling normalised: two questions with the same template
    are answered by one guide query with its slots filled."""
    s = re.sub(r"'(?:[^']|'')*'", "'v'", sql)
    s = re.sub(r'"[^"]*"', "'v'", s)
    s = re.sub(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])", "n", s)
    s = s.lower().replace("<>", "!=")
    s = re.sub(r"\s+", " ", s).strip().rstrip(";").strip()
    return re.sub(r"\s*([(),=<>!*])\s*", r"\1", s)


def spider_questions(datasets: str) -> tuple[list[dict], list[dict]]:
    """Spider's training and dev questions, each with its gold query's template."""
    spider = os.path.join(datasets, "spider")
    train = json.load(open(os.path.join(spider, "train-questions.json")))
    dev = json.load(open(os.path.join(spider, "dev-questions.json")))
    for q in train + dev:
        q["template"] = template(q["query"])
    return train, dev


WORD = re.compile(r"[a-z0-9]+")


def words(q: str) -> set[str]:
    return set(WORD.findall(q.lower()))


def dice(a: set[str], b: set[str]) -> float:
    return 2 * len(a & b) / max(1, len(a) + len(b))


def all_pairs(questions: list[dict]) -> list[tuple[str, str, int]]:
    """Every pair of distinct questions on one database, labelled by whether their templates agree."""
    by_db = defaultdict(list)
    for q in questions:
        by_db[q["db_id"]].append(q)
    out = []
    for qs in by_db.values():
        for i in range(len(qs)):
            for j in range(i + 1, len(qs)):
                if qs[i]["question"].strip() == qs[j]["question"].strip():
                    continue
                out.append((qs[i]["question"], qs[j]["question"], int(qs[i]["template"] == qs[j]["template"])))
    return out


def training_pairs(questions: list[dict], hard: int, easy: int, rng: random.Random) -> list[tuple[str, str, float]]:
    """Every positive pair (in a random order), and per question `hard` negatives with the most words in
    common plus `easy` drawn at random from its database."""
    by_db = defaultdict(list)
    for q in questions:
        by_db[q["db_id"]].append(q)
    out = []
    for qs in by_db.values():
        ws = [words(q["question"]) for q in qs]
        for i, q in enumerate(qs):
            for j in range(i + 1, len(qs)):
                if q["template"] == qs[j]["template"] and q["question"].strip() != qs[j]["question"].strip():
                    a, b = (q["question"], qs[j]["question"]) if rng.random() < 0.5 else (qs[j]["question"], q["question"])
                    out.append((a, b, 1.0))
            others = [j for j in range(len(qs)) if qs[j]["template"] != q["template"]]
            ranked = sorted(others, key=lambda j: (-dice(ws[i], ws[j]), j))
            take = ranked[:hard]
            rest = ranked[hard:]
            rng.shuffle(rest)
            take += rest[:easy]
            for j in take:
                a, b = (q["question"], qs[j]["question"]) if rng.random() < 0.5 else (qs[j]["question"], q["question"])
                out.append((a, b, 0.0))
    rng.shuffle(out)
    return out


def curve(labels: np.ndarray, scores: np.ndarray, thresholds) -> list[dict]:
    rows = []
    for t in thresholds:
        taken = scores >= t
        tp = int((taken & (labels == 1)).sum())
        n = int(taken.sum())
        rows.append({"threshold": round(float(t), 3), "taken": n, "right": tp,
                     "precision": round(tp / n, 4) if n else None, "recall": round(tp / max(1, int(labels.sum())), 4)})
    return rows


def loosest(rows: list[dict], precision: float, min_taken: int) -> dict | None:
    ok = [r for r in rows if r["precision"] is not None and r["taken"] >= min_taken and r["precision"] >= precision]
    return min(ok, key=lambda r: r["threshold"]) if ok else None


def onnx_scores(path: str, tok, pairs, max_len: int) -> np.ndarray:
    """The shipped graph's reading of each pair, both orders averaged as the product does: which question is
    the guide's must not matter."""
    return (onnx_logits(path, tok, [(p[0], p[1]) for p in pairs], max_len) + onnx_logits(path, tok, [(p[1], p[0]) for p in pairs], max_len)) / 2


def robustness_pairs(dev: list[dict]) -> list[tuple[str, str, int]]:
    """Each rewrite beside its own dev question (positive: one gold template) and beside every other dev
    question of its database whose template differs (negative)."""
    rob = json.load(open(os.path.join(REPO, "eval", "robustness", "spider.json")))["items"]
    by_db = defaultdict(list)
    for q in dev:
        by_db[q["db_id"]].append(q)
    out = []
    for it in rob:
        own = dev[it["dev"]]
        t = template(it.get("query") or own["query"])
        for q in by_db[own["db_id"]]:
            if q is own:
                out.append((q["question"], it["question"], 1, it["class"]))
            elif q["template"] != t:
                out.append((q["question"], it["question"], 0, it["class"]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="all-MiniLM-L6-v2 as a Hugging Face folder")
    ap.add_argument("--out", required=True)
    ap.add_argument("--datasets", default=os.environ.get("DATASETS_DIR", os.path.join(REPO, "..", "shared", "datasets")))
    ap.add_argument("--models", default=os.environ.get("MODELS_DIR", os.path.join(REPO, "..", "shared", "models")), help="the sentence embedder that finds the nearest guides")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--hard", type=int, default=2)
    ap.add_argument("--easy", type=int, default=1)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--head-lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--max-len", type=int, default=96)
    ap.add_argument("--precision", type=float, default=0.9, help="held-out precision the product's threshold must reach")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--value-swaps", type=int, default=1, help="per question, positive pairs with one value swapped (value_swaps.py); 0: none, as the matcher shipped before them")
    ap.add_argument("--limit", type=int, default=0, help="training questions to use (0: all); for a quick check of the script")
    a = ap.parse_args()
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    random.seed(a.seed)
    np.random.seed(a.seed)
    device = torch.device("cpu")

    train, dev = spider_questions(a.datasets)
    held = held_out_databases(train, a.seed)
    fit_qs = [q for q in train if q["db_id"] not in held]
    held_qs = [q for q in train if q["db_id"] in held]
    if a.limit:
        fit_qs, held_qs = fit_qs[: a.limit], held_qs[: max(50, a.limit // 4)]
    tok = AutoTokenizer.from_pretrained(a.base)
    rng = random.Random(a.seed)
    epochs = [training_pairs(fit_qs, a.hard, a.easy, rng) for _ in range(a.epochs)]
    if a.value_swaps:
        from value_swaps import value_swapped

        for e in epochs:
            e += value_swapped(fit_qs, os.path.join(a.datasets, "spider", "database"), rng, a.value_swaps)
            rng.shuffle(e)
    print(f"fitting on {len(fit_qs)} questions of {len({q['db_id'] for q in fit_qs})} databases: {len(epochs[0])} pairs per epoch "
          f"({int(sum(p[2] for p in epochs[0]))} positive)", flush=True)
    t0 = time.time()
    model = train_pairs(a, tok, epochs, device, a.seed, log_every=50)
    report = {"params": vars(a) | {"base": os.path.basename(os.path.normpath(a.base))}, "device": "cpu",
              "fitted": {"databases": len({q["db_id"] for q in fit_qs}), "questions": len(fit_qs), "pairs": len(epochs[0])}}
    report["fit_seconds"] = round(time.time() - t0)

    held_pairs = all_pairs(held_qs)
    report["export_checks"] = export_checked(
        model, tok, a.out, [(p[0], p[1]) for p in held_pairs[:1500]], ("how many singers are there", "count the singers"), a.max_len
    )
    int8 = os.path.join(a.out, "model_quantized.onnx")
    # Every figure below is the shipped int8 graph's, as the product runs it (both orders averaged).
    thresholds = np.arange(-2.0, 6.01, 0.25)
    hl = np.array([p[2] for p in held_pairs])
    hs = onnx_scores(int8, tok, held_pairs, a.max_len)
    held_curve = curve(hl, hs, thresholds)
    chosen = loosest(held_curve, a.precision, 20)
    report["held_out"] = {"databases": len(held), "questions": len(held_qs), "pairs": len(held_pairs), "positives": int(hl.sum()),
                          "auc": round(auc(hl, hs), 4), "curve": held_curve}
    report["threshold"] = chosen
    print(f"held out: auc {report['held_out']['auc']}, chosen {chosen}", flush=True)

    dev_pairs = all_pairs(dev)
    dl = np.array([p[2] for p in dev_pairs])
    ds = onnx_scores(int8, tok, dev_pairs, a.max_len)
    report["dev_check"] = {"pairs": len(dev_pairs), "positives": int(dl.sum()), "auc": round(auc(dl, ds), 4),
                           "at_threshold": curve(dl, ds, [chosen["threshold"]])[0] if chosen else None}
    rob = robustness_pairs(dev)
    rl = np.array([p[2] for p in rob])
    rs = onnx_scores(int8, tok, [(p[0], p[1]) for p in rob], a.max_len)
    report["robustness_check"] = {"pairs": len(rob), "positives": int(rl.sum()), "auc": round(auc(rl, rs), 4)}
    if chosen:
        report["robustness_check"]["at_threshold"] = curve(rl, rs, [chosen["threshold"]])[0]
        report["robustness_check"]["by_class"] = {
            c: curve(np.array([p[2] for p in rob if p[3] == c]), rs[[i for i, p in enumerate(rob) if p[3] == c]], [chosen["threshold"]])[0]
            for c in sorted({p[3] for p in rob})
        }
    # The threshold the product uses is chosen where it decides: among the three nearest guides.
    from nearest_threshold import in_product

    report["in_product"] = in_product(held_qs, dev, tok, int8, a.models, a.datasets)
    report["artefacts"] = {n: {"bytes": os.path.getsize(os.path.join(a.out, n)), "sha256": sha256(os.path.join(a.out, n))}
                           for n in ["model.onnx", "model_quantized.onnx"]}
    report["seconds"] = round(time.time() - t0)
    with open(os.path.join(a.out, "training-report.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps({k: report[k] for k in ["threshold", "dev_check", "robustness_check", "in_product", "artefacts", "export_checks"]}, indent=1), flush=True)


if __name__ == "__main__":
    main()
