"""Builds the schema-item examples for the column scorer: for every Spider question, each table and
column of its database as Mosaic describes it to the model (schema_text.py), labelled 1 when the gold
SQL reads it. Train examples come from the training databases only; the dev databases' questions are
written beside them for evaluation, never for fitting.

    python training/schema_linking/build_items.py --out training/.cache/schema-items.json
"""
from __future__ import annotations

import argparse
import json
import os

from schema_text import column_text, table_text
from spider_data import available_dbs, load_questions, load_schemas, used_items


def items_for(question: dict, schemas, tables_only=False):
    schema = schemas[question["db_id"]]
    used = used_items(question["query"], schema)
    if used is None:
        return None
    used_tables, used_cols = used
    items = []
    for t in schema.tables:
        items.append({"kind": "table", "table": t, "text": table_text(t), "label": int(t in used_tables)})
    for c in schema.columns:
        items.append(
            {
                "kind": "column",
                "table": c.table,
                "column": c.name,
                "text": column_text(c.table, c.name, c.type),
                "key": int((c.table, c.name) in schema.primary or (c.table, c.name) in schema.foreign),
                "label": int((c.table, c.name) in used_cols),
            }
        )
    return items


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="training/.cache/schema-items.json")
    a = ap.parse_args()
    schemas = load_schemas()
    present = available_dbs()
    out = {"train": [], "dev": []}
    skipped = 0
    for split in ("train", "dev"):
        for i, q in enumerate(load_questions(split)):
            if q["db_id"] not in present or q["db_id"] not in schemas:
                skipped += 1
                continue
            items = items_for(q, schemas)
            if items is None:
                skipped += 1
                continue
            out[split].append({"id": f"{split}:{i}", "db_id": q["db_id"], "question": q["question"], "items": items})
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    json.dump(out, open(a.out, "w"))
    n_items = sum(len(q["items"]) for q in out["train"])
    pos = sum(it["label"] for q in out["train"] for it in q["items"])
    print(f"train questions {len(out['train'])} ({n_items} items, {pos} used), dev questions {len(out['dev'])}, skipped {skipped}")


if __name__ == "__main__":
    main()
