"""``arenahard curate``: build a benchmark from crowdsourced prompts (BenchBuilder).

Steps: ``ingest`` → ``cluster`` → (``inspect eval arenahard_annotate``) → ``select`` →
``report``, or all of them from one YAML file with ``run``. Each prints its JSON report.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from inspect_arenahard.cli.options import PLOT_HELP, plot_file
from inspect_arenahard.files.outputs import json_text
from inspect_arenahard.typed_options import add_options, from_args


def _print(report: dict[str, Any]) -> int:
    print(json_text({k: v for k, v in report.items() if k not in ("settings", "key")}))
    return 0


def _ingest(args: argparse.Namespace) -> int:
    from inspect_arenahard.curate.ingest import ingest
    from inspect_arenahard.curate.step_options import IngestOptions, ScaleOptions
    from inspect_arenahard.curate.work import Work

    work, options = Work.at(args.out, create=True), from_args(IngestOptions, args)
    return _print(ingest(args.source, work, options, args.force, from_args(ScaleOptions, args)))


def _cluster(args: argparse.Namespace) -> int:
    from inspect_arenahard.curate.cluster import cluster
    from inspect_arenahard.curate.step_options import ClusterOptions, FilterOptions, ScaleOptions
    from inspect_arenahard.curate.work import Work

    options = from_args(FilterOptions, args), from_args(ClusterOptions, args)
    return _print(cluster(Work.at(args.work), *options, args.force, from_args(ScaleOptions, args)))


def _select(args: argparse.Namespace) -> int:
    from inspect_arenahard.curate.selection import select
    from inspect_arenahard.curate.step_options import SelectOptions
    from inspect_arenahard.curate.work import Work

    return _print(select(Work.at(args.work), args.logs, from_args(SelectOptions, args), args.force))


def _price(text: str) -> tuple[str, tuple[float, float]]:
    model, _, pair = text.partition("=")
    try:
        price_in, price_out = (float(x) for x in pair.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--price {text!r}: expected MODEL=INPUT,OUTPUT (USD per million tokens)"
        ) from None
    return model, (price_in, price_out)


def _report(args: argparse.Namespace) -> int:
    from inspect_arenahard.curate.curation_report import report
    from inspect_arenahard.curate.work import Work

    prices = dict(args.price or [])
    return _print(
        report(Work.at(args.work), args.logs, Path(args.plot) if args.plot else None, prices)
    )


def _run(args: argparse.Namespace) -> int:
    from inspect_arenahard.curate.config import run

    reports = run(args.config, args.force)
    for report in reports.values():
        _print(report)
    return 0


def register(subparsers: Any) -> None:
    from inspect_arenahard.curate.step_options import (
        ClusterOptions,
        FilterOptions,
        IngestOptions,
        ScaleOptions,
        SelectOptions,
    )

    parser = subparsers.add_parser(
        "curate", help="build a hard, diverse benchmark from crowdsourced prompts (BenchBuilder)"
    )
    steps = parser.add_subparsers(dest="step", metavar="STEP", required=True)
    force = {"action": "store_true", "help": "redo the step even when its inputs are unchanged"}

    p = steps.add_parser(
        "run", help="run the pipeline described by a YAML config (see tasks/curate_example.yaml)"
    )
    p.add_argument("config", help="YAML config file")
    p.add_argument("--force", **force)
    p.set_defaults(func=_run)

    p = steps.add_parser(
        "ingest",
        help="read prompts from a Hugging Face dataset id or JSON/JSONL/Parquet files or shards",
    )
    p.add_argument(
        "--source",
        action="append",
        required=True,
        help="file, folder or glob of shards, saved dataset folder or hub id (repeatable)",
    )
    p.add_argument("--out", required=True, help="work folder")
    p.add_argument("--force", **force)
    add_options(p, IngestOptions)
    add_options(p, ScaleOptions, only=("engine", "ray_cpus"))
    p.set_defaults(func=_ingest)

    p = steps.add_parser("cluster", help="filter, deduplicate, embed, cluster and name topics")
    p.add_argument("work", help="work folder written by `curate ingest`")
    p.add_argument("--force", **force)
    add_options(p, FilterOptions)
    add_options(p, ClusterOptions)
    add_options(p, ScaleOptions)
    p.set_defaults(func=_cluster)

    p = steps.add_parser(
        "select", help="pick hard prompts from good clusters using arenahard_annotate logs"
    )
    p.add_argument("work", help="work folder")
    p.add_argument(
        "--logs", action="append", required=True, help="annotation log file or folder (repeatable)"
    )
    p.add_argument("--force", **force)
    add_options(p, SelectOptions)
    p.set_defaults(func=_select)

    p = steps.add_parser(
        "report", help="cluster table, score distribution, cost, and a plot of cluster means"
    )
    p.add_argument("work", help="work folder")
    p.add_argument(
        "--logs", action="append", help="annotation logs (default: those `curate select` used)"
    )
    p.add_argument(
        "--plot", type=plot_file, metavar="FILE", help=f"plot of cluster mean scores; {PLOT_HELP}"
    )
    p.add_argument(
        "--price",
        action="append",
        type=_price,
        help="MODEL=INPUT,OUTPUT USD per million tokens (repeatable)",
    )
    p.set_defaults(func=_report)
