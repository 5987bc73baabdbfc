"""Spider training data for Mosaic's learned decisions: which schema items a question uses, and the
shape of the query that answers it. Read from DATASETS_DIR (../shared/datasets); nothing is copied.

Only training databases are used (spider/train-questions.json; none of them is a dev database), so
everything fitted here is measured on the dev databases as on unseen ones.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp

DATASETS = os.environ.get("DATASETS_DIR", os.path.join(os.path.dirname(__file__), "../../../shared/datasets"))
SPIDER = os.path.join(DATASETS, "spider")


@dataclass
class Column:
    table: str
    name: str
    type: str
    # Spider's annotators' words for the column ("perpetrator id"): used only to derive the abbreviation
    # lexicon from training databases, never as a model input (a customer's schema has no such words).
    natural: str


@dataclass
class Schema:
    db_id: str
    tables: list[str]
    columns: list[Column]
    primary: set[tuple[str, str]] = field(default_factory=set)
    foreign: set[tuple[str, str]] = field(default_factory=set)


def load_schemas() -> dict[str, Schema]:
    out: dict[str, Schema] = {}
    for t in json.load(open(os.path.join(SPIDER, "tables.json"))):
        tables = t["table_names_original"]
        cols: list[Column] = []
        for (ti, name), (_, natural), typ in zip(t["column_names_original"], t["column_names"], t["column_types"]):
            if ti < 0:
                continue
            cols.append(Column(tables[ti], name, typ, natural))
        flat = [(tables[ti], name) for ti, name in t["column_names_original"]]
        primary = {flat[i] for i in t["primary_keys"] if isinstance(i, int)}
        foreign = {flat[a] for a, b in t["foreign_keys"]} | {flat[b] for a, b in t["foreign_keys"]}
        out[t["db_id"]] = Schema(t["db_id"], tables, cols, primary, foreign)
    return out


def load_questions(split: str) -> list[dict]:
    name = {"train": "train-questions.json", "dev": "dev-questions.json"}[split]
    return json.load(open(os.path.join(SPIDER, name)))


def available_dbs() -> set[str]:
    return {d for d in os.listdir(os.path.join(SPIDER, "database")) if os.path.exists(os.path.join(SPIDER, "database", d, f"{d}.sqlite"))}


# ---------------------------------------------------------------------------------------------
# What a gold query uses


def _norm(s: str) -> str:
    return s.lower().strip('`"[]')


def used_items(sql: str, schema: Schema) -> tuple[set[str], set[tuple[str, str]]] | None:
    """Tables and (table, column) pairs the gold SQL reads; None when it does not parse."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except Exception:
        return None
    tables_by_lower = {t.lower(): t for t in schema.tables}
    cols_by_table: dict[str, dict[str, str]] = {}
    for c in schema.columns:
        cols_by_table.setdefault(c.table, {})[c.name.lower()] = c.name
    used_tables: set[str] = set()
    used_cols: set[tuple[str, str]] = set()
    # Each SELECT scope resolves its own aliases.
    for select in tree.find_all(exp.Select, exp.Union, exp.Intersect, exp.Except):
        if not isinstance(select, exp.Select):
            continue
        alias: dict[str, str] = {}
        scope_tables: list[str] = []
        for tbl in select.find_all(exp.Table):
            # Only tables of this scope (not of nested selects).
            if tbl.find_ancestor(exp.Select) is not select:
                continue
            real = tables_by_lower.get(_norm(tbl.name))
            if not real:
                continue
            scope_tables.append(real)
            used_tables.add(real)
            if tbl.alias:
                alias[_norm(tbl.alias)] = real
            alias[_norm(tbl.name)] = real
        for col in select.find_all(exp.Column):
            if col.find_ancestor(exp.Select) is not select:
                continue
            name = _norm(col.name)
            if col.table:
                real = alias.get(_norm(col.table))
                if real and name in cols_by_table.get(real, {}):
                    used_cols.add((real, cols_by_table[real][name]))
                continue
            owners = [t for t in scope_tables if name in cols_by_table.get(t, {})]
            for t in owners[:1]:
                used_cols.add((t, cols_by_table[t][name]))
    return used_tables, used_cols


# ---------------------------------------------------------------------------------------------
# The shape of a query (the decisions the SQL formulator makes)

SHAPE_LABELS = [
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "group_by",
    "having",
    "order_by",
    "order_desc",
    "limit",
    "limit_one",
    "distinct",
    "nested",
    "set_op",
    "join",
]


def query_shape(sql: str) -> dict[str, int] | None:
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except Exception:
        return None
    outer = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    selects = list(tree.find_all(exp.Select))
    text = sql.lower()
    # Aggregates anywhere in the top-level select list, HAVING or ORDER BY.
    aggs = {a.key for a in tree.find_all(exp.AggFunc)}
    order = tree.find(exp.Order)
    limit = tree.find(exp.Limit)
    limit_one = False
    if limit is not None:
        m = re.search(r"limit\s+(\d+)", text)
        limit_one = bool(m and m.group(1) == "1")
    joins = outer.args.get("joins") if outer is not None else None
    from_tables = len(list(outer.find_all(exp.Table))) if outer is not None else 0
    return {
        "count": int("count" in aggs),
        "sum": int("sum" in aggs),
        "avg": int("avg" in aggs),
        "min": int("min" in aggs),
        "max": int("max" in aggs),
        "group_by": int(tree.find(exp.Group) is not None),
        "having": int(tree.find(exp.Having) is not None),
        "order_by": int(order is not None),
        "order_desc": int(order is not None and any(o.args.get("desc") for o in order.find_all(exp.Ordered))),
        "limit": int(limit is not None),
        "limit_one": int(limit_one),
        "distinct": int(tree.find(exp.Distinct) is not None),
        "nested": int(len(selects) > 1 and not isinstance(tree, (exp.Union, exp.Intersect, exp.Except))),
        "set_op": int(isinstance(tree, (exp.Union, exp.Intersect, exp.Except))),
        "join": int(bool(joins) or from_tables > 1),
    }
