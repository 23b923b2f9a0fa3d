"""``arenahard leaderboard``: rank models from judge logs or a battle file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from inspect_arenahard.report import format_report, plot_forest, write_csv, write_json
from inspect_arenahard.stats.battles import Battles, from_games, read_battles_jsonl
from inspect_arenahard.stats.combined import combine, prompts_per_category
from inspect_arenahard.stats.leaderboard import CI_METHODS, METHODS, leaderboards
from inspect_arenahard.stats.style_control import parse_features
from inspect_arenahard.verdicts import STRONG_WEIGHT

EXAMPLES = """examples:
  arenahard leaderboard logs/
  arenahard leaderboard logs/ --judge openai/gpt-4.1 --category hard_prompt
  arenahard leaderboard logs/ --style-control length,markdown --rounds 1000 --plot lb.png
  arenahard leaderboard --battles battles.jsonl --baseline gpt-4-0314 --json lb.json
  arenahard leaderboard logs/ --ci-method sandwich              # one fit, prompt-clustered CIs
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "leaderboard",
        help="rank models from judge logs or a battle file",
        description="Rank models by their judged battles against the baseline: Bradley–Terry "
        "(Arena-Hard v0.1) or mean score (v2.0), with bootstrap confidence intervals. "
        "Scores are percent against the baseline (the baseline is 50).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("logs", nargs="*", metavar="LOG", help="Inspect log files or folders of arenahard runs")
    parser.add_argument("--battles", type=Path, metavar="FILE", help="JSONL of {question_id, model_a, model_b, winner} rows instead of logs")
    parser.add_argument("--baseline", help="anchor model (default: the baseline the judge records name)")
    add_ranking_arguments(parser)
    parser.add_argument(
        "--ci-method", choices=CI_METHODS, default="bootstrap",
        help="bootstrap: percentile intervals over --rounds resamples (default); sandwich: cluster-robust "
        "intervals clustered by prompt from one fit (--method bt)",
    )  # fmt: skip
    parser.add_argument("--ci", type=float, default=0.95, help="confidence level of the percentile interval (default 0.95)")
    parser.add_argument("--strong-weight", type=float, default=None, help=f"battles a strong (>>) verdict counts for (default {STRONG_WEIGHT}; logs only)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the rows as JSON records")
    parser.add_argument("--csv", type=Path, metavar="FILE", help="write the rows as CSV")
    parser.add_argument("--plot", type=Path, metavar="PNG", help="write a forest plot of scores and CIs")
    parser.set_defaults(func=run)


def add_ranking_arguments(parser: argparse.ArgumentParser, scope: str = "") -> None:
    """--judge, --category, --method, --style-control, --rounds, --seed: how games become a ranking.

    Shared by the commands that rank models from logs; ``scope`` prefixes the help texts.
    """
    add = parser.add_argument
    add("--judge", action="append", metavar="MODEL", help=f"{scope}use only this judge (repeat to pool several; default: all pooled)")
    add("--category", help=f"{scope}use only this question category")
    add("--method", choices=METHODS, default="bt", help=f"{scope}bt: Bradley–Terry win-rate (v0.1, default); mean: mean battle score (v2.0)")
    add("--style-control", metavar="FEATURES", help=f"{scope}comma-separated: length, markdown (= header,list,bold), header, list, bold")
    add("--rounds", type=int, default=100, help=f"{scope}bootstrap rounds (default 100)")
    add("--seed", type=int, default=0, help=f"{scope}bootstrap seed (default 0: the same games give the same table)")


def run(args: argparse.Namespace) -> int:
    battles = _load(args)
    battles = battles.where(judges=args.judge, category=args.category)
    style = parse_features(args.style_control) if args.style_control else ()
    tables = leaderboards(
        battles, args.baseline, method=args.method, style=style, rounds=args.rounds, seed=args.seed, ci=args.ci,
        ci_method=args.ci_method,
    )
    per_category = [t for t in tables if t.category is not None]
    left_out: list[str] = []
    if len(per_category) == len(tables) > 1:  # categories with their own baselines (v2.0), so no pooled table
        combined, left_out = combine(per_category, prompts_per_category(battles), seed=args.seed)
        tables = [*tables, combined]
    print(format_report(tables))
    if left_out:
        print(f"combined: prompt-weighted mean of the category scores; not in every category, so left out: {', '.join(left_out)}")
    if args.json:
        write_json(args.json, tables)
    if args.csv:
        write_csv(args.csv, tables)
    if args.plot:
        plot_forest(args.plot, tables)
    return 0


def _load(args: argparse.Namespace) -> Battles:
    if bool(args.logs) == bool(args.battles):
        raise ValueError("give LOG paths or --battles FILE (one of the two)")
    if args.battles:
        if args.strong_weight is not None:
            raise ValueError("--strong-weight applies to judge logs; battle files already repeat strong verdicts")
        return read_battles_jsonl(args.battles)
    games, report = read_log_games(args.logs)
    if report:
        print(report, file=sys.stderr)
    return from_games(games, STRONG_WEIGHT if args.strong_weight is None else args.strong_weight)


def read_log_games(paths: list[str]) -> tuple[list[dict[str, Any]], str | None]:
    """Game records and a note on partial, superseded and ignored runs (lazy: Inspect is heavy)."""
    from inspect_arenahard.logs import read_games

    result = read_games(paths)
    notes = result.notes()
    return result.games, "\n".join(notes) if notes else None
