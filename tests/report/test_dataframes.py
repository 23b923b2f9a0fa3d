"""games_df / battles_df on real imported arena-hard-auto judgments."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from inspect_arenahard.cli import main
from inspect_arenahard.report.dataframes import GAME_COLUMNS, battles_df, games_df
from tests.helpers.shared_data import shared
from tests.helpers.v01_score import published_v01_score

V01 = shared("arena-hard-v0.1")
JUDGMENTS = V01 / "model_judgment" / "gpt-4o"


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    assert (
        main(
            [
                "import",
                "arena-hard-auto",
                str(V01),
                "--judge",
                "gpt-4o",
                "--out",
                str(tmp_path / "logs"),
            ]
        )
        == 0
    )
    return tmp_path / "logs"


def test_games_df_has_every_game_with_its_label(logs: Path) -> None:
    games = games_df(logs)
    assert list(games.columns) == list(GAME_COLUMNS)
    expected = {}
    for path in JUDGMENTS.glob("*.jsonl"):
        for line in path.open(encoding="utf-8"):
            record = json.loads(line)
            for number, game in enumerate(record["games"], start=1):
                expected[(record["model"], record["question_id"], number)] = game["score"]
    got = {(r.model, r.sample_id, r.game): r.label for r in games.itertuples()}
    assert got == expected
    assert set(games.log.map(lambda p: Path(p).parent)) == {logs}
    assert (
        games.position == np.where(games.game == 1, "B", "A")
    ).all()  # game 1 shows the baseline as A
    for model, rows in games[games.parsed].groupby("model"):
        weighted = (rows.points * rows.weight).sum() / rows.weight.sum()
        assert 100 * weighted == pytest.approx(
            published_v01_score(JUDGMENTS / f"{model}.jsonl")[0], abs=1e-9
        )
    assert games.model_tokens.gt(0).all() and games.baseline_tokens.gt(0).all()


def test_battles_df_matches_the_games(logs: Path) -> None:
    games = games_df(logs, strong_weight=3)
    battles = battles_df(logs, strong_weight=3)
    assert len(battles) == len(games)
    model_first = games.position.eq("A").to_numpy()
    assert (np.where(model_first, games.model, games.baseline) == battles.model_a.to_numpy()).all()
    model_points_a = np.where(model_first, games.points, 1 - games.points)
    np.testing.assert_array_equal(model_points_a, battles.points_a.to_numpy())
    assert battles.winner.isna().sum() == (~games.parsed).sum()
    decided = battles.dropna(subset=["winner"])
    assert ((decided.winner == "model_a") == (decided.points_a == 1)).all()
    np.testing.assert_array_equal(battles.weight, games.weight)
    np.testing.assert_array_equal(
        np.where(model_first, games.model_tokens, games.baseline_tokens), battles.tokens_a
    )
