"""``arenahard metrics``: benchmark quality against a reference ranking (separability, agreement
with confidence, pair-rank Brier, Spearman/Kendall).

Benchmark scores come from Inspect logs or a JSONL of game records (ranked here), or from a
bootstrap JSONL / leaderboard CSV (``--benchmark``). The analysis is
``inspect_arenahard.stats.reference_comparison.compare_with_reference``; this module renders
its result as tables and (``--json``) as its ``to_dict()``. matplotlib is imported only for
``--plot``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from inspect_arenahard.cli.game_inputs import add_game_inputs, load_games
from inspect_arenahard.cli.options import (
    PLOT_HELP,
    add_ranking_arguments,
    plot_file,
    ranking_options,
)
from inspect_arenahard.cli.tables import Column, cell, print_records, print_table
from inspect_arenahard.errors import UserError
from inspect_arenahard.files.outputs import save_figure, write_json

if TYPE_CHECKING:  # the statistics load when a command runs, not when its parser is built
    from inspect_arenahard.stats.reference_comparison import ReferenceComparison
    from inspect_arenahard.stats.score_tables import Alignment, ScoreTable


def _print_unmatched(alignment: Alignment) -> None:
    for title, names in (
        ("only in benchmark", alignment.only_benchmark),
        ("only in reference", alignment.only_reference),
        (
            "matched but not in --map (excluded by --only-mapped)",
            [b for b, _ in alignment.not_in_map],
        ),
        ("unused --map entries", alignment.unused_map_entries),
    ):
        if names:
            print(f"{title} ({len(names)}): {', '.join(names)}")


MODEL_COLUMNS: list[Column] = [
    ("benchmark model", "benchmark_model"),
    ("score", "score"),
    ("lower", "lower"),
    ("upper", "upper"),
    ("reference model", "reference_model"),
    ("ref score", "reference_score"),
    ("ref lower", "reference_lower"),
    ("ref upper", "reference_upper"),
]


def _benchmark_from_logs(args: argparse.Namespace) -> ScoreTable:
    """The overall table (pooled, or the v2.0 combined score) at ``--ci``, ranked from judge
    games by the ranking service with the command's ranking options."""
    from inspect_arenahard.stats.ranking import rank
    from inspect_arenahard.stats.score_tables import leaderboard_scores

    table = rank(load_games(args.logs, args.games), ranking_options(args)).overall
    if table.unranked:
        print(
            f"models without any parsed game, not ranked: {', '.join(f'{m} ({n} unparsed)' for m, n in table.unranked.items())}"
        )
    source = ", ".join([*args.logs, *([args.games] if args.games else [])])
    source += f" ({table.interval})"
    if table.style:
        from inspect_arenahard.report.leaderboard_tables import style_label

        source += f" ({style_label(table)})"
    return leaderboard_scores(source, table)


def run_metrics(args: argparse.Namespace) -> int:
    from inspect_arenahard.report.score_table_files import load_name_map, load_score_table
    from inspect_arenahard.stats.reference_comparison import compare_with_reference
    from inspect_arenahard.stats.score_tables import align_models

    if bool(args.benchmark) == bool(args.logs or args.games):
        raise UserError("give either logs (or --games) or --benchmark FILE, not both or neither")
    bench = load_score_table(args.benchmark) if args.benchmark else _benchmark_from_logs(args)
    ref = load_score_table(args.reference)
    name_map = load_name_map(args.map) if args.map else None
    alignment = align_models(bench.models, ref.models, name_map, only_mapped=args.only_mapped)
    try:
        comparison = compare_with_reference(bench, ref, alignment, args.ci)
    except UserError:  # too few matches: show what did not match
        _print_unmatched(alignment)
        raise
    print_comparison(comparison)
    if args.json:
        write_json(args.json, comparison.to_dict())
    if args.plot:
        plot_scores(args.plot, comparison)
    return 0


def print_comparison(c: ReferenceComparison) -> None:
    """The matched models with both intervals, then every quality metric."""
    a, m = c.alignment, c.metrics
    print(
        f"benchmark: {c.benchmark}\nreference: {c.reference}\nmodels compared: {len(c.models)}"
        + (f" (name map applied {a.map_direction})" if a.map_direction else "")
    )
    _print_unmatched(a)
    print_records(f"Models ({c.ci:.0%} intervals)", MODEL_COLUMNS, c.models)
    print_table(
        "Benchmark quality",
        ["metric", "value", "note"],
        [
            [
                "separability",
                m.separability,
                f"pairs with non-overlapping {c.ci:.0%} CIs, {m.n_pairs} pairs",
            ],
            [
                "separability (all benchmark models)",
                c.separability_all,
                f"{c.n_benchmark_models} models",
            ],
            ["reference separability", m.reference_separability, ""],
            [
                "agreement with CI",
                m.agreement_with_ci,
                f"{m.n_agree} agree, {m.n_disagree} disagree, rest 0",
            ],
            [
                "agreement (notebook variant)",
                m.agreement_notebook,
                f"over {m.n_reference_separated} reference-separated pairs",
            ],
            ["pair-rank Brier", m.brier, "lower is better"],
            ["Spearman", m.spearman, ""],
            ["Kendall tau-b", m.kendall_tau, ""],
            ["n models / n pairs", f"{m.n_models} / {m.n_pairs}", ""],
        ],
    )


def plot_scores(path: str | Path, c: ReferenceComparison) -> None:
    """A plot of benchmark score against reference score, with both intervals as error bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ms = c.models
    x, y = [m.reference_score for m in ms], [m.score for m in ms]
    fig, ax = plt.subplots(figsize=(9, 7))
    ax.errorbar(
        x,
        y,
        xerr=[[m.reference_score - m.reference_lower for m in ms], [m.reference_upper - m.reference_score for m in ms]],
        yerr=[[m.score - m.lower for m in ms], [m.upper - m.score for m in ms]],
        fmt="o",
        ms=4,
        capsize=2,
        elinewidth=0.8,
    )  # fmt: skip
    for m in ms:
        ax.annotate(
            m.benchmark_model,
            (m.reference_score, m.score),
            fontsize=7,
            xytext=(3, 3),
            textcoords="offset points",
        )
    note = f"Spearman {cell(c.metrics.spearman)}, separability {cell(c.metrics.separability)}"
    ax.set_xlabel(f"reference: {Path(c.reference).name}")
    ax.set_ylabel(f"benchmark: {Path(c.benchmark).name}")
    ax.set_title(f"Benchmark vs reference ({c.ci:.0%} intervals)\n{note}")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "metrics",
        help="benchmark quality against a human reference (separability, agreement, Brier, rank correlation)",
    )
    add_game_inputs(p)
    p.add_argument(
        "--benchmark",
        metavar="FILE",
        help="benchmark scores: bootstrap JSONL or leaderboard CSV (instead of logs)",
    )
    p.add_argument(
        "--reference",
        metavar="FILE",
        required=True,
        help="reference scores: bootstrap JSONL or leaderboard CSV",
    )
    p.add_argument(
        "--map",
        metavar="FILE",
        help="JSON object of model-name aliases between benchmark and reference",
    )
    p.add_argument("--only-mapped", action="store_true", help="compare only models named in --map")
    p.add_argument(
        "--plot",
        type=plot_file,
        metavar="FILE",
        help=f"benchmark-vs-reference scatter plot with intervals; {PLOT_HELP}",
    )
    add_ranking_arguments(p)  # --ci too: the level of both tables' intervals
    p.set_defaults(func=run_metrics, bulk_read=True)
