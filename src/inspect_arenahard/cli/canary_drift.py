"""``arenahard judges --drift``: each judge's canary agreement across its runs, in time order."""

from __future__ import annotations

import sys
from dataclasses import asdict
from typing import Any, Sequence

from inspect_arenahard.cli.tables import print_table
from inspect_arenahard.errors import UserError
from inspect_arenahard.files.outputs import write_json
from inspect_arenahard.stats.drift import DRIFT_ALPHA, JudgeDrift, canary_drift


def run_drift(logs: Sequence[str], json_file: str | None) -> int:
    """Read every judge run under ``logs`` and print, per judge, each run's canary verdicts
    against the judge's first run (lazy import: the log reader pulls in Inspect)."""
    from inspect_arenahard.logs.reader import read_games

    if not logs:
        raise UserError("--drift reads canary games from logs: give LOG paths")
    result = read_games(list(logs))
    print(result.summary(), file=sys.stderr)
    created = {run.path: run.created for run in result.runs}
    drift = canary_drift(result.canaries, [run.path for run in result.runs])
    if not drift:
        raise UserError(
            f"no canary games in {', '.join(logs)}: runs made with -T canaries=0, with --limit or "
            "--sample-id below the whole dataset, or imported judgments have none"
        )
    print_drift(drift, created)
    if json_file:
        write_json(json_file, [_record(d, created) for d in drift])
    return 0


def print_drift(drift: list[JudgeDrift], created: dict[str, str]) -> None:
    """One table: per judge, its first run, then each later run against it."""
    rows: list[list[Any]] = []
    for judge in drift:
        first = [judge.judge, created.get(judge.runs[0], ""), judge.runs[0], "first run"]
        rows.append(first + [""] * 5)
        for c in judge.comparisons:
            rows.append(
                [judge.judge, created.get(c.later, ""), c.later, c.games, c.agreement,
                 c.disagree, c.prompts, c.p_value, "DRIFT" if c.drifted else ""]
            )  # fmt: skip
    print_table(
        f"Canary agreement with each judge's first run (exact sign-flip test; drift when p < {DRIFT_ALPHA})",
        ["judge", "created", "run", "canary games", "agreement", "disagree", "prompts", "p", ""],
        rows,
    )


def _record(judge: JudgeDrift, created: dict[str, str]) -> dict[str, Any]:
    return {
        "judge": judge.judge,
        "runs": [{"run": r, "created": created.get(r, "")} for r in judge.runs],
        "comparisons": [
            {**asdict(c), "agreement": c.agreement, "drifted": c.drifted} for c in judge.comparisons
        ],
    }
