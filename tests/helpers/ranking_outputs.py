"""The same ranking read three ways: ``arenahard leaderboard --json``, the data embedded in
``arenahard report --html`` and ``inspect_arenahard.report.dataframes.leaderboard_df``."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from inspect_arenahard.cli import main
from inspect_arenahard.cli.options import add_ranking_arguments, ranking_options


def three_outputs(logs: Path, flags: list[str], tmp_path: Path) -> tuple[list[dict[str, Any]], ...]:
    """(CLI JSON records, the HTML page's embedded records, the dataframe's records) for the
    same ranking ``flags``; with ``--style-control`` the page's style-controlled boards."""
    out = tmp_path / "lb.json"
    assert main(["leaderboard", str(logs), *flags, "--no-audit", "--json", str(out)]) == 0
    cli = json.loads(out.read_text())
    assert main(["report", str(logs), *flags, "--no-audit", "--html", str(tmp_path / "page")]) == 0
    html = (tmp_path / "page" / "index.html").read_text(encoding="utf-8")
    match = re.search(
        r'<script type="application/json" id="leaderboard-data">(.*?)</script>', html, re.S
    )
    assert match, "the page embeds its leaderboard data"
    page = json.loads(match.group(1))["styled" if "--style-control" in flags else "plain"]
    parser = argparse.ArgumentParser()
    add_ranking_arguments(parser)
    from inspect_arenahard.report.dataframes import leaderboard_df

    frame = leaderboard_df(logs, ranking_options(parser.parse_args(flags)))
    if frame["category"].nunique() == 1:  # one table: the JSON records carry no category either
        frame = frame.drop(columns="category")
    records = [
        {k: v for k, v in r.items() if v == v} for r in frame.to_dict("records")
    ]  # NaN → absent
    return cli, page, records


AGREEMENT_FLAGS = [
    ["--style-control", "length", "--ci-method", "sandwich", "--strong-weight", "1"],
    ["--ci-method", "official", "--rounds", "30", "--strong-weight", "1", "--method", "bt"],
]
"""The option sets the agreement tests run (the issue's: style control, sandwich, strong weight 1;
and the official interval)."""


def agreed_records(logs: Path, flags: list[str], tmp_path: Path) -> list[dict[str, Any]]:
    """The CLI JSON records, after checking that the page's data and the dataframe hold the
    same numbers."""
    cli, page, frame = three_outputs(logs, flags, tmp_path)
    assert comparable(cli) == comparable(page) == comparable(frame)
    assert {r["ci_method"] for r in cli} == {"official" if "official" in flags else "sandwich"}
    return cli


def comparable(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """(category, model, score, lower, upper, n, excluded, ci_method) of each record, sorted."""
    return sorted(
        (r.get("category", "all"), r["model"], r["score"], r["lower"], r["upper"], r["n"], r["excluded"], r["ci_method"])
        for r in records
    )  # fmt: skip
