"""A style-controlled table can never pass for a plain one: heading, JSON and CSV say which
features and which anchor, and the JSON carries the coefficients with their CIs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from inspect_arenahard.report.leaderboard_tables import format_table, write_csv, write_json
from inspect_arenahard.stats.battles import from_games
from inspect_arenahard.stats.estimates import Leaderboard, leaderboard


def meta(tokens: int, bold: int) -> dict:
    return {
        "token_len": tokens,
        "header_count": {"h1": 0},
        "list_count": {"ordered": 0},
        "bold_count": {"**": bold},
    }


@pytest.fixture(scope="module")
def tables() -> tuple[Leaderboard, Leaderboard]:
    rng = np.random.default_rng(5)
    games = []
    for model, skill in (("long-model", 0.2), ("short-model", -0.1)):
        for q in range(300):
            mine, base = int(rng.integers(100, 900)), int(rng.integers(100, 900))
            bold = int(rng.integers(0, 6))
            p = 1 / (1 + np.exp(-(skill + 2 * (mine - base) / (mine + base))))
            for game, position in ((1, "B"), (2, "A")):
                winner = position if rng.random() < p else "AB".replace(position, "")
                label = "A>B" if winner == "A" else "B>A"
                games.append({"question_id": q, "model": model, "baseline": "base", "judge": "j", "model_position": position,
                              "label": label, "style": {"model": meta(mine, bold), "baseline": meta(base, 1)}})  # fmt: skip
    battles = from_games(games)
    return leaderboard(battles, rounds=10, seed=0), leaderboard(
        battles, style=("length", "bold"), rounds=10, seed=0, style_anchor="equal"
    )


def test_heading_names_features_and_anchor(tables: tuple[Leaderboard, Leaderboard]) -> None:
    plain, styled = tables
    assert "style-controlled" not in format_table(plain)
    heading = format_table(styled).splitlines()[0]
    assert "style-controlled (length, bold; equal anchor): win-rate at equal style" in heading


def test_json_and_csv_records_carry_style_fields(
    tables: tuple[Leaderboard, Leaderboard], tmp_path: Path
) -> None:
    plain, styled = tables
    write_json(tmp_path / "plain.json", [plain])
    assert all("style_control" not in r for r in json.loads((tmp_path / "plain.json").read_text()))
    write_json(tmp_path / "styled.json", [styled])
    records = json.loads((tmp_path / "styled.json").read_text())
    assert {(r["style_control"], r["style_anchor"]) for r in records} == {("length,bold", "equal")}
    coefficients = records[0]["style_coefficients"]
    assert list(coefficients) == ["length", "bold"]
    for c in styled.style:
        assert coefficients[c.name] == {"value": c.value, "lower": c.lower, "upper": c.upper}
    assert coefficients["length"]["lower"] > 0  # the simulated length preference, with its CI
    write_csv(tmp_path / "styled.csv", [plain, styled])
    rows = list(csv.DictReader((tmp_path / "styled.csv").open()))
    assert list(rows[0]) == [
        "category",
        "model",
        "score",
        "lower",
        "upper",
        "n",
        "avg_tokens",
        "excluded",
        "excluded_unparsed",
        "excluded_partners",
        "excluded_self",
        "ci_method",
        "style_control",
        "style_anchor",
    ]
    assert {r["style_anchor"] for r in rows} == {
        "",
        "equal",
    }  # the plain table's rows leave them empty
