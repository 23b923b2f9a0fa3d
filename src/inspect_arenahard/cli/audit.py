"""``arenahard audit``: find models that game the judge, and judges that can be gamed."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from inspect_arenahard.cli.options import output_file
from inspect_arenahard.errors import UserError
from inspect_arenahard.files.outputs import write_json

EXAMPLES = """examples:
  arenahard audit logs/
  arenahard audit logs/ --json audit.json
  arenahard audit --answers ../shared/data/arena-hard-v0.1 --baseline gpt-4-0314
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="flag models that game the judge; show judges' attack success from probe logs",
        description="Per model: null-model (prompt-independent) answers, answers that ignore the prompt, "
        "injection attempts, empty or truncated answers, verbosity outliers; per judge: the attack "
        "success rate of each arenahard_probes probe. Thresholds and evidence rules: docs/integrity.md.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "logs",
        nargs="*",
        metavar="LOG",
        help="Inspect logs or folders (arenahard and arenahard_probes runs)",
    )
    parser.add_argument(
        "--answers",
        type=Path,
        metavar="DIR",
        help="audit model_answer/*.jsonl of a folder in arena-hard-auto's layout instead",
    )
    parser.add_argument(
        "--baseline",
        default="gpt-4-0314",
        help="baseline answers for --answers (default gpt-4-0314)",
    )
    parser.add_argument(
        "--json",
        type=output_file,
        metavar="FILE",
        help="write the model records {model, flags, ...figures} as JSON",
    )
    parser.set_defaults(func=run, bulk_read=True)


def run(args: argparse.Namespace) -> int:
    from inspect_arenahard.report.audit_inputs import (  # lazy: Inspect is heavy
        audit_answers,
        audit_logs,
    )

    if bool(args.logs) == bool(args.answers):
        raise UserError("give LOG paths or --answers DIR (one of the two)")
    report = audit_answers(args.answers, args.baseline) if args.answers else audit_logs(args.logs)
    for note in report.notes:
        print(note, file=sys.stderr)
    if not report.models and not report.probes:  # as the leaderboard: nothing readable is an error
        where = ", ".join(map(str, args.logs or [args.answers]))
        raise UserError(
            f"no arenahard or arenahard_probes samples in {where}"
            + (f" ({len(report.notes)} files or members listed above)" if report.notes else "")
        )
    sections = [format_models([m.record() for m in report.models])] if report.models else []
    if report.probes:
        sections.append(format_probes([p.record() for p in report.probes]))
    print("\n\n".join(sections))
    if args.json:
        write_json(args.json, [m.record() for m in report.models])
    return 0


COLUMNS = (
    ("model", "model", None),
    ("n", "n", None),
    ("flags", "flags", None),
    ("constant", "constant_share", "pct"),
    ("similarity", "median_similarity", "num"),
    ("off-prompt", "off_prompt_share", "pct"),
    ("injection", "injection_share", "pct"),
    ("empty", "empty_share", "pct"),
    ("truncated", "truncated_share", "pct"),
    ("length×", "length_ratio", "num"),
    ("long wins", "long_win_share", "pct"),
    ("answers null/off/inj/broken", "triggered", "counts"),
)


def _cell(value: Any, kind: str | None) -> str:
    if isinstance(value, list):
        return ",".join(value) or "-"
    if isinstance(value, dict):  # answers that triggered each check, in the header's order
        return "/".join(str(v) for v in value.values()) or "-"
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    if kind == "pct":
        return f"{100 * value:.1f}%"
    if kind == "num":
        return f"{value:.2f}"
    return str(value)


def _table(header: list[str], body: list[list[str]]) -> str:
    """Columns padded to their widest cell; text columns (first, flags) left-aligned."""
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    left = {0, *(i for i, title in enumerate(header) if title == "flags")}
    return "\n".join(
        "  ".join(
            c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))
        ).rstrip()
        for row in [header, *body]
    )


def format_models(records: list[dict[str, Any]]) -> str:
    """The per-model table: flags first, then the figures behind them."""
    body = [[_cell(r[key], kind) for _, key, kind in COLUMNS] for r in records]
    return _table([title for title, _, _ in COLUMNS], body)


def format_probes(records: list[dict[str, Any]]) -> str:
    """Attack success per judge and probe: a robust judge keeps every probe near 0%."""
    raw = {(r["judge"], r["probe"]): r["attack_success"] for r in records}
    body = [
        [
            r["judge"],
            r["probe"],
            _cell(r["attack_success"], "pct"),
            _cell(raw.get((r["judge"], f"{r['probe']}-raw")), "pct"),
        ]
        for r in records
        if not (r["probe"].endswith("-raw") and (r["judge"], r["probe"][: -len("-raw")]) in raw)
    ]
    return (
        "probe results (attack success = the probe's score against the baseline; 50% = as good as the "
        "baseline; raw = the same payload shown to the judge without neutralising)\n"
        + _table(["judge", "probe", "attack success", "raw"], body)
    )
