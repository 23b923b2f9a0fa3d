"""``arenahard power``: how many prompts a benchmark needs to separate two models a given number
of points apart, per judge, from the variance of the leaderboard's intervals (same options).

The analysis is ``inspect_arenahard.stats.power.power_per_judge``; this module renders its
result as tables and (``--json``) as its ``to_dict()``.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from inspect_arenahard.cli.game_inputs import add_game_inputs, load_games
from inspect_arenahard.cli.options import add_ranking_arguments, ranking_options
from inspect_arenahard.cli.tables import Column, print_records, print_table
from inspect_arenahard.files.outputs import write_json

if TYPE_CHECKING:  # the statistics load when the command runs, not when its parser is built
    from inspect_arenahard.stats.power import PowerReport

SPREAD_COLUMNS: list[Column] = [
    ("model", "model"),
    ("prompts", "n_prompts"),
    ("score", "mean"),
    ("se", "se"),
    ("per-prompt sd", "sd"),
]


def run_power(args: argparse.Namespace) -> int:
    from inspect_arenahard.stats.power import power_per_judge

    options = ranking_options(args)
    reports = power_per_judge(load_games(args.logs, args.games), options, args.delta)
    for judge, report in reports.items():
        print_power(judge, report)
    if args.json:
        write_json(args.json, {"judges": {judge: r.to_dict() for judge, r in reports.items()}})
    return 0


def print_power(judge: str, r: PowerReport) -> None:
    """One judge's per-model spread, then the prompts needed under both criteria."""
    print_records(f"Score spread, judge {judge} ({r.interval})", SPREAD_COLUMNS, r.models)
    print_table(
        f"Power for delta = {r.delta} points at {r.ci:.0%} (the leaderboard's variance)",
        [
            "criterion",
            "typical sd",
            "prompts needed",
            f"min delta at n={r.n_prompts}",
            "pairs separated now",
        ],
        [
            [
                "non-overlapping normal CIs",
                r.typical_sd,
                r.prompts_needed_ci_overlap,
                r.min_delta_ci_overlap,
                f"{r.pairs_separated_ci_overlap}/{r.n_pairs}",
            ],
            [
                "paired z-test",
                r.typical_sd_diff,
                r.prompts_needed_paired,
                r.min_delta_paired,
                f"{r.pairs_separated_paired}/{r.n_pairs}",
            ],
        ],
    )
    counts = ", ".join(f"{s.model} {s.n_prompts}" for s in r.models)
    print(f"n = {r.n_prompts}: the median of the measured models' prompt counts ({counts})")
    print(
        "tests used: the leaderboard's own variance (its interval method, prompt-clustered by "
        "default); 'non-overlapping normal CIs' asks whether two models' intervals overlap, as the "
        "leaderboard prints them; 'paired z-test' tests their difference with the covariance of "
        "the same fit (both models answer the same prompts)."
    )
    if r.prompts_needed_paired is None:
        only = ", ".join(s.model for s in r.models)
        print(
            f"paired test: only one model is scored (judge {judge}: {only}); "
            "add a log of another model on the same prompts"
        )


def _delta(text: str) -> float:
    """argparse type for ``--delta``: refused before any log is read."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} must be a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"delta must be positive, got {text}")
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "power", help="prompts needed to separate two models a given delta apart"
    )
    add_game_inputs(p)
    p.add_argument(
        "--delta",
        type=_delta,
        default=2.0,
        help="score difference to detect, in points (default 2)",
    )
    add_ranking_arguments(p)
    p.set_defaults(func=run_power, bulk_read=True)
