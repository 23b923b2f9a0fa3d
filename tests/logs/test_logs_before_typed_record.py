"""Logs written before the score contract became one type read as they did.

``fixtures/pairwise_before_typed_record.eval`` was written by the ``arenahard`` task as it was
before :class:`inspect_arenahard.stats.game_record.GameScore` (scripted judge and model, three
v0.1 prompts, ``-T strong_weight=2``: the scorer then wrote the weight as a float).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspect_arenahard import arenahard
from inspect_arenahard.errors import UserError
from inspect_arenahard.logs.reader import raw_summaries, read_games
from inspect_arenahard.stats.battles import from_games
from inspect_arenahard.stats.game_record import GameScore

OLD_LOG = Path(__file__).parent / "fixtures" / "pairwise_before_typed_record.eval"


def test_an_old_log_reads_into_the_same_records() -> None:
    result = read_games([OLD_LOG])
    games = result.games
    assert len(games) == 6 and not result.ignored
    assert {g["strong_weight"] for g in games} == {2}
    assert all(isinstance(g["strong_weight"], int) for g in games)
    # the scripted judge: the model's answer wins strongly wherever it is shown as A, else loses
    for game in games:
        expected = "A>>B" if game["model_position"] == "A" else "B>A"
        assert (game["label"], game["parsed"], game["baseline"]) == (expected, True, "gpt-4-0314")
    battles = from_games(games)
    assert len(battles) == 6


def test_the_old_metadata_is_what_the_type_writes() -> None:
    """Parsing an old score and writing it again gives back the same keys and values (the
    weight now an int): the writers changed form, not content."""
    for summary in raw_summaries(str(OLD_LOG)):
        metadata = summary["scores"]["pairwise_judge"]["metadata"]
        again = GameScore.parse(metadata, "old").metadata()
        assert again == metadata | {"strong_weight": int(metadata["strong_weight"])}


@pytest.mark.parametrize("weight", [2.5, 0, "heavy"])
def test_the_task_refuses_a_strong_weight_the_ranking_would(weight: object) -> None:
    with pytest.raises(
        UserError, match="strong_weight=.* must be a whole number of battles"
    ) as caught:
        arenahard(version="v0.1", data_dir="/nonexistent", strong_weight=weight)
    assert "\n" not in str(caught.value)
