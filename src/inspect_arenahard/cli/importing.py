"""``arenahard import arena-hard-auto``: bring arena-hard-auto judgments into Inspect logs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from inspect_arenahard.stats.verdict_points import check_strong_weight


def strong_weight_arg(text: str) -> int:
    """``--strong-weight``, checked as the task and the ranking check it."""
    try:
        return check_strong_weight(text, "--strong-weight")
    except ValueError as ex:
        raise argparse.ArgumentTypeError(str(ex)) from None


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "import",
        help="convert another tool's judgment files into Inspect logs",
        description="Convert arena-hard-auto judgment files (model_judgment/<judge>/<model>.jsonl, "
        "either schema) into Inspect logs that open in `inspect view` and feed `arenahard leaderboard`. "
        "Each record's baseline is the one it names, else --baseline, else the version's default for its "
        "category (v2.0: hard_prompt o3-mini-2025-01-31, creative_writing gemini-2.0-flash-001; v0.1: gpt-4-0314). "
        "Without a folder, the official release is read from the Hugging Face hub (cached, at the "
        "pinned revision the arenahard task uses); --sample reads the small real sample shipped "
        "with the package (offline). Nothing is written unless every file converts.",
    )
    parser.add_argument("source", choices=["arena-hard-auto"], help="format of the files to import")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "data_dir",
        nargs="?",
        help="arena-hard-auto data folder (question.jsonl, model_answer/, model_judgment/); "
        "default: the official release on the Hugging Face hub",
    )
    where.add_argument(
        "--sample",
        action="store_true",
        help="read the Arena-Hard v0.1 sample shipped with the package: questions, baseline "
        "answers and published judgments of the judges gpt-4o, gpt-4-1106-preview, "
        "gpt-3.5-turbo-0125 and gemini-1.5-pro-api-0514 (no network)",
    )
    parser.add_argument("--judge", required=True, help="judge folder name under model_judgment/")
    parser.add_argument("--out", required=True, help="folder for the Inspect logs")
    parser.add_argument(
        "--version",
        choices=["v0.1", "v2.0"],
        help="Arena-Hard version of the data (default: v2.0 when every question is hard_prompt or "
        "creative_writing, else v0.1; from the hub: v0.1)",
    )
    parser.add_argument(
        "--baseline",
        help="baseline for records that name none (default: the version's per-category baseline)",
    )
    parser.add_argument(
        "--strong-weight",
        type=strong_weight_arg,
        default=None,
        help="battles a >> verdict counts for in the sample score, a whole number ≥ 1 (default: the version's, 3)",
    )
    parser.add_argument(
        "--encoding",
        default=None,
        help="tokenizer for style features computed from text (default: the version's; v0.1 cl100k_base, v2.0 o200k_base)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from inspect_arenahard.logs.importer import (  # lazy: Inspect is heavy
        import_judgments,
        release_folder,
    )

    folder = release_folder(args.data_dir, args.judge, args.version, args.sample)
    result = import_judgments(
        folder,
        args.judge,
        args.out,
        args.baseline,
        args.strong_weight,
        args.encoding,
        args.version,
    )
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for path, samples, unparsed in result.logs:
        note = f", {unparsed} unparsed games (kept, excluded from scores)" if unparsed else ""
        print(f"wrote {path}: {samples} samples{note}")
    return 0
