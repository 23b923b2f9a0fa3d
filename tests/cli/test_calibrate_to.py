"""``arenahard leaderboard NEW --calibrate-to OLD``: a judge with a known scale change is mapped
back onto the old judge's scores within its intervals, residuals are printed, and fewer than
three anchors are refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from inspect_arenahard.cli import main
from inspect_arenahard.stats.verdict_points import LABELS

STRENGTH = {"m1": -1.6, "m2": -0.9, "m3": -0.3, "m4": 0.2, "m5": 0.8, "m6": 1.5}
CUTS = np.array([-1.55, -0.22, 0.22, 1.55])


def games(judge: str, k: float, c: float, models: list[str], seed: int) -> list[dict]:
    """Both games of 300 prompts per model, from an ordinal logistic judge whose advantage for
    the model is ``k · strength + c`` (the new judge's known scale change)."""
    rng = np.random.default_rng(seed)
    out = []
    for model in models:
        for q in range(300):
            for game in (1, 2):
                latent = k * STRENGTH[model] + c + rng.logistic()
                verdict = 4 - int(np.searchsorted(CUTS, latent))  # 0: the model much better
                position = "B" if game == 1 else "A"
                label = LABELS[verdict] if position == "A" else LABELS[4 - verdict]
                out.append({"question_id": f"q{q}", "model": model, "baseline": "base",
                            "judge": judge, "game": game, "model_position": position,
                            "label": label, "parsed": True, "version": "v0.1", "log": judge})  # fmt: skip
    return out


@pytest.fixture
def two_judges(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[dict]]:
    from inspect_arenahard.logs import ranked_games
    from inspect_arenahard.logs.reader import LogGames

    by_path = {
        "new": games("new", 0.6, 0.3, list(STRENGTH), 1),
        "old": games("old", 1.0, 0.0, list(STRENGTH), 2),
        "old2": games("old", 1.0, 0.0, ["m1", "m6"], 3),
    }
    monkeypatch.setattr(
        ranked_games, "read_games", lambda paths, on_sample=None: LogGames(games=by_path[paths[0]])
    )
    return by_path


def test_a_known_scale_change_is_undone_and_residuals_printed(
    two_judges: dict[str, list[dict]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "lb.json"
    code = main(["leaderboard", "new", "--no-audit", "--calibrate-to", "old", "--json", str(out)])
    printed = capsys.readouterr().out
    assert code == 0 and "Anchors: old judge's score" in printed and "logit(old) =" in printed
    old_scores = {}
    assert main(["leaderboard", "old", "--no-audit", "--json", str(tmp_path / "old.json")]) == 0
    capsys.readouterr()
    for row in json.loads((tmp_path / "old.json").read_text()):
        old_scores[row["model"]] = row["score"]
    rows = {r["model"]: r for r in json.loads(out.read_text()) if r["model"] != "base"}
    assert set(rows) == set(STRENGTH)
    for model, row in rows.items():
        assert row["calibrated_lower"] <= old_scores[model] <= row["calibrated_upper"]
        assert row["anchor_residual"] == pytest.approx(old_scores[model] - row["calibrated_score"])
    calibrated = np.mean([abs(r["calibrated_score"] - old_scores[m]) for m, r in rows.items()])
    uncalibrated = np.mean([abs(r["score"] - old_scores[m]) for m, r in rows.items()])
    assert calibrated < 5 and uncalibrated > 2 * calibrated  # points


def test_fewer_than_three_anchors_are_refused_in_one_line(
    two_judges: dict[str, list[dict]], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["leaderboard", "new", "--no-audit", "--calibrate-to", "old2"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1] == (
        "arenahard leaderboard: error: --calibrate-to: calibration needs at least 3 models "
        "judged by both judges, got 2: m1, m6"
    )


def test_calibrated_fields_belong_to_the_overall_table_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With a table per category, the calibration (fitted on the overall table) is written on
    the overall rows only: a category row never carries the overall's calibrated score."""
    from inspect_arenahard.logs import ranked_games
    from inspect_arenahard.logs.reader import LogGames

    def two_categories(judge: str, k: float, c: float, seed: int) -> list[dict]:
        rows = games(judge, k, c, list(STRENGTH), seed)
        for row in rows:
            row["category"] = "hard" if int(row["question_id"][1:]) % 2 else "creative"
        return rows

    by_path = {"new": two_categories("new", 0.6, 0.3, 1), "old": two_categories("old", 1.0, 0.0, 2)}
    monkeypatch.setattr(
        ranked_games, "read_games", lambda paths, on_sample=None: LogGames(games=by_path[paths[0]])
    )
    out = tmp_path / "lb.json"
    assert (
        main(["leaderboard", "new", "--no-audit", "--calibrate-to", "old", "--json", str(out)]) == 0
    )
    capsys.readouterr()
    rows = json.loads(out.read_text())
    categories = {r["category"] for r in rows}
    assert {"hard", "creative"} <= categories and len(categories) == 3
    calibrated = {r["category"] for r in rows if "calibrated_score" in r}
    assert len(calibrated) == 1 and calibrated.isdisjoint({"hard", "creative"})
    overall = [r for r in rows if r["category"] in calibrated and r["model"] != "base"]
    assert {r["model"] for r in overall} == set(STRENGTH)
