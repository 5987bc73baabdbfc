"""Fine-tunes all-MiniLM-L6-v2 into Mosaic's schema-item scorer: a cross-encoder that reads a question
beside one table or column of a database ("age of singer") and scores how likely the query answering
the question reads it. Learned from the Spider training questions (their gold SQL says which items
they read: build_items.py); the dev databases are never seen in fitting.

Reports grouped K-fold figures over the training databases (each fold's databases held out: how the
scorer does on schemas it never saw), then fits on every training database, measures on Spider dev,
exports ONNX (fp32 and dynamic int8, checked against PyTorch) and writes a manifest with checksums.

    python training/schema_linking/train_column_scorer.py --base DIR --items training/.cache/schema-items.json.gz --out OUT

Deterministic for a given seed and device (torch.use_deterministic_algorithms); the base weights are
rounded to half precision first, so every run starts from the same numbers however they were carried.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import os
import random
import time

import numpy as np
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer


def load_items(path: str) -> dict:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def examples(questions: list[dict], negatives: int, rng: random.Random) -> list[tuple[str, str, float]]:
    """Every used item, and up to `negatives` unused ones per question: half from the tables the query
    reads (the hard ones: a sibling column of the right table), half from anywhere in the database."""
    out = []
    for q in questions:
        used_tables = {it["table"] for it in q["items"] if it["label"] and it["kind"] == "table"}
        pos = [it for it in q["items"] if it["label"]]
        neg = [it for it in q["items"] if not it["label"]]
        hard = [it for it in neg if it["table"] in used_tables]
        easy = [it for it in neg if it["table"] not in used_tables]
        rng.shuffle(hard)
        rng.shuffle(easy)
        take = hard[: negatives // 2]
        take += easy[: negatives - len(take)]
        if len(take) < negatives:
            take += hard[negatives // 2 : negatives // 2 + negatives - len(take)]
        out += [(q["question"], it["text"], 1.0) for it in pos] + [(q["question"], it["text"], 0.0) for it in take]
    rng.shuffle(out)
    return out


def base_model(base: str, device: torch.device):
    # Loaded in fp32 whatever the files hold (a half-precision copy is what travels to a GPU machine).
    model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=1).float()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if not name.startswith("classifier."):
                p.copy_(p.half().float())
    return model.to(device)


def fit(args, tok, train_qs: list[dict], device: torch.device, seed: int):
    rng = random.Random(seed)
    return train_pairs(args, tok, [examples(train_qs, args.negatives, rng) for _ in range(args.epochs)], device, seed)


def train_pairs(args, tok, data: list[list[tuple[str, str, float]]], device: torch.device, seed: int, log_every: int = 0):
    """Fine-tunes the base model as a cross-encoder on labelled text pairs, one list per epoch: AdamW with a
    larger rate for the new head, linear warm-up and decay, gradients clipped at 1. Shared by this folder's
    scorers (training/guide_matching too)."""
    torch.manual_seed(seed)
    model = base_model(args.base, device)
    model.train()
    head = [p for n, p in model.named_parameters() if n.startswith("classifier.")]
    body = [p for n, p in model.named_parameters() if not n.startswith("classifier.")]
    opt = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": head, "lr": args.head_lr}], weight_decay=0.01)
    bases = [args.lr, args.head_lr]
    total = sum(math.ceil(len(d) / args.batch) for d in data)
    step = 0
    t0 = time.time()
    for epoch, d in enumerate(data):
        losses = []
        for b in range(0, len(d), args.batch):
            batch = d[b : b + args.batch]
            f = min(1.0, (step + 1) / args.warmup) * max(0.0, 1 - step / total)
            for g, base in zip(opt.param_groups, bases):
                g["lr"] = base * f
            enc = tok([x[0] for x in batch], [x[1] for x in batch], truncation=True, max_length=args.max_len, padding=True, return_tensors="pt").to(device)
            logits = model(**enc).logits.view(-1)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, torch.tensor([x[2] for x in batch], device=device))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
            step += 1
            if log_every and step % log_every == 0:
                print(f"  step {step}/{total}: loss {np.mean(losses[-log_every:]):.4f}, {time.time() - t0:.0f} s", flush=True)
        print(f"  epoch {epoch}: {len(d)} pairs, loss {np.mean(losses):.4f}, {time.time() - t0:.0f} s", flush=True)
    model.eval()
    return model


@torch.no_grad()
def score(model, tok, pairs: list[tuple[str, str]], device: torch.device, batch=512, max_len=64) -> np.ndarray:
    out = []
    for b in range(0, len(pairs), batch):
        chunk = pairs[b : b + batch]
        enc = tok([p[0] for p in chunk], [p[1] for p in chunk], truncation=True, max_length=max_len, padding=True, return_tensors="pt").to(device)
        out.append(model(**enc).logits.view(-1).float().cpu().numpy())
    return np.concatenate(out) if out else np.zeros(0)


def auc(labels: np.ndarray, scores: np.ndarray) -> float:
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def evaluate(questions: list[dict], scores_of) -> dict:
    """Per question over every item of its database: ROC AUC (all items pooled), and the share of
    questions whose used columns all rank within the top k of their columns (k = how many it uses + 2),
    the recall of used columns among each question's top (n used) columns, and the same for tables;
    plus precision and recall at a probability of 0.5."""
    labels_all, scores_all = [], []
    col_all_in, col_recall, tab_recall, tp, fp, fn = 0, [], [], 0, 0, 0
    for q in questions:
        s = scores_of(q)
        labels = np.array([it["label"] for it in q["items"]])
        labels_all.append(labels)
        scores_all.append(s)
        for kind, bucket in (("column", col_recall), ("table", tab_recall)):
            idx = [i for i, it in enumerate(q["items"]) if it["kind"] == kind]
            used = [i for i in idx if labels[i]]
            if not used:
                continue
            ranked = sorted(idx, key=lambda i: -s[i])
            bucket.append(len(set(ranked[: len(used)]) & set(used)) / len(used))
            if kind == "column" and set(used) <= set(ranked[: len(used) + 2]):
                col_all_in += 1
        pred = s > 0
        tp += int((pred & (labels == 1)).sum())
        fp += int((pred & (labels == 0)).sum())
        fn += int((~pred & (labels == 1)).sum())
    n_with_cols = sum(1 for q in questions if any(it["label"] and it["kind"] == "column" for it in q["items"]))
    return {
        "questions": len(questions),
        "auc": round(auc(np.concatenate(labels_all), np.concatenate(scores_all)), 4),
        "column_recall_at_n": round(float(np.mean(col_recall)), 4),
        "columns_all_in_top_n_plus_2": round(col_all_in / max(1, n_with_cols), 4),
        "table_recall_at_n": round(float(np.mean(tab_recall)), 4),
        "precision_at_half": round(tp / max(1, tp + fp), 4),
        "recall_at_half": round(tp / max(1, tp + fn), 4),
    }


def model_scores(model, tok, device, max_len):
    def run(q):
        return score(model, tok, [(q["question"], it["text"]) for it in q["items"]], device, max_len=max_len)

    return run


def folds_by_database(questions: list[dict], k: int, seed: int) -> list[set[str]]:
    dbs = sorted({q["db_id"] for q in questions})
    random.Random(seed).shuffle(dbs)
    return [set(dbs[i::k]) for i in range(k)]


def export(model, tok, out: str, dev_qs: list[dict], device) -> dict:
    # Checked against PyTorch on dev pairs.
    pairs = [(q["question"], it["text"]) for q in dev_qs[:60] for it in q["items"]][:2000]
    return export_checked(model, tok, out, pairs, ("how old is the singer", "age of singer"), 64)


def onnx_logits(path: str, tok, pairs: list[tuple[str, str]], max_len: int) -> np.ndarray:
    """The exported graph's logits, as onnxruntime gives them (the product runs the same graph)."""
    import onnxruntime as ort

    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = []
    for b in range(0, len(pairs), 256):
        enc = tok([p[0] for p in pairs[b : b + 256]], [p[1] for p in pairs[b : b + 256]], truncation=True, max_length=max_len, padding=True, return_tensors="np")
        got.append(sess.run(["logits"], {k: enc[k].astype(np.int64) for k in ["input_ids", "attention_mask", "token_type_ids"]})[0].reshape(-1))
    return np.concatenate(got) if got else np.zeros(0)


def export_checked(model, tok, out: str, pairs: list[tuple[str, str]], sample: tuple[str, str], max_len: int) -> dict:
    """Exports ONNX (fp32, and dynamic int8 per channel) and checks both graphs against PyTorch on `pairs`."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    os.makedirs(out, exist_ok=True)
    model = model.to("cpu").float().eval()
    fp32 = os.path.join(out, "model.onnx")
    int8 = os.path.join(out, "model_quantized.onnx")
    enc = tok([sample[0]], [sample[1]], return_tensors="pt")
    torch.onnx.export(
        model,
        (enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]),
        fp32,
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits"],
        dynamic_axes={n: {0: "batch_size", 1: "sequence_length"} for n in ["input_ids", "attention_mask", "token_type_ids"]} | {"logits": {0: "batch_size"}},
        opset_version=14,
        dynamo=False,
    )
    quantize_dynamic(fp32, int8, weight_type=QuantType.QInt8, per_channel=True)
    ref = score(model, tok, pairs, torch.device("cpu"), max_len=max_len)
    checks = {}
    for name, path in (("fp32", fp32), ("int8", int8)):
        got = onnx_logits(path, tok, pairs, max_len)
        checks[name] = {
            "max_abs_diff": round(float(np.abs(got - ref).max()), 5),
            "pearson": round(float(np.corrcoef(got, ref)[0, 1]), 6),
            "same_side_of_zero": round(float(np.mean((got > 0) == (ref > 0))), 5),
        }
    return checks


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="all-MiniLM-L6-v2 as a Hugging Face folder")
    ap.add_argument("--items", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--negatives", type=int, default=12)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--head-lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--max-len", type=int, default=64)
    ap.add_argument("--folds", type=int, default=5, help="grouped by database; 0 skips the cross-validation")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--limit", type=int, default=0, help="train questions to use (0: all); for a quick check of the script")
    a = ap.parse_args()
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type == "cpu":
        torch.set_num_threads(max(1, os.cpu_count() or 1))
    random.seed(a.seed)
    np.random.seed(a.seed)
    data = load_items(a.items)
    train_qs, dev_qs = data["train"], data["dev"]
    if a.limit:
        train_qs = train_qs[: a.limit]
        dev_qs = dev_qs[: max(20, a.limit // 10)]
    tok = AutoTokenizer.from_pretrained(a.base)
    report = {"device": str(torch.cuda.get_device_name(0) if device.type == "cuda" else "cpu"), "params": vars(a), "folds": []}
    t0 = time.time()
    if a.folds:
        for i, held in enumerate(folds_by_database(train_qs, a.folds, a.seed)):
            print(f"fold {i}: {len(held)} databases held out", flush=True)
            model = fit(a, tok, [q for q in train_qs if q["db_id"] not in held], device, a.seed + i)
            held_qs = [q for q in train_qs if q["db_id"] in held]
            m = evaluate(held_qs, model_scores(model, tok, device, a.max_len))
            m["databases"] = len(held)
            report["folds"].append(m)
            print(f"  held out: {m}", flush=True)
            del model
        keys = [k for k in report["folds"][0] if isinstance(report["folds"][0][k], float)]
        report["folds_mean"] = {k: round(float(np.mean([f[k] for f in report["folds"]])), 4) for k in keys}
    print("final model on every training database", flush=True)
    model = fit(a, tok, train_qs, device, a.seed)
    report["dev"] = evaluate(dev_qs, model_scores(model, tok, device, a.max_len))
    print(f"  dev: {report['dev']}", flush=True)
    report["export_checks"] = export(model, tok, a.out, dev_qs, device)
    int8_model = os.path.join(a.out, "model_quantized.onnx")
    report["artefacts"] = {name: {"bytes": os.path.getsize(os.path.join(a.out, name)), "sha256": sha256(os.path.join(a.out, name))} for name in ["model.onnx", "model_quantized.onnx"]}
    report["seconds"] = round(time.time() - t0)
    json.dump(report, open(os.path.join(a.out, "training-report.json"), "w"), indent=1)
    print(json.dumps(report["export_checks"]), report["artefacts"], flush=True)
    _ = int8_model


if __name__ == "__main__":
    main()
