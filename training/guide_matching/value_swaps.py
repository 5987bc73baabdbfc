"""Positive pairs that differ only in a value: a training question beside itself with one literal swapped for
another value of the same column in its training database (in the question and in the gold SQL alike, so
the template is unchanged). The matcher learns from Spider's pairs that a different schema word means a
different question; few of those pairs differ only in a value, and it reads "in Oslo" / "in Bergen" as two
questions. Built from the training databases only."""
from __future__ import annotations

import os
import random
import re
import sqlite3

STRING = re.compile(r"'((?:[^']|'')+)'|\"([^\"]+)\"")
NUMBER = re.compile(r"(?<![\w.])(\d+)(?![\w.])")


def _columns(db: sqlite3.Connection) -> list[tuple[str, str]]:
    out = []
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        for row in db.execute(f'PRAGMA table_info("{table}")'):
            out.append((table, row[1]))
    return out


def _other_value(db: sqlite3.Connection, columns, value: str, rng: random.Random) -> str | None:
    """Another value of the first column holding `value` (compared as text), or None."""
    for table, column in columns:
        try:
            if db.execute(f'SELECT 1 FROM "{table}" WHERE CAST("{column}" AS TEXT) = ? LIMIT 1', (value,)).fetchone() is None:
                continue
            others = [r[0] for r in db.execute(f'SELECT DISTINCT CAST("{column}" AS TEXT) FROM "{table}" WHERE "{column}" IS NOT NULL LIMIT 200')]
        except sqlite3.Error:
            continue
        others = sorted(o for o in others if isinstance(o, str) and o.strip() and o != value and "'" not in o and '"' not in o and len(o) < 40)
        if others:
            return rng.choice(others)
    return None


def value_swapped(questions: list[dict], database_dir: str, rng: random.Random, per_question: int = 1) -> list[tuple[str, str, float]]:
    """Per question with a literal its text repeats (a string the database holds, or a number), `per_question`
    positive pairs (question, the same question with that literal swapped)."""
    out: list[tuple[str, str, float]] = []
    connections: dict[str, tuple[sqlite3.Connection, list]] = {}
    for q in questions:
        text = q["question"]
        literals = [m.group(1) or m.group(2) for m in STRING.finditer(q["query"])]
        literals = [v.replace("''", "'") for v in literals if v and v in text]
        numbers = [n for n in NUMBER.findall(q["query"]) if re.search(rf"(?<![\w.]){n}(?![\w.])", text)]
        for _ in range(per_question):
            if literals:
                value = rng.choice(literals)
                if q["db_id"] not in connections:
                    path = os.path.join(database_dir, q["db_id"], f"{q['db_id']}.sqlite")
                    if not os.path.exists(path):
                        continue
                    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
                    connections[q["db_id"]] = (db, _columns(db))
                db, columns = connections[q["db_id"]]
                other = _other_value(db, columns, value, rng)
                if other is None:
                    continue
                swapped = text.replace(value, other, 1)
            elif numbers:
                n = rng.choice(numbers)
                other = str(int(n) + rng.choice([k for k in range(-9, 12) if k != 0 and int(n) + k > 0]))
                swapped = re.sub(rf"(?<![\w.]){n}(?![\w.])", other, text, count=1)
            else:
                continue
            if swapped != text:
                out.append((text, swapped, 1.0) if rng.random() < 0.5 else (swapped, text, 1.0))
    for db, _ in connections.values():
        db.close()
    return out
