"""``arenahard import arena-hard-auto``: bring arena-hard-auto judgments into Inspect logs."""

from __future__ import annotations

import argparse
from typing import Any

from inspect_arenahard.verdicts import STRONG_WEIGHT


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "import",
        help="convert another tool's judgment files into Inspect logs",
        description="Convert arena-hard-auto judgment files (model_judgment/<judge>/<model>.jsonl, "
        "either schema) into Inspect logs that open in `inspect view` and feed `arenahard leaderboard`.",
    )
    parser.add_argument("source", choices=["arena-hard-auto"], help="format of the files to import")
    parser.add_argument("data_dir", help="arena-hard-auto data folder (question.jsonl, model_answer/, model_judgment/)")
    parser.add_argument("--judge", required=True, help="judge folder name under model_judgment/")
    parser.add_argument("--out", required=True, help="folder for the Inspect logs")
    parser.add_argument("--baseline", default="gpt-4-0314", help="baseline model of the judgments (default gpt-4-0314)")
    parser.add_argument("--strong-weight", type=float, default=STRONG_WEIGHT, help="weight of a >> verdict in the sample score")
    parser.add_argument(
        "--encoding", default="cl100k_base", help="tokenizer for style features computed from text (v0.1: cl100k_base, v2.0: o200k_base)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from inspect_arenahard.importer import import_judgments  # lazy: Inspect is heavy

    written = import_judgments(args.data_dir, args.judge, args.out, args.baseline, args.strong_weight, args.encoding)
    for path, samples, unparsed in written:
        print(f"{path}: {samples} samples, {unparsed} unparsed games (kept, excluded from scores)")
    return 0
