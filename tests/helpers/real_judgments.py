"""Every published v0.1 judgment in ``../shared/data`` as game records: the rankings' and the
judge checks' real-data tests read the same games."""

from __future__ import annotations

import json

from tests.helpers.shared_data import shared

BASELINE = "gpt-4-0314"


def judgment_games() -> list[dict]:
    """Game records from every shared v0.1 judgment file: game 1 has the baseline as A, game 2 as B.
    Answers' style metadata is attached where the shared answers cover the model (phi-3-medium)."""
    answers = {}
    for model in (BASELINE, "phi-3-medium-4k-instruct"):
        path = shared("arena-hard-v0.1", "model_answer", f"{model}.jsonl")
        answers[model] = {
            r["question_id"]: r["conv_metadata"]
            for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())
        }
    games = []
    for path in sorted(shared("arena-hard-v0.1", "model_judgment").glob("*/*.jsonl")):
        for record in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
            model, qid = record["model"], record["question_id"]
            style = (
                {"model": answers[model][qid], "baseline": answers[BASELINE][qid]}
                if model in answers
                else None
            )
            for number, (game, position) in enumerate(zip(record["games"], ("B", "A")), 1):
                games.append({
                    "question_id": qid, "model": model, "baseline": BASELINE, "judge": record["judge"],
                    "category": None, "game": number, "model_position": position, "label": game["score"],
                    "parsed": game["score"] is not None, "style": style,
                })  # fmt: skip
    return games
