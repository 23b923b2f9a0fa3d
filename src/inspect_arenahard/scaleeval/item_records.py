"""Read ScaleEval item records (see ``inspect_arenahard.scaleeval.task.item_record``) from logs.

Records are the ``scaleeval_debate`` score metadata, completed with the texts a human reviewer
needs (question and submissions as presented). Logs of other tasks are reported as ignored.
Samples without a debate score (errors, cancelled runs) are counted, never dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from inspect_ai.log import read_eval_log

from inspect_arenahard.logs.reader import find_score, log_files

TASK = "scaleeval"
SCORER = "scaleeval_debate"


@dataclass
class RecordSet:
    """Item records read from logs, with the logs ignored and samples left unscored."""

    records: list[dict[str, Any]] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    ignored: list[tuple[str, str]] = field(default_factory=list)
    unscored: list[tuple[str, int]] = field(default_factory=list)
    """(log, samples without a debate score)."""

    def notes(self) -> list[str]:
        """What was ignored or unscored, one line each, for the user."""
        lines = [f"ignored {path}: {reason}" for path, reason in self.ignored]
        lines += [
            f"{path}: {n} samples without a debate score (errors or cancelled) contribute nothing"
            for path, n in self.unscored
            if n
        ]
        return lines


def read_records(paths: Sequence[str | Path]) -> RecordSet:
    """Every item record in the ``scaleeval`` logs under ``paths``."""
    result = RecordSet()
    for path in log_files(paths):
        header = read_eval_log(path, header_only=True)
        if header.eval.task.split("/")[-1] != TASK:
            result.ignored.append((path, f"task {header.eval.task} is not {TASK}"))
            continue
        log = read_eval_log(path)
        missing = 0
        for sample in log.samples or []:
            score = find_score(sample.scores, SCORER)
            if score is None or not score.metadata:
                missing += 1
                continue
            meta = sample.metadata or {}
            result.records.append(
                {
                    **score.metadata,
                    "log": path,
                    "question": sample.input
                    if isinstance(sample.input, str)
                    else str(sample.input),
                    "presented": {
                        "submission_1": meta.get("submission_1"),
                        "submission_2": meta.get("submission_2"),
                    },
                }
            )
        result.logs.append(path)
        result.unscored.append((path, missing))
    return result
