"""A Swiss tournament of scripted players whose strengths follow real Chatbot Arena ratings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from inspect_arenahard.report.score_table_files import load_score_table
from tests.helpers.arena_scripted import Arena
from tests.helpers.battle_questions import write_questions
from tests.helpers.shared_data import shared

ARENA_FILE = (
    "human_reference",
    "chatbot_arena_leaderboards_csv",
    "chatbot_arena_20240527_full.csv",
)
# Six Arena models, best first by their 2024-05-27 Arena rating (test_tournament checks it against the file).
TRUTH = [
    "gpt-4o-2024-05-13", "claude-3-opus-20240229", "llama-3-70b-instruct",
    "gpt-4-0314", "claude-3-haiku-20240307", "llama-3-8b-instruct",
]  # fmt: skip
NEWCOMER = (
    "claude-3-sonnet-20240229"  # Arena 1201: between llama-3-70b (1208) and gpt-4-0314 (1186)
)
QUESTIONS = [
    {"id": f"{d}-1", "question": f"A hard {d} question?", "domain": d}
    for d in (
        "writing",
        "roleplay",
        "extraction",
        "reasoning",
        "math",
        "coding",
        "stem",
        "humanities",
    )
]


def mock(name: str) -> str:
    return f"mockllm/{name}"


def arena() -> Arena:
    """Judges prefer the higher Arena rating (rounded), so the true order is the Arena order."""
    table = load_score_table(shared(*ARENA_FILE))
    return Arena({name: round(table.entries[name].score) for name in [*TRUTH, NEWCOMER]})


def write_config(where: Path, **changes: Any) -> Path:
    """A tournament config for the six models (prior upside down) and its questions, in ``where``."""
    config = {
        "models": [mock(m) for m in TRUTH],
        "questions": str(write_questions(where, QUESTIONS).name),
        "prior": [mock(m) for m in reversed(TRUTH)],  # the prior has the order upside down
        "battles_per_pair": 2,
        "committee_size": 3,
        "bootstrap_rounds": 20,
        "folder": "tournament",
        **changes,
    }
    path = where / "tournament.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path
