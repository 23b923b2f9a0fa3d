"""Battle files: Chatbot-Arena-style JSONL rows (``question_id, model_a, model_b, winner``) ranked
like judge logs (``arenahard leaderboard --battles FILE``).

Only the reading lives here; what a row means is :func:`inspect_arenahard.stats.battles.from_battle_rows`.
"""

from __future__ import annotations

from pathlib import Path

from inspect_arenahard.files.jsonl import read_jsonl
from inspect_arenahard.stats.battles import Battles, from_battle_rows
from inspect_arenahard.stats.verdict_points import STRONG_WEIGHT


def read_battles_jsonl(path: str | Path, strong_weight: int = STRONG_WEIGHT) -> Battles:
    """Battles from a JSONL file (a run of ``strong_weight`` identical rows is one strong game);
    a bad line is one ``ValueError`` naming the file, line and field."""
    return from_battle_rows(
        ((f"{path}:{lineno}", row) for lineno, row in read_jsonl(path)), str(path), strong_weight
    )
