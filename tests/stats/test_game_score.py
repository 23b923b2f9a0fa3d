"""The score contract as one frozen type: written by every judge scorer, parsed by the reader."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from inspect_arenahard.stats.game_record import GameScore, ScoredGame, points_over
from inspect_arenahard.stats.verdict_points import check_strong_weight, weighted_points

SRC = Path(__file__).resolve().parents[2] / "src" / "inspect_arenahard"


def _score(**changes: object) -> GameScore:
    fields: dict[str, object] = dict(
        model="m",
        baseline="b",
        category="hard_prompt",
        games=(
            ScoredGame("judge-1", 1, "B", "A>>B", True, 1),
            ScoredGame("judge-1", 2, "A", "A>B", True, 2),
            ScoredGame("judge-2", 1, "B", None, False, 3),
        ),
        strong_weight=3,
        style={"model": {"tokens": 10}, "baseline": {"tokens": 20}},
        neutralisation="1",
        neutralised={"model": []},
        committee={"judges": ["x", "y"]},
    )
    fields.update(changes)
    return GameScore(**fields)  # type: ignore[arg-type]


def test_metadata_round_trips_through_the_one_parser() -> None:
    score = _score()
    assert GameScore.parse(score.metadata(), "here") == score
    skipped = GameScore("m", None, "c", skipped="decided")
    assert GameScore.parse(skipped.metadata(), "here") == skipped
    assert skipped.metadata() == {"skipped": "decided", "model": "m", "category": "c"}


def test_points_match_a_hand_count() -> None:
    # game 1: baseline A wins strongly -> model (B) loses 3 battles; game 2: model at A wins 1
    score = _score()
    assert score.points() == pytest.approx((0 * 3 + 1 * 1) / (3 + 1))
    manual = [weighted_points("A>>B", "B", 3), weighted_points("A>B", "A", 3)]
    assert points_over(score.games, 3) == (sum(p for p, _ in manual), sum(w for _, w in manual))
    assert _score(games=(ScoredGame("j", 1, "A", None, False),)).points() is None


def test_metadata_written_before_the_type_still_parses() -> None:
    old = {
        "model": "m",
        "baseline": "b",
        "category": None,
        "strong_weight": 3.0,  # the scorer used to write a float
        "games": [{"judge": "j", "game": 1, "model_position": "A", "label": "B<A", "parsed": True}],
    }
    score = GameScore.parse(old, "old")
    assert score.strong_weight == 3 and isinstance(score.strong_weight, int)
    assert score.games[0].attempts == 1 and score.style is None


@pytest.mark.parametrize(
    ("metadata", "field"),
    [
        ({"games": [{"judge": "j", "game": 1, "model_position": "A", "label": None, "parsed": False}]}, "'baseline'"),
        ({"baseline": "b", "games": [{"judge": "j", "game": 1, "model_position": "C", "label": None, "parsed": False}]}, "'model_position'"),
        ({"baseline": "b", "games": [{"judge": "j", "game": 1, "model_position": "A", "label": "A>B"}]}, "parsed"),
        ({"baseline": "b", "games": "x"}, "'games'"),
        ({"baseline": "b", "strong_weight": 2.5, "games": []}, "strong_weight=2.5"),
    ],
)  # fmt: skip
def test_bad_metadata_is_one_line_naming_where_and_the_field(
    metadata: dict[str, object], field: str
) -> None:
    with pytest.raises(ValueError, match=r"^log x: sample 1\b") as caught:
        GameScore.parse(metadata, "log x: sample 1")
    assert field in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("value", [1, 3, 3.0, "3", " 2 "])
def test_strong_weight_accepts_whole_numbers_of_battles(value: object) -> None:
    assert check_strong_weight(value) == int(float(str(value)))


@pytest.mark.parametrize("value", [0, -3, 2.5, "2.5", True, "three", None, float("nan")])
def test_strong_weight_refuses_the_rest(value: object) -> None:
    with pytest.raises(ValueError, match="whole number of battles, at least 1"):
        check_strong_weight(value)
    with pytest.raises(ValueError, match="strong_weight"):
        _score(strong_weight=value)


def _dict_keys(path: Path) -> set[str]:
    keys: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            keys |= {
                k.value
                for k in node.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            }
    return keys


def test_no_writer_spells_the_score_contract_by_hand() -> None:
    """The contract's keys are written in one place: GameScore.metadata (and ScoredGame.record)."""
    contract = {"strong_weight", "baseline_model", "neutralised"}
    spelled = {
        str(path.relative_to(SRC)): sorted(_dict_keys(path) & contract)
        for path in SRC.rglob("*.py")
        if path.name != "game_record.py"
    }
    assert {p: keys for p, keys in spelled.items() if keys} == {}
