"""The fifth of Spider's training databases the guide matcher is not fitted on, drawn from its seed. Kept
apart from the trainer (no torch) so that anything measured on those databases can name them: the
trainer's threshold, the replay in the product's setting, the answer calibrator's guided runs."""
from __future__ import annotations

import random


def held_out_databases(train: list[dict], seed: int) -> set[str]:
    """The fifth of the training databases held out of fitting (it chooses the threshold): a seeded draw."""
    dbs = sorted({q["db_id"] for q in train})
    random.Random(seed).shuffle(dbs)
    return set(dbs[::5])
