"""Report-card items out of ``arenahard_judgecard`` logs (``arenahard judges --card``, the HTML
report's evaluator table): one ``CardItem`` per judge
and human-labelled pair."""

from __future__ import annotations

from typing import Sequence

from inspect_arenahard.logs.reader import (
    DAMAGED,
    THINNED,
    find_score,
    log_files,
    raw_summaries,
    read_header,
)
from inspect_arenahard.stats.game_record import GameScore
from inspect_arenahard.stats.judge_card import CARD, CardItem, verdict_for_submissions

TASK = "arenahard_judgecard"
SCORER = "judgecard_judge"


def card_items(paths: Sequence[str]) -> tuple[list[CardItem], list[str], list[str]]:
    """One ``CardItem`` per (judge, item) of every ``arenahard_judgecard`` log under
    ``paths``, the logs read, and what was left out (unreadable logs, unscored samples)."""
    items: list[CardItem] = []
    read: list[str] = []
    left_out: list[str] = []
    for path in log_files(paths):
        try:
            header = read_header(path)
        except DAMAGED:
            left_out.append(f"{path}: not a readable Inspect log")
            continue
        if header.task.split("/")[-1] != TASK:
            continue
        read.append(path)
        for summary in raw_summaries(path):
            score = find_score(summary.get("scores"), SCORER)
            if not isinstance(score, dict) or not score.get("metadata"):
                left_out.append(f"{path}: sample {summary['id']} has no judge score (failed)")
                continue
            metadata = score["metadata"]
            if any(isinstance(v, str) and v.startswith(THINNED) for v in metadata.values()):
                from inspect_ai.log import read_eval_log_sample  # a thinned score: the full one

                full = read_eval_log_sample(path, id=summary["id"], epoch=summary["epoch"])
                metadata = getattr(find_score(full.scores, SCORER), "metadata", None) or {}
            if CARD not in metadata:
                continue
            where = f"{path}: sample {summary['id']}: score metadata"
            game_score = GameScore.parse(metadata, where)
            card = metadata[CARD]
            by_judge: dict[str, list[str | None]] = {}
            for game in sorted(game_score.games, key=lambda g: g.game):
                by_judge.setdefault(game.judge, []).append(
                    verdict_for_submissions(game.label, game.model_position)
                )
            for judge, verdicts in by_judge.items():
                items.append(
                    CardItem(
                        judge=judge,
                        item=str(card["item"]),
                        source=str(card["source"]),
                        gold=card.get("gold"),
                        annotations=tuple(card.get("annotations") or ()),
                        verdicts=tuple(verdicts),
                        length_1=int(card["length_1"]),
                        length_2=int(card["length_2"]),
                    )
                )
    return items, read, left_out
