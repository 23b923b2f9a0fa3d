"""``arenahard leaderboard``: rank models from judge logs or a battle file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspect_arenahard.cli.options import (
    PLOT_HELP,
    add_cost_arguments,
    add_ranking_arguments,
    output_file,
    plot_file,
    ranking_options,
)
from inspect_arenahard.errors import UserError
from inspect_arenahard.logs.battle_files import read_battles_jsonl
from inspect_arenahard.report.costs import (
    CostReport,
    format_cost,
    format_costs,
    log_costs,
    read_prices,
)
from inspect_arenahard.report.leaderboard_tables import (
    format_tables,
    plot_forest,
    write_csv,
    write_json,
)
from inspect_arenahard.stats.battles import Battles
from inspect_arenahard.stats.game_record import GameRecord
from inspect_arenahard.stats.ranking import rank

if TYPE_CHECKING:
    from inspect_arenahard.logs.reader import Run

EXAMPLES = """examples:
  arenahard leaderboard logs/
  arenahard leaderboard logs/ --judge openai/gpt-4.1 --category hard_prompt
  arenahard leaderboard logs/ --style-control length,markdown --plot lb.png
  arenahard leaderboard logs/ --style-control length,markdown --style-anchor equal
  arenahard leaderboard --battles battles.jsonl --baseline gpt-4-0314 --json lb.json
  arenahard leaderboard logs/ --ci-method official --rounds 100  # the published (too narrow) CI
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "leaderboard",
        help="rank models from judge logs or a battle file",
        description="Rank models by their judged battles against the baseline: Bradley–Terry "
        "(Arena-Hard v0.1) or mean score (v2.0), with prompt-clustered confidence intervals "
        "(--ci-method official: the published row bootstrap). "
        "Scores are percent against the baseline (the baseline is 50).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "logs", nargs="*", metavar="LOG", help="Inspect log files or folders of arenahard runs"
    )
    parser.add_argument(
        "--battles",
        type=Path,
        metavar="FILE",
        help="JSONL of {question_id, model_a, model_b, winner} rows instead of logs",
    )
    add_ranking_arguments(parser)
    parser.add_argument(
        "--pool-settings",
        action="store_true",
        help="pool games judged under different verdict-changing settings (template, temperature, "
        "max tokens, reference …) instead of refusing; every output is then labelled",
    )
    parser.add_argument(
        "--json", type=output_file, metavar="FILE", help="write the rows as JSON records"
    )
    parser.add_argument("--csv", type=output_file, metavar="FILE", help="write the rows as CSV")
    parser.add_argument(
        "--plot", type=plot_file, metavar="FILE", help=f"forest plot of scores and CIs; {PLOT_HELP}"
    )
    parser.add_argument(
        "--no-audit",
        action="store_true",
        help="skip the flags column (arenahard audit's checks read every answer)",
    )
    add_cost_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    runs: list[Run] = []
    inputs, pooled = _load(args, runs)
    options = ranking_options(args)
    ranking = rank(inputs, options)
    tables, left_out = ranking.tables, ranking.left_out
    judging = ranking.judgings()
    columns, extra, costs = _model_columns(
        args, {row.model for table in tables for row in table.rows}
    )
    _anytime_columns(runs, columns, extra)
    if pooled:
        for fields in extra.values():
            fields["pooled_settings"] = pooled
    print(format_tables(tables, columns, judging))
    if pooled:
        print(f"pooled across differing judge settings (--pool-settings): {', '.join(pooled)}")
    if left_out:
        print(
            f"combined: prompt-weighted mean of the category scores; not in every category, so left out: {', '.join(left_out)}"
        )
    if costs:
        print("\n" + format_costs(costs))
    if args.json:
        write_json(args.json, tables, extra, judging)
    if args.csv:
        write_csv(args.csv, tables, extra, judging)
    if args.plot:
        plot_forest(args.plot, tables)
    return 0


def _model_columns(
    args: argparse.Namespace, models: set[str]
) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, Any]], CostReport | None]:
    """The per-model ``flags`` (unless --no-audit) and, with --cost, cost columns: printed cells
    and the fields each JSON/CSV record gains."""
    columns: dict[str, dict[str, str]] = {}
    extra: dict[str, dict[str, Any]] = {m: {} for m in models}
    flags = _audit_flags(args)
    if flags is not None:
        columns["flags"] = {m: ",".join(flags.get(m, [])) for m in models}
        for m in models:
            extra[m]["flags"] = list(flags.get(m, []))
    costs = _costs(args)
    if costs:
        columns["cost"] = {m: format_cost(costs.total_for(m)) for m in costs.per_model()}
        for m in costs.per_model():
            extra.setdefault(m, {}).update(costs.record(m))
    return columns, extra, costs


def _anytime_columns(
    runs: list[Run], columns: dict[str, dict[str, str]], extra: dict[str, dict[str, Any]]
) -> None:
    """For a model ranked from one adaptive run: its anytime-valid interval (the one that covers
    under the run's stopping; the table's fixed-sample interval does not) and its skipped count."""
    by_model: dict[str, list[Run]] = {}
    for r in runs:
        by_model.setdefault(r.model, []).append(r)
    cells = {}
    for model, [*model_runs] in by_model.items():
        info = model_runs[0].adaptive
        if len(model_runs) != 1 or info is None or "lower" not in info:
            continue
        skipped = model_runs[0].skipped_samples
        cells[model] = f"[{info['lower']:.1f}, {info['upper']:.1f}] ({skipped} skipped)"
        extra.setdefault(model, {}).update(
            anytime_lower=info["lower"],
            anytime_upper=info["upper"],
            adaptive_judged=info.get("judged"),
            adaptive_skipped=skipped,
            adaptive_stopped_at=info.get("stopped_at"),
        )
    if cells:
        columns["anytime-valid CI"] = cells


def _audit_flags(args: argparse.Namespace) -> dict[str, list[str]] | None:
    """``arenahard audit`` flags per model for the ``flags`` column (logs only; lazy import)."""
    if not args.logs or args.no_audit:
        return None
    from inspect_arenahard.report.audit_inputs import model_flags

    return model_flags(args.logs)


def _costs(args: argparse.Namespace) -> CostReport | None:
    """Usage per role of the runs ranked, with --cost."""
    if not args.cost:
        return None
    if not args.logs:
        raise UserError("--cost reads the logs' usage records; it does not apply to --battles")
    return log_costs(args.logs, read_prices(args.prices) if args.prices else None)


def _load(
    args: argparse.Namespace, runs: list[Run] | None = None
) -> tuple[Battles | list[GameRecord], list[str]]:
    """The battle file's battles, or the logs' game records (weighted by the ranking service),
    and the verdict settings pooled across (--pool-settings); ``runs`` receives the runs read."""
    if bool(args.logs) == bool(args.battles):
        raise UserError("give LOG paths or --battles FILE (one of the two)")
    if args.battles:
        if args.strong_weight is not None:
            raise UserError(
                "--strong-weight applies to judge logs; battle files already repeat strong verdicts"
            )
        return read_battles_jsonl(args.battles), []
    return read_log_games(args.logs, pool_settings=args.pool_settings, runs=runs)


def read_log_games(
    paths: list[str], pool_settings: bool = False, runs: list[Run] | None = None
) -> tuple[list[GameRecord], list[str]]:
    """Game records, and the verdict settings they differ on (only with ``pool_settings``:
    otherwise differing settings are an error). Partial, replaced, ignored and damaged logs are
    listed on stderr with one summary line; finding no judged game at all is an error that says
    why (lazy import: Inspect is heavy). ``runs`` receives the runs read."""
    from inspect_arenahard.logs.reader import check_settings, no_games_error, read_games

    result = read_games(paths)
    if runs is not None:
        runs += result.runs
    for note in result.notes():
        print(note, file=sys.stderr)
    if result.runs or result.ignored:  # no file at all: the error below says so alone
        print(result.summary(), file=sys.stderr)
    if not any(g.get("parsed", True) for g in result.games):
        raise no_games_error(result, paths)
    return result.games, check_settings(result.games, pool=pool_settings)
