"""``arenahard judges --card``: each judge's report card from ``arenahard_judgecard`` logs."""

from __future__ import annotations

import sys
from dataclasses import asdict
from typing import Any, Sequence

from inspect_arenahard.cli.tables import print_table
from inspect_arenahard.errors import UserError
from inspect_arenahard.files.outputs import write_json
from inspect_arenahard.stats.judge_card import CardItem, JudgeCard, Share, judge_cards

TASK = "arenahard_judgecard"
SCORER = "judgecard_judge"


def card_items(paths: Sequence[str]) -> tuple[list[CardItem], list[str]]:
    """One :class:`CardItem` per (judge, item) of every ``arenahard_judgecard`` log under
    ``paths``, and the logs read (lazy imports: the log reader pulls in Inspect)."""
    from inspect_arenahard.logs.reader import (
        DAMAGED,
        THINNED,
        find_score,
        log_files,
        raw_summaries,
        read_header,
    )
    from inspect_arenahard.scaleeval.judgecard import CARD, verdict_for_submissions
    from inspect_arenahard.stats.game_record import GameScore

    items: list[CardItem] = []
    read: list[str] = []
    for path in log_files(paths):
        try:
            header = read_header(path)
        except DAMAGED:
            continue
        if header.task.split("/")[-1] != TASK:
            continue
        read.append(path)
        for summary in raw_summaries(path):
            score = find_score(summary.get("scores"), SCORER)
            metadata = (score or {}).get("metadata") or {}
            if not metadata or any(
                isinstance(v, str) and v.startswith(THINNED) for v in metadata.values()
            ):
                from inspect_ai.log import read_eval_log_sample

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
    return items, read


def _cell(share: Share) -> str:
    if share.value is None:
        return "-"
    return f"{share.value:.1%} [{share.lower:.1%}, {share.upper:.1%}] (n={share.n})"


def print_cards(cards: list[JudgeCard]) -> None:
    """One row per judge; intervals are 95%, clustered on items (tie rate and longer-answer
    preference: over games)."""
    print_table(
        "Judge report card against human labels (95% intervals)",
        [
            "judge",
            "items",
            "accuracy vs human majority",
            "human-human ceiling",
            "position consistency",
            "tie rate",
            "prefers longer",
            "always-longer baseline",
            "unparsed games",
        ],  # fmt: skip
        [
            [
                c.judge,
                c.items,
                _cell(c.accuracy),
                _cell(c.human_ceiling),
                _cell(c.position_consistency),
                _cell(c.tie_rate),
                _cell(c.longer_preference),
                _cell(c.always_longer),
                c.unparsed_games,
            ]  # fmt: skip
            for c in cards
        ],
    )


def run_card(logs: Sequence[str], json_file: str | None) -> int:
    if not logs:
        raise UserError("--card reads arenahard_judgecard logs: give LOG paths")
    items, read = card_items(logs)
    if not items:
        raise UserError(
            f"no {TASK} logs with judged pairs in {', '.join(logs)} "
            f"(run: inspect eval {TASK} -T set=llmbar -T data=<folder> --model-role judge=<model>)"
        )
    print(f"{len(items)} judged pairs from {len(read)} {TASK} logs", file=sys.stderr)
    cards = judge_cards(items)
    print_cards(cards)
    if json_file:
        write_json(json_file, [card_record(c) for c in cards])
    return 0


def card_record(card: JudgeCard) -> dict[str, Any]:
    """A card as a JSON record."""
    return asdict(card)
