"""``arenahard judges``: judge analytics from game records — position bias and consistency,
agreement between judges, self-bias and length bias.

The analysis is ``inspect_arenahard.stats.judge_analytics.analyse_judges``; this module renders
its result as tables and (``--json``) as its ``to_dict()``.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from inspect_arenahard.cli.canary_drift import run_drift
from inspect_arenahard.cli.game_inputs import add_game_inputs, load_games
from inspect_arenahard.cli.judge_card import run_card
from inspect_arenahard.cli.tables import Column, cell, print_records, print_table
from inspect_arenahard.files.outputs import write_json

if TYPE_CHECKING:  # the statistics load when the command runs, not when its parser is built
    from inspect_arenahard.stats.judge_analytics import JudgeAnalytics

POSITION_COLUMNS: list[Column] = [
    ("judge", "judge"),
    ("games", "n_games"),
    ("unparsed", "n_unparsed"),
    ("A wins", "a_win_rate"),
    ("B wins", "b_win_rate"),
    ("ties", "tie_rate"),
    ("A share of decisive", "a_share_of_decisive"),
    ("p (A=B)", "position_p_value"),
    ("swapped prompts", "n_prompts"),
    ("incomplete", "n_incomplete"),
    ("consistent", "consistency"),
    ("consistent (strength)", "consistency_strict"),
]


def run_judges(args: argparse.Namespace) -> int:
    if args.drift:
        return run_drift(args.logs, args.json)
    if args.card:
        return run_card(args.logs, args.json)
    from inspect_arenahard.report.score_table_files import load_name_map, load_score_table
    from inspect_arenahard.stats.judge_analytics import analyse_judges

    records = load_games(args.logs, args.games)
    reference = load_score_table(args.reference) if args.reference else None
    name_map = load_name_map(args.map) if args.reference and args.map else None
    families = load_name_map(args.families) if args.families else None
    result = analyse_judges(records, reference, name_map, families)
    print_judges(result)
    if args.json:
        write_json(args.json, result.to_dict())
    return 0


def print_judges(result: JudgeAnalytics) -> None:
    """Position bias, agreement, self-bias and length tables, in that order."""
    print_records("Position bias and consistency", POSITION_COLUMNS, result.positions)
    if result.agreement is not None:
        fine, coarse = result.agreement
        print_table(
            "Judge-judge agreement (same games)",
            [
                "judge A",
                "judge B",
                "games",
                "agreement",
                "Cohen kappa",
                "agreement (W/T/L)",
                "kappa (W/T/L)",
            ],
            [
                [f.judge_a, f.judge_b, f.n_items, f.agreement, f.kappa, c.agreement, c.kappa]
                for f, c in zip(fine.pairs, coarse.pairs)
            ],
        )
        print(
            f"mean agreement probability: {cell(fine.mean_agreement)} (W/T/L {cell(coarse.mean_agreement)})"
        )
        if fine.fleiss_kappa is not None:
            print(
                f"Fleiss kappa over {fine.n_items_all_judges} games scored by all {len(result.positions)} judges: "
                f"{cell(fine.fleiss_kappa)} (W/T/L {cell(coarse.fleiss_kappa)})"
            )
    if result.unscored:
        print(
            f"models without a reference score ({len(result.unscored)}): {', '.join(result.unscored)}"
        )
    rows = [
        [b.bias.judge, r.model, r.family, r.judge_rank, r.reference_rank, r.shift,
         "yes" if r.own_family else ""]
        for b in result.self_bias
        for r in b.bias.rows
    ]  # fmt: skip
    if rows:
        print_table(
            "Self-bias: rank shift (positive = judge ranks the model higher than the reference)",
            ["judge", "model", "family", "judge rank", "reference rank", "shift", "judge's family"],
            rows,
        )
    _print_length(result)


def _print_length(result: JudgeAnalytics) -> None:
    length = result.length
    if length is None:
        print("\nLength analysis skipped: the games carry no answer-length (style) metadata.")
        return
    print_records(
        "Length: model score vs average answer tokens (style control: length + markdown)",
        [
            ("judge", "judge"),
            ("models", lambda c: c.raw["n"]),
            ("Pearson", lambda c: c.raw["pearson"]),
            ("Spearman", lambda c: c.raw["spearman"]),
            ("Pearson (style ctl)", lambda c: c.style_controlled.get("pearson", "n/a")),
            ("Spearman (style ctl)", lambda c: c.style_controlled.get("spearman", "n/a")),
            ("Spearman vs reference", "spearman_vs_reference"),
        ],
        length.judges,
    )
    for c in length.judges:
        if "unavailable" in c.style_controlled:
            print(f"style control unavailable for {c.judge}: {c.style_controlled['unavailable']}")
    print_records(
        "Share of decisive games won by the longer answer",
        [("judge", lambda jv: jv[0]), ("games", lambda jv: jv[1]["n"]), ("longer wins", lambda jv: jv[1]["longer_wins"])],
        length.longer_answer_preference.items(),
    )  # fmt: skip


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "judges",
        help="judge analytics: position bias/consistency, judge agreement, self-bias, length bias",
    )
    add_game_inputs(p)
    p.add_argument(
        "--reference",
        metavar="FILE",
        help="reference ranking for self-bias and length (default: the other judges)",
    )
    p.add_argument(
        "--map", metavar="FILE", help="JSON object of model-name aliases for --reference"
    )
    p.add_argument(
        "--families",
        metavar="FILE",
        help="JSON object model name -> family, overriding the built-in guesses",
    )
    p.add_argument(
        "--drift",
        action="store_true",
        help="instead: each judge's canary verdicts in every run against its first run, in time "
        "order (an exact test; the leaderboard refuses to pool runs that drifted)",
    )
    p.add_argument(
        "--card",
        action="store_true",
        help="instead: each judge's report card from arenahard_judgecard logs (accuracy against "
        "the human majority, human-human ceiling, position consistency, ties, length preference, "
        "the always-longer baseline)",
    )
    p.set_defaults(func=run_judges, bulk_read=True)
