"""``arenahard leaderboard``: rank models from judge logs or a battle file."""

from __future__ import annotations

import argparse
import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspect_arenahard.cli.calibration import (
    add_calibration_argument,
    calibrate,
    print_calibrated,
)
from inspect_arenahard.cli.options import (
    PLOT_HELP,
    add_cost_arguments,
    add_ranking_arguments,
    output_file,
    plot_file,
    ranking_options,
)
from inspect_arenahard.errors import UserError
from inspect_arenahard.logs.battle_files import read_battles_soon
from inspect_arenahard.stats.battles import Battles
from inspect_arenahard.stats.game_record import GameRecord

if TYPE_CHECKING:
    from concurrent.futures import Future

    from inspect_arenahard.logs.reader import Run
    from inspect_arenahard.report.costs import CostReport

EXAMPLES = """examples:
  arenahard leaderboard logs/
  arenahard leaderboard logs/ --judge openai/gpt-4.1 --category hard_prompt
  arenahard leaderboard logs/ --style-control length,markdown --plot lb.png
  arenahard leaderboard logs/ --style-control length,markdown --style-anchor equal
  arenahard leaderboard --battles battles.jsonl --baseline gpt-4-0314 --json lb.json
  arenahard leaderboard logs/ --ci-method official --rounds 100  # the published (too narrow) CI
  arenahard leaderboard new_judge_logs/ --calibrate-to old_judge_logs/
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
        "max tokens, reference …), or by a judge whose canary verdicts drifted between runs, "
        "instead of refusing; every output is then labelled",
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
    add_calibration_argument(parser)
    parser.set_defaults(func=run, bulk_read=True)


def run(args: argparse.Namespace) -> int:
    # a battle file's start-up is kept out of collections until the command ends; judge logs
    # are read as any caller's code runs, and a heap the caller froze itself is left as it is
    quiet = bool(args.battles) and gc.get_freeze_count() == 0
    try:
        return _run(args, quiet)
    finally:
        if quiet:
            gc.unfreeze()


def _run(args: argparse.Namespace, quiet: bool) -> int:
    options = ranking_options(args)  # a bad flag is refused before any input is read
    with _no_collection_while_building(quiet):
        battles = _battles_soon(args)  # a battle file is parsed while the ranking code is imported
        from inspect_arenahard.report.leaderboard_tables import (
            format_tables,
            plot_forest,
            write_csv,
            write_json,
        )
        from inspect_arenahard.stats.ranking import rank

        read = _Read(battles.result()) if battles is not None else None
    if read is None:  # logs are read with the collector as usual: their records make garbage
        read = _load_logs(args)
    ranking = rank(read.inputs, options)
    tables, left_out = ranking.tables, ranking.left_out
    judging = ranking.judgings()
    columns, extra = _model_columns(read, {row.model for table in tables for row in table.rows})
    _anytime_columns(read.runs, columns, extra)
    if read.pooled:
        for fields in extra.values():
            fields["pooled_settings"] = read.pooled
    calibrated = calibrate(args, ranking) if args.calibrate_to else None
    own = {} if calibrated is None else {ranking.overall.category: calibrated.fields()}
    print(format_tables(tables, columns, judging))
    if calibrated is not None:
        print_calibrated(calibrated, options.ci)
    if read.pooled:
        print(f"pooled across differing judge settings (--pool-settings): {', '.join(read.pooled)}")
    if left_out:
        print(
            f"combined: prompt-weighted mean of the category scores; not in every category, so left out: {', '.join(left_out)}"
        )
    if read.costs:
        from inspect_arenahard.report.costs import format_costs

        print("\n" + format_costs(read.costs))
    if args.json:
        write_json(args.json, tables, extra, judging, own)
    if args.csv:
        write_csv(args.csv, tables, extra, judging, own)
    if args.plot:
        plot_forest(args.plot, tables)
    return 0


@contextmanager
def _no_collection_while_building(active: bool) -> Iterator[None]:
    """No cyclic collection while the modules are imported and a battle file read, and what they
    built is then left out of later collections (``gc.freeze``): both live until the command
    ends, so tracing them finds no garbage; on a million battles that cost 0.1 s of CPU,
    holding the GIL the file's reader needs."""
    if not active:
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


@dataclass
class _Read:
    """What one pass over the inputs gave: the games (or battles), the verdict settings pooled
    across (--pool-settings), the runs read, and from the same read the audit flags (None: not
    asked) and costs (None: not asked)."""

    inputs: Battles | Sequence[GameRecord]
    pooled: list[str] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    flags: dict[str, list[str]] | None = None
    costs: CostReport | None = None


def _model_columns(
    read: _Read, models: set[str]
) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, Any]]]:
    """The per-model ``flags`` (unless --no-audit) and, with --cost, cost columns: printed cells
    and the fields each JSON/CSV record gains."""
    columns: dict[str, dict[str, str]] = {}
    extra: dict[str, dict[str, Any]] = {m: {} for m in models}
    if read.flags is not None:
        columns["flags"] = {m: ",".join(read.flags.get(m, [])) for m in models}
        for m in models:
            extra[m]["flags"] = list(read.flags.get(m, []))
    costs = read.costs
    if costs:
        from inspect_arenahard.report.costs import format_cost

        columns["cost"] = {m: format_cost(costs.total_for(m)) for m in costs.per_model()}
        for m in costs.per_model():
            extra.setdefault(m, {}).update(costs.record(m))
    return columns, extra


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


def _battles_soon(args: argparse.Namespace) -> Future[Battles] | None:
    """The battle file's battles, being read on a thread; None when the inputs are logs."""
    if bool(args.logs) == bool(args.battles):
        raise UserError("give LOG paths or --battles FILE (one of the two)")
    if not args.battles:
        return None
    if args.strong_weight is not None:
        raise UserError(
            "--strong-weight applies to judge logs; battle files already repeat strong verdicts"
        )
    if args.cost:
        raise UserError("--cost reads the logs' usage records; it does not apply to --battles")
    return read_battles_soon(args.battles)


def _load_logs(args: argparse.Namespace) -> _Read:
    """The logs' game records (weighted by the ranking service) with the audit flags (unless
    --no-audit) and costs (--cost) from the same read of each log."""
    # lazy: the log reader and the audit pull in Inspect
    from inspect_arenahard.report.costs import read_prices
    from inspect_arenahard.report.log_reading import read_logs

    read = read_logs(
        args.logs,
        args.pool_settings,
        audit=not args.no_audit,
        prices=read_prices(args.prices) if args.prices else None,
        cost=args.cost,
    )
    ranked = read.ranked
    return _Read(ranked.games, ranked.pooled, ranked.read.runs, read.flags, read.costs)
