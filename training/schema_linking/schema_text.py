"""Schema items in words, exactly as Mosaic describes them to its models at run time
(lib/catalog/semantic-texts.ts: columnSemanticText, tableSemanticText). Change both together."""
from __future__ import annotations

import json
import os
import re

_LEXICON = os.path.join(os.path.dirname(__file__), "../../lib/data/identifier-abbreviations.json")
ABBREVIATIONS: dict[str, str] = json.load(open(_LEXICON))["abbreviations"]


def identifier_words(name: str) -> str:
    """identifierWords (lib/backends/sql/values.ts), lower-cased, each known abbreviation read out."""
    s = re.sub(r"[_\-.]+", " ", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", s)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", s)
    words = [w for w in s.lower().split() if w]
    return " ".join(ABBREVIATIONS.get(w, w) for w in words)


def column_text(table: str, column: str, _type: str | None = None) -> str:
    return f"{identifier_words(column)} of {identifier_words(table)}"


def table_text(table: str) -> str:
    return identifier_words(table)
