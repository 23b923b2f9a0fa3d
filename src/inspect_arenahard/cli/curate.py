"""``arenahard curate``: build a benchmark from crowdsourced prompts (BenchBuilder).

Steps: ``ingest`` → ``cluster`` → (``inspect eval arenahard_annotate``) → ``select`` →
``report``, or all of them from one YAML file with ``run``. Each step prints its JSON report;
``run`` prints a short summary for people (``--json``: the reports).
"""

from __future__ import annotations

import argparse
import logging
import os
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


def _quiet_libraries() -> None:
    """No third-party chatter between the summary's lines: model-loading progress bars, and the
    advice ONNX Runtime logs on the root logger the first time it quantizes MiniLM."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    logging.getLogger().setLevel(logging.ERROR)


def _run(args: argparse.Namespace) -> int:
    from inspect_arenahard.curate.config import run

    if not args.json:
        _quiet_libraries()
    reports = run(args.config, args.force)
    if args.json:
        for report in reports.values():
            _print(report)
    else:
        print("\n".join(summary(reports)))
    return 0


def _count(n: int) -> str:
    return f"{n:,}"


def summary(reports: dict[str, dict[str, Any]]) -> list[str]:
    """What a curation run did, in a few lines: prompts in, kept and removed per filter, the
    clusters, and where every output is."""
    lines: list[str] = []
    cached = [step for step, r in reports.items() if r.get("cached")]
    if ingest := reports.get("ingest"):
        sources = ", ".join(f"{s['name']} {_count(s['records'])}" for s in ingest["sources"])
        lines.append(f"ingested {_count(ingest['records'])} prompts ({sources})")
    if cluster := reports.get("cluster"):
        removed = [f for f in cluster["filters"] if f["removed"]]
        lines.append(
            f"kept {_count(cluster['kept'])} of {_count(cluster['ingested'])}; removed: "
            + (", ".join(f"{f['filter']} {_count(f['removed'])}" for f in removed) or "none")
        )
        kept = "kept" if cluster["outliers_mode"] == "keep" else cluster["outliers_mode"]
        lines.append(
            f"clusters: {cluster['clusters']}; {_count(cluster['outliers'])} prompts in no cluster "
            f"(outliers, {kept})"
        )
    if select := reports.get("select"):
        lines.append(
            f"selected {_count(select['selected'])} prompts from {select['chosen_clusters']} of "
            f"{select['clusters']} clusters ({_count(select['annotated'])} annotated, "
            f"{_count(select['unparsed'])} unparsed)"
        )
    if cached:
        lines.append(f"unchanged inputs, reused: {', '.join(cached)} (--force redoes them)")
    if ingest:
        work = Path(ingest["output"]).parent
        lines.append(
            f"wrote {work / 'clusters.jsonl'}: one line per kept prompt (id, prompt, cluster, topic)"
        )
        lines.append(f"wrote {work / 'topics.json'}: each cluster's name, size and keywords")
        reports_written = [f"{step}_report.json" for step in reports]
        lines.append(
            f"step reports (counts of every filter): {work}/{{{','.join(reports_written)}}}"
        )
    if select:
        lines.append(f"wrote {select['output']}: the selected benchmark")
    if (report := reports.get("report")) and report.get("plot"):
        lines.append(f"wrote {report['plot']}")
    return lines


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
    p.add_argument(
        "--json", action="store_true", help="print every step's JSON report instead of a summary"
    )
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
