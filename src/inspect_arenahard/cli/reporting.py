"""``arenahard report``: one self-contained HTML page from judge logs, to share instead of a terminal."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from inspect_arenahard.cli.options import add_ranking_arguments, ranking_options
from inspect_arenahard.files.outputs import wrote

EXAMPLES = """examples:
  arenahard report logs/ --html report/
  arenahard report s3://bucket/arenahard --html report/ --reference arena.csv --prices prices.yaml
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write a self-contained HTML report (leaderboards, style, cost, judges, quality) from judge logs",
        description="One static page that opens from disk with no network: leaderboards with CIs per category "
        "(plain and style-controlled), per-model answer style and cost, judge analytics, benchmark quality "
        "against a reference, power, and the disputed games to open in `inspect view`.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add(
        "logs",
        nargs="+",
        metavar="LOG",
        help="Inspect log files or folders (local or s3://…) of arenahard runs",
    )
    add("--html", type=Path, required=True, metavar="OUT", help="folder to write index.html into")
    add_ranking_arguments(
        parser
    )  # --style-control: features of the style-controlled board (default length,markdown)
    add(
        "--reference",
        type=Path,
        metavar="FILE",
        help="reference scores (leaderboard CSV or bootstrap JSONL) for benchmark quality",
    )
    add(
        "--map", type=Path, metavar="FILE", help="JSON object of model-name aliases for --reference"
    )
    add(
        "--delta",
        type=float,
        default=2.0,
        help="score difference for the power section, in points (default 2)",
    )
    add(
        "--prices",
        type=Path,
        metavar="FILE",
        help="price table for calls without a recorded cost (as for leaderboard --cost)",
    )
    add(
        "--no-audit",
        action="store_true",
        help="leave out the flags column (arenahard audit's checks read every answer)",
    )
    parser.set_defaults(func=run, bulk_read=True)


def run(args: argparse.Namespace) -> int:
    from inspect_arenahard.report.page import Options, write_report

    options = Options(
        ranking=ranking_options(args), audit=not args.no_audit, reference=args.reference,
        name_map=args.map, prices=args.prices, delta=args.delta,
    )  # fmt: skip
    path = write_report([str(p) for p in args.logs], args.html, options)
    wrote(path)
    return 0
