"""The human-review queue: debates that ended without consensus, out to a file and back.

Export writes one row per item and criterion still without a reference label: the question,
both submissions *in the order the speakers saw them*, every speaker's reasoning in every round,
and an empty ``decision`` column. A reviewer fills ``decision`` with ``1``, ``2`` or ``0``
(submission 1 / submission 2 as shown in that row / neither). Import maps decisions back to the
items' original order through the row's ``order`` column. Blank decisions stay pending. Any other
value is an error naming the file and row. ``.csv`` or ``.jsonl``, chosen by the file suffix.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from inspect_arenahard.files.jsonl import read_jsonl
from inspect_arenahard.scaleeval.data import ORDERS, VERDICTS, to_original
from inspect_arenahard.scaleeval.judge_agreement import Decisions, Record, record_key, reference

COLUMNS = (
    "key", "item_id", "source", "scenario", "criterion", "order",
    "question", "submission_1", "submission_2", "debate", "majority", "decision",
)  # fmt: skip


def debate_text(record: Record) -> str:
    """Every speaker's reasoning, round by round, with the verdict as the speaker gave it."""
    debate = record["debate"]
    parts = []
    for r, turns in enumerate(debate["rounds"]):
        for seat, turn in enumerate(turns, start=1):
            verdict = turn["label"] if turn["label"] is not None else "no verdict"
            parts.append(
                f"[Speaker {seat} ({turn['judge']}) · round {r} → {verdict}]\n{turn['reasoning']}"
            )
    return "\n\n".join(parts)


def queue(records: Iterable[Record], decisions: Decisions | None = None) -> list[dict[str, Any]]:
    """Rows for every item still without a reference label (one per item and criterion)."""
    rows: dict[str, dict[str, Any]] = {}
    for record in records:
        key = record_key(record)
        if key in rows or reference(record, decisions) is not None:
            continue
        presented = record["presented"]
        rows[key] = {
            "key": key,
            "item_id": record["item_id"],
            "source": record["source"],
            "scenario": record.get("scenario") or "",
            "criterion": record["criterion"],
            "order": record["order"],
            "question": record["question"],
            "submission_1": presented["submission_1"],
            "submission_2": presented["submission_2"],
            "debate": debate_text(record),
            "majority": to_original(record["debate"]["majority_final"], record["order"]) or "",
            "decision": "",
        }
    return list(rows.values())


def write_queue(path: str | Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write the review rows as CSV (for a spreadsheet) or JSONL, by the file's suffix."""
    path = Path(path)
    if path.suffix == ".jsonl":
        path.write_text(
            "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8"
        )
        return
    if path.suffix != ".csv":
        raise ValueError(f"{path}: the review file must end in .csv or .jsonl")
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


@dataclass
class ReviewDecisions:
    """A filled-in review file: the decisions made and the rows still blank."""

    decisions: dict[str, str]
    """Decisions by record key, in the items' original submission order."""
    pending: int
    """Rows left blank."""


def _rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    if path.suffix == ".jsonl":
        return [(f"{path}:{lineno}", row) for lineno, row in read_jsonl(path)]
    if path.suffix != ".csv":
        raise ValueError(f"{path}: the review file must end in .csv or .jsonl")
    with path.open(encoding="utf-8", newline="") as f:
        return [(f"{path}: row {k}", row) for k, row in enumerate(csv.DictReader(f), start=2)]


def read_decisions(path: str | Path) -> ReviewDecisions:
    """Human decisions from a filled-in review file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"review file not found: {path}")
    decisions: dict[str, str] = {}
    pending = 0
    for where, row in _rows(path):
        for column in ("key", "order", "decision"):
            if column not in row:
                raise ValueError(f"{where}: missing column {column!r}")
        decision = str(row["decision"] if row["decision"] is not None else "").strip()
        if not decision:
            pending += 1
            continue
        if decision not in VERDICTS:
            raise ValueError(
                f"{where}: decision {decision!r} must be 1, 2 or 0 (or blank to leave pending)"
            )
        if row["order"] not in ORDERS:
            raise ValueError(f"{where}: order {row['order']!r} must be one of {', '.join(ORDERS)}")
        key = str(row["key"])
        label = to_original(decision, row["order"])
        assert label is not None
        if decisions.get(key, label) != label:
            raise ValueError(f"{where}: conflicting decisions for {key}")
        decisions[key] = label
    return ReviewDecisions(decisions, pending)


def unmatched(decisions: Decisions, records: Iterable[Record]) -> list[str]:
    """Decision keys that name no item in ``records`` (a review file for other logs)."""
    known = {record_key(r) for r in records}
    return sorted(k for k in decisions if k not in known)
