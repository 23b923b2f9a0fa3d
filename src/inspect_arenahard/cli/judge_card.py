"""``arenahard judges --card``: each judge's report card from ``arenahard_judgecard`` logs."""

from __future__ import annotations

import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Sequence

from inspect_arenahard.cli.tables import print_table
from inspect_arenahard.errors import UserError
from inspect_arenahard.files.outputs import write_json

if TYPE_CHECKING:  # the statistics load when the command runs, not when its parser is built
    from inspect_arenahard.stats.judge_card import ItemShare, JudgeCard

TASK = "arenahard_judgecard"


def _cell(share: ItemShare) -> str:
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
    from inspect_arenahard.logs.card_items import card_items  # lazy: Inspect is heavy
    from inspect_arenahard.stats.judge_card import judge_cards

    items, read, left_out = card_items(logs)
    for note in left_out:
        print(f"left out: {note}", file=sys.stderr)
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
