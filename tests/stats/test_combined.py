"""The combined score across v2.0 categories: prompt-weighted per-category scores, each against its
own baseline, with independent-category intervals (bootstrap and sandwich)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import norm

from inspect_arenahard.cli import main
from inspect_arenahard.stats.battles import from_games
from inspect_arenahard.stats.combined import combine, prompts_per_category
from inspect_arenahard.stats.ranking import RankingOptions, leaderboards
from inspect_arenahard.stats.sandwich import cluster_robust_covariance

BASELINES = {"hard_prompt": "o3-mini", "creative_writing": "gemini-2.0-flash"}
PROMPTS = {"hard_prompt": 200, "creative_writing": 100}
STRENGTH = {
    "hard_prompt": {"m1": 0.9, "m2": -0.2, "m3": 0.4, "only-hard": 0.0},
    "creative_writing": {"m1": -0.3, "m2": 0.6, "m3": 0.1},
}


def v2_games(seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    games = []
    for category, strengths in STRENGTH.items():
        for q in range(PROMPTS[category]):
            for model, s in strengths.items():
                for position in "AB":
                    u = rng.random()
                    label = (
                        "A=B"
                        if u < 0.1
                        else ("A>B" if (u < 0.1 + 0.9 * expit(s)) == (position == "A") else "B>A")
                    )
                    games.append({
                        "question_id": f"{category}-{q}", "model": model, "baseline": BASELINES[category], "category": category,
                        "model_position": position, "label": label, "parsed": True,
                    })  # fmt: skip
    return games


def _points(games: list[dict], model: str, category: str) -> float:
    value = {"A>B": 1.0, "A=B": 0.5, "B>A": 0.0}
    mine = [
        value[g["label"]] if g["model_position"] == "A" else 1 - value[g["label"]]
        for g in games
        if g["model"] == model and g["category"] == category
    ]
    return 100 * float(np.mean(mine))


@pytest.mark.parametrize("method", ["bt", "mean"])
def test_combined_score_is_the_prompt_weighted_per_category_score(method: str) -> None:
    games = v2_games()
    battles = from_games(games)
    prompts = prompts_per_category(battles)
    assert prompts == PROMPTS
    tables = leaderboards(battles, RankingOptions(method=method))
    assert [t.category for t in tables] == [
        "creative_writing",
        "hard_prompt",
    ]  # different baselines: no pooled table
    table, left_out = combine(tables, prompts)
    assert left_out == ["gemini-2.0-flash", "o3-mini", "only-hard"]
    for row in table.rows:
        expected = (
            200 * _points(games, row.model, "hard_prompt")
            + 100 * _points(games, row.model, "creative_writing")
        ) / 300
        assert row.score == pytest.approx(
            expected, abs=1e-6
        )  # single-baseline BT = (wins + ties/2) / n
        assert row.lower < row.score < row.upper
    assert "o3-mini (66.7% of prompts)" in table.baseline


def test_bootstrap_interval_treats_categories_as_independent() -> None:
    tables = leaderboards(
        from_games(v2_games(1)), RankingOptions(method="mean", rounds=4000, ci_method="official")
    )
    table, _ = combine(tables, PROMPTS)
    w = {"hard_prompt": 2 / 3, "creative_writing": 1 / 3}
    z = norm.ppf(0.975)
    for row in table.rows:
        independent = np.sqrt(
            sum((w[t.category] * np.std(t.bootstrap[row.model])) ** 2 for t in tables)
        )
        perfectly_paired = sum(w[t.category] * np.std(t.bootstrap[row.model]) for t in tables)
        assert (row.upper - row.lower) / (2 * z) == pytest.approx(independent, rel=0.08)
        assert independent < 0.9 * perfectly_paired  # the check can tell the two apart


def test_sandwich_combined_interval_is_the_delta_method_over_categories() -> None:
    battles = from_games(v2_games(2))
    tables = leaderboards(battles, RankingOptions(ci=0.9))
    table, _ = combine(tables, PROMPTS)
    z = norm.ppf(0.95)
    for row in table.rows:
        variance, score = 0.0, 0.0
        for category, n in PROMPTS.items():
            sub = battles.where(category=category)
            anchor = sub.index(BASELINES[category])
            own = {r.model: r.score for r in next(t for t in tables if t.category == category).rows}
            theta = np.log(
                np.array([own.get(m, 50.0) for m in sub.models])
                / (100 - np.array([own.get(m, 50.0) for m in sub.models]))
            )
            cov = cluster_robust_covariance(
                sub.a, sub.b, sub.points, sub.weight, sub.question_id, theta, anchor=anchor
            ).covariance
            j = sub.index(row.model)
            p = own[row.model] / 100
            variance += (n / 300 * 100 * p * (1 - p)) ** 2 * cov[j, j]
            score += n / 300 * own[row.model]
        assert (row.lower, row.upper) == pytest.approx(
            (score - z * np.sqrt(variance), score + z * np.sqrt(variance)), abs=1e-6
        )


def test_leaderboard_cli_prints_the_combined_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = v2_games(3)
    path = tmp_path / "battles.jsonl"
    winner = {"A>B": "model_a", "A=B": "tie", "B>A": "model_b"}
    with path.open("w", encoding="utf-8") as handle:
        for g in games:
            a, b = (
                (g["model"], g["baseline"])
                if g["model_position"] == "A"
                else (g["baseline"], g["model"])
            )
            handle.write(
                json.dumps(
                    {
                        "question_id": g["question_id"],
                        "model_a": a,
                        "model_b": b,
                        "winner": winner[g["label"]],
                        "category": g["category"],
                    }
                )
                + "\n"
            )
    assert (
        main(
            [
                "leaderboard",
                "--battles",
                str(path),
                "--rounds",
                "50",
                "--json",
                str(tmp_path / "lb.json"),
            ]
        )
        == 0
    )
    out = capsys.readouterr()
    assert "category: combined" in out.out and "category: hard_prompt" in out.out
    assert (
        "left out: gemini-2.0-flash, o3-mini, only-hard" in out.out
        and "category: all" not in out.out
    )
    records = json.loads((tmp_path / "lb.json").read_text())
    assert {r["model"] for r in records if r["category"] == "combined"} == {"m1", "m2", "m3"}
