"""Fits Mosaic's answer calibrator (issue 32): logistic regression from a run's features to the
probability that its answer is right, on evaluation runs of TRAINING questions only, checked on dev.

    python3 fit_calibrator.py questions --out ../.cache/spider-train-usable.json    # training questions on present databases
    python3 fit_calibrator.py guided --questions ../.cache/spider-train-usable.json \
        --guides-out ../.cache/train-guides.json --asked-out ../.cache/train-asked.json   # training runs with analysts' guides
    python3 fit_calibrator.py extract --report REPORT.json --out data/NAME.json   # features + labels of a report
    python3 fit_calibrator.py fit --train data/spider-train-300.json --train data/spider-train-guided-300.json \
        --dev data/spider-dev-half-a-guides.json [--dev …] --out ../../lib/data/answer-calibrator.json
    python3 fit_calibrator.py fit --kind graph --train data/text2cypher-dev-half-a.json … --out /tmp/graph.json
        # one kind of source only; for graphs (no training split) an analysis on dev runs, judged by its held-out folds

`extract` keeps what fitting needs from an `npm run eval -- … --json` report: per judged question its id,
database or report (the group for cross-validation), features and whether the answer was right. `fit` chooses the
L2 strength by 5-fold cross-validation grouped by database (folds by a hash of the database name: no
randomness), fits on all training rows by Newton's method (IRLS), and writes the artefact with the
SHA-256 of its model (lib/pipeline/calibration/calibrator.ts checks it at load) and the figures on each
dev file (never used for fitting or choosing). Same inputs, same artefact, byte for byte.
"""
import argparse
import hashlib
import json
import os
import sys

import numpy as np

VERSION = "1"
LAMBDAS = [0.01, 0.1, 1.0, 10.0]
FOLDS = 5


def usable_questions(out_path, datasets):
    """Spider's training questions whose database is present (baseball_1 and soccer_1 are missing here)."""
    import os

    with open(os.path.join(datasets, "spider", "train-questions.json")) as f:
        items = json.load(f)
    present = set(os.listdir(os.path.join(datasets, "spider", "database")))
    kept = [q for q in items if q["db_id"] in present]
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w") as f:
        json.dump(kept, f)
    print(f"{len(kept)} of {len(items)} training questions → {out_path}")


def matcher_held_out():
    """The training databases the guide matcher was not fitted on (its report's seed draws them): on the
    others it has read these very questions as pairs, so a guide-answered run there would be trusted more
    than on a company's own database."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "guide_matching"))
    from held_out import held_out_databases

    with open(os.path.join(here, "..", "..", "models", "guide-matcher", "training-report.json")) as f:
        seed = json.load(f)["params"]["seed"]
    with open(os.path.join(os.environ.get("DATASETS_DIR", os.path.join(here, "..", "..", "..", "shared", "datasets")), "spider", "train-questions.json")) as f:
        return held_out_databases(json.load(f), seed)


def guided_split(questions_path, guides_out, asked_out, databases, per_db_asked, per_db_guides):
    """The few-shot protocol of issue 28 on TRAINING databases, so the calibrator sees guide-answered runs:
    per database (those with enough questions, ordered by a hash of the name), questions ordered by a hash
    of their text, the first half guides and the second half asked. Only databases the guide matcher never
    saw. No randomness: the same file gives the same split."""
    with open(questions_path) as f:
        held = matcher_held_out()
        items = [q for q in json.load(f) if q["db_id"] in held]
    h = lambda s: hashlib.sha256(s.encode()).hexdigest()
    by_db = {}
    for q in items:
        by_db.setdefault(q["db_id"], []).append(q)
    need = 2 * max(per_db_asked, per_db_guides)
    dbs = sorted((db for db, qs in by_db.items() if len(qs) >= need), key=h)[:databases]
    guides, asked = [], []
    for db in sorted(dbs):
        qs = sorted(by_db[db], key=lambda q: h(q["question"]))
        half = len(qs) // 2
        guides += [{"db_id": db, "question": q["question"], "query": q["query"]} for q in qs[:half][:per_db_guides]]
        asked += qs[half:][:per_db_asked]
    for path, data in ((guides_out, guides), (asked_out, asked)):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            json.dump(data, f, indent=1)
    print(f"{len(dbs)} databases: {len(guides)} guides → {guides_out}, {len(asked)} asked → {asked_out}")


def extract(report_path, out_path):
    with open(report_path) as f:
        report = json.load(f)
    rows = []
    for q in report["perQuestion"]:
        if q.get("status") == "ERROR" or not q.get("features") or not isinstance(q.get("correct"), bool):
            continue
        # The group for cross-validation: the database (Spider, Text2Cypher) or the report (TAT-QA) asked about.
        db = next((t.split(":", 1)[1] for t in q.get("tags", []) if t.startswith(("db:", "report:"))), q["suite"])
        rows.append({"id": q["id"], "group": db, "features": q["features"], "correct": q["correct"]})
    rows.sort(key=lambda r: r["id"])
    out = {"source": {"suite": report["suite"], "seed": report["seed"], "limit": report["limit"],
                      "questionsFile": report.get("questionsFile")}, "rows": rows}
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(rows)} judged questions → {out_path}")


def load(paths):
    rows, sources = [], []
    for p in paths:
        with open(p) as f:
            data = json.load(f)
        rows += data["rows"]
        sources.append({"file": p.split("/")[-1], "sha256": hashlib.sha256(open(p, "rb").read()).hexdigest(), "n": len(data["rows"])})
    return rows, sources


def matrix(rows, names):
    X = np.array([[r["features"].get(n, 0.0) for n in names] for r in rows], dtype=np.float64)
    y = np.array([1.0 if r["correct"] else 0.0 for r in rows])
    return X, y


def fit_logistic(X, y, lam, iters=100):
    """L2-penalised logistic regression (bias unpenalised) by Newton's method."""
    n, d = X.shape
    A = np.hstack([X, np.ones((n, 1))])
    w = np.zeros(d + 1)
    P = lam * np.eye(d + 1)
    P[d, d] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(A @ w)))
        g = A.T @ (p - y) + P @ w
        H = A.T @ (A * (p * (1 - p))[:, None]) + P + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(H, g)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w[:d], w[d]


def predict(X, w, b):
    return 1.0 / (1.0 + np.exp(-(X @ w + b)))


def measures(p, y):
    """As lib/eval/metrics/calibration.ts: ECE (10 bins), Brier, AURC, precision/coverage at ≥ 0.8, coverage at 90 %."""
    n = len(y)
    if n == 0:
        return {}
    bins = np.minimum((p * 10).astype(int), 9)
    ece = sum(abs(y[bins == k].mean() - p[bins == k].mean()) * (bins == k).sum() / n for k in range(10) if (bins == k).any())
    order = np.argsort(-p, kind="stable")
    ps, ys = p[order], y[order]
    area, prev, right, cov90 = 0.0, 0.0, 0.0, 0.0
    for i in range(n):
        right += ys[i]
        if i + 1 < n and ps[i + 1] == ps[i]:
            continue
        cov, prec = (i + 1) / n, right / (i + 1)
        area += (cov - prev) * (1 - prec)
        prev = cov
        if prec >= 0.9:
            cov90 = cov
    high = p >= 0.8
    return {"n": int(n), "ece": round(float(ece), 4), "brier": round(float(np.mean((p - y) ** 2)), 4), "aurc": round(area, 4),
            "precisionHigh": round(float(y[high].mean()), 4) if high.any() else None,
            "coverageHigh": round(float(high.mean()), 4), "coverageAt90": round(cov90, 4), "accuracy": round(float(y.mean()), 4)}


def fold_of(group):
    return int(hashlib.sha256(group.encode()).hexdigest(), 16) % FOLDS


KINDS = {"kindSql": "sql", "kindDocuments": "documents", "kindGraph": "graph"}


def kind_of(features):
    """The answering source's kind, as the product reads it from the one-hot features ("none": no source won)."""
    return next((label for name, label in KINDS.items() if features.get(name, 0) == 1), "none")


def canonical(model):
    # Six decimals as JavaScript's toFixed writes them (weights are stored rounded, and "+ 0.0" turns -0.0 into 0.0).
    return "\n".join([model["version"], ",".join(model["features"]), ",".join(model["kinds"]),
                      ",".join(f"{w:.6f}" for w in model["weights"]), f"{model['bias']:.6f}"])


def fit(train_paths, dev_paths, out_path, names, kind=None):
    rows, sources = load(train_paths)
    if kind:
        # One kind of source (graphs: no training split exists, so the rows come from dev splits and only
        # the cross-validated figures, folds grouped by graph or database, say how it does on unseen data).
        rows = [r for r in rows if kind_of(r["features"]) == kind]
    X, y = matrix(rows, names)
    folds = np.array([fold_of(r["group"]) for r in rows])
    if len(set(folds.tolist())) < 2:
        sys.exit("Cross-validation needs rows from groups in at least two folds (more databases or graphs).")
    cv = {}
    for lam in LAMBDAS:
        p = np.zeros(len(y))
        for k in range(FOLDS):
            tr, te = folds != k, folds == k
            if te.any():
                w, b = fit_logistic(X[tr], y[tr], lam)
                p[te] = predict(X[te], w, b)
        cv[str(lam)] = measures(p, y)
    best = min(LAMBDAS, key=lambda lam: (cv[str(lam)]["brier"], lam))
    w, b = fit_logistic(X, y, best)
    # Only the source kinds the training runs answered from are calibrated; others keep the raw confidence.
    kinds = sorted({kind_of(r["features"]) for r in rows})
    model = {"version": VERSION, "features": names, "kinds": kinds, "weights": [round(float(v), 6) + 0.0 for v in w], "bias": round(float(b), 6) + 0.0}
    raw_i = names.index("raw")
    dev = {}
    for path in dev_paths:
        drows, _ = load([path])
        DX, dy = matrix(drows, names)
        covered = np.array([kind_of(r["features"]) in kinds for r in drows])
        applied = np.where(covered, predict(DX, np.array(model["weights"]), model["bias"]), DX[:, raw_i])
        dev[path.split("/")[-1]] = {"calibrated": measures(applied, dy), "raw": measures(DX[:, raw_i], dy),
                                     "calibratedShare": round(float(covered.mean()), 4)}
    artefact = {
        "model": model,
        "sha256": hashlib.sha256(canonical(model).encode()).hexdigest(),
        "training": {"files": sources, **({"kind": kind, "rows": len(rows)} if kind else {}), "lambda": best, "crossValidation": cv,
                     "rawOnTraining": measures(X[:, raw_i], y)},
        "dev": dev,
    }
    with open(out_path, "w") as f:
        json.dump(artefact, f, indent=1)
        f.write("\n")
    print(json.dumps({"lambda": best, "cv": cv[str(best)], "dev": dev}, indent=1))
    print(f"sha256 {artefact['sha256']} → {out_path}")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    qs = sub.add_parser("questions")
    qs.add_argument("--out", required=True)
    qs.add_argument("--datasets", default=os.environ.get("DATASETS_DIR", "../../../shared/datasets"))
    g = sub.add_parser("guided")
    g.add_argument("--questions", required=True)
    g.add_argument("--guides-out", required=True)
    g.add_argument("--asked-out", required=True)
    g.add_argument("--databases", type=int, default=30)
    g.add_argument("--per-db-asked", type=int, default=14)
    g.add_argument("--per-db-guides", type=int, default=15)
    e = sub.add_parser("extract")
    e.add_argument("--report", required=True)
    e.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("--train", action="append", required=True)
    f.add_argument("--dev", action="append", default=[])
    f.add_argument("--out", required=True)
    f.add_argument("--features", default="../../lib/pipeline/calibration/features.ts")
    f.add_argument("--kind", choices=["sql", "documents", "graph"], help="fit on the rows answered from this kind of source only")
    a = ap.parse_args()
    if a.cmd == "questions":
        usable_questions(a.out, a.datasets)
        return
    if a.cmd == "guided":
        guided_split(a.questions, a.guides_out, a.asked_out, a.databases, a.per_db_asked, a.per_db_guides)
        return
    if a.cmd == "extract":
        extract(a.report, a.out)
        return
    # The feature names and their order, as the product computes them.
    src = open(a.features).read()
    block = src[src.index("FEATURE_NAMES = [") : src.index("] as const")]
    names = [line.strip().strip('",') for line in block.splitlines()[1:] if line.strip().startswith('"')]
    fit(a.train, a.dev, a.out, names, a.kind)


if __name__ == "__main__":
    sys.exit(main())
