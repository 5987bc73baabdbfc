"""Derives the identifier abbreviation lexicon (lib/data/identifier-abbreviations.json) from the
Spider training databases: each column's identifier ("Dept_ID", "num_of_staff") beside the words its
annotators gave it ("department id", "number of staff"). A short identifier word that is the start of
(or a consonant skeleton of) the annotators' word at the same position, consistently across databases,
is an abbreviation of it. Dev databases are left out, so the lexicon is measured on them as on unseen
schemas.

    python training/schema_linking/abbreviations.py [--out lib/data/identifier-abbreviations.json]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections import Counter, defaultdict

from spider_data import load_questions, load_schemas


def identifier_words(name: str) -> list[str]:
    """The same split as identifierWords in lib/backends/sql/values.ts, lower-cased."""
    s = re.sub(r"[_\-.]+", " ", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", s)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", s)
    return [w for w in s.lower().split() if w]


def skeleton(word: str) -> str:
    return word[0] + re.sub(r"[aeiou]", "", word[1:])


def is_abbreviation(short: str, long: str) -> bool:
    if short == long or len(short) >= len(long) or not short.isalpha() or short[0] != long[0]:
        return False
    if long.startswith(short) and len(short) >= 2:
        return True
    # Consonant skeletons: "dpt" → "department", "qty" → "quantity": the short word's letters in order.
    it = iter(long)
    return len(short) >= 2 and all(ch in it for ch in short) and skeleton(long).startswith(short[:2])


def align(orig: list[str], natural: list[str]) -> list[tuple[str, str]] | None:
    """Pairs (identifier word, the annotators' words it stands for) when the whole identifier reads as
    the annotators' words: each identifier word is one word, an abbreviation of one, or the initials and
    prefixes of several run together ("fname" → "first name", "apid" → "airport id"); None otherwise."""
    if not orig:
        return [] if not natural else None
    o = orig[0]
    for k in range(1, min(4, len(natural)) + 1):
        words = natural[:k]
        if k == 1 and not (o == words[0] or is_abbreviation(o, words[0])):
            continue
        if k > 1 and not _prefixes(o, words):
            continue
        rest = align(orig[1:], natural[k:])
        if rest is not None:
            return [(o, " ".join(words))] + rest
    return None


def _prefixes(token: str, words: list[str]) -> bool:
    """Whether `token` is a non-empty prefix of each word in turn ("yn" ← "yes", "no" with "or" skipped is not allowed)."""
    if not words:
        return token == ""
    w = words[0]
    return any(token.startswith(w[:i]) and _prefixes(token[i:], words[1:]) for i in range(1, len(w) + 1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="lib/data/identifier-abbreviations.json")
    ap.add_argument("--min-columns", type=int, default=2)
    ap.add_argument("--min-share", type=float, default=0.6)
    # A reading found in one database only is that database's habit ("aid" for its airline id), not English.
    ap.add_argument("--min-databases", type=int, default=2)
    a = ap.parse_args()
    schemas = load_schemas()
    dev_dbs = {q["db_id"] for q in load_questions("dev")}
    seen: dict[str, Counter] = defaultdict(Counter)
    dbs_of: dict[tuple[str, str], set[str]] = defaultdict(set)
    for db_id, schema in sorted(schemas.items()):
        if db_id in dev_dbs:
            continue
        for c in schema.columns:
            pairs = align(identifier_words(c.name), c.natural.lower().split())
            for o, n in pairs or []:
                # One-letter forms ("l", "p") stand for too many words to read alone.
                if o != n.replace(" ", "") and o != n and len(o) >= 2:
                    seen[o][n] += 1
                    dbs_of[(o, n)].add(db_id)
    lexicon = {}
    for short, counts in sorted(seen.items()):
        long, n = counts.most_common(1)[0]
        total = sum(counts.values())
        # Seen on at least two columns of two databases, and the usual reading of the short form.
        if n >= a.min_columns and n / total >= a.min_share and len(dbs_of[(short, long)]) >= a.min_databases:
            lexicon[short] = long
    body = json.dumps(lexicon, indent=1, sort_keys=True) + "\n"
    meta = {
        "source": "Spider 1.0 training databases (tables.json column_names_original beside column_names), dev databases excluded",
        "script": "training/schema_linking/abbreviations.py",
        "params": {"min_columns": a.min_columns, "min_share": a.min_share, "min_databases": a.min_databases},
        "entries": len(lexicon),
        "sha256_of_abbreviations": hashlib.sha256(body.encode()).hexdigest(),
    }
    with open(a.out, "w") as f:
        json.dump({"meta": meta, "abbreviations": lexicon}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(meta, indent=1))


if __name__ == "__main__":
    main()
