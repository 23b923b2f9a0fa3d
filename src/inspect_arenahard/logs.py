"""Read judge games out of Inspect logs: the single source of truth between stages.

Only log headers and sample summaries are read (fast); a sample is read in full only when Inspect
thinned a score metadata key out of its summary (keys over 1 KB, e.g. games of a large
ensemble). Repeated runs of the same model, task arguments and judges keep the latest complete
run; the others are reported, never silently merged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from inspect_ai.log import (
    EvalLog,
    EvalLogInfo,
    list_eval_logs,
    read_eval_log,
    read_eval_log_sample,
    read_eval_log_sample_summaries,
)

SCORER = "pairwise_judge"
THINNED = "Key removed from summary"


@dataclass
class Run:
    """One log that contributed games (or was set aside)."""

    path: str
    task: str
    model: str
    status: str
    created: str
    samples: int = 0
    games: int = 0
    failed_samples: int = 0


@dataclass
class LogGames:
    """Game records (see :mod:`inspect_arenahard.judges` for the contract) plus what was skipped."""

    games: list[dict[str, Any]] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    superseded: list[tuple[Run, Run]] = field(default_factory=list)
    """(older run, the run kept instead)."""
    ignored: list[tuple[str, str]] = field(default_factory=list)
    """(path, reason) for logs that are not arenahard judge logs."""

    def notes(self) -> list[str]:
        """Human-readable lines about partial, superseded and ignored logs."""
        lines = []
        for run in self.runs:
            if run.status != "success" or run.failed_samples:
                lines.append(
                    f"partial run {run.path} ({run.status}): {run.samples} samples scored, "
                    f"{run.failed_samples} failed or unscored samples contribute nothing"
                )
        for old, kept in self.superseded:
            lines.append(f"superseded: {old.path} ({old.model}, {old.created}) replaced by newer {kept.path}")
        for path, reason in self.ignored:
            lines.append(f"ignored {path}: {reason}")
        return lines


def log_files(paths: Sequence[str | Path]) -> list[str]:
    """Every ``.eval``/``.json`` log file named or found (recursively) under ``paths``."""
    found: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found += [_local(info) for info in list_eval_logs(str(path), recursive=True)]
        elif path.is_file():
            found.append(str(path))
        else:
            raise FileNotFoundError(f"no such log file or folder: {path}")
    return found


def _local(info: EvalLogInfo) -> str:
    return info.name.removeprefix("file://")


def _run_key(log: EvalLog) -> str:
    """Runs with equal keys measure the same thing; only the latest complete one is kept."""
    roles = {name: str(cfg.model) for name, cfg in (log.eval.model_roles or {}).items()}
    return json.dumps([log.eval.model, log.eval.task, log.eval.task_args, roles], sort_keys=True, default=str)


def _is_judge_log(log: EvalLog) -> bool:
    scorers = {s.name for s in (log.results.scores if log.results else [])}
    return any(s.split("/")[-1] == SCORER for s in scorers) or log.eval.task.split("/")[-1] == "arenahard"


def select_runs(paths: Sequence[str | Path]) -> tuple[list[tuple[str, EvalLog]], LogGames]:
    """Headers of the judge logs to read, newest complete run per key."""
    result = LogGames()
    latest: dict[str, tuple[str, EvalLog]] = {}
    for path in log_files(paths):
        header = read_eval_log(path, header_only=True)
        if not _is_judge_log(header):
            result.ignored.append((path, f"task {header.eval.task} has no {SCORER} scores"))
            continue
        key = _run_key(header)
        if key in latest:
            kept_path, kept = latest[key]
            newer, older = _prefer((path, header), (kept_path, kept))
            latest[key] = newer
            result.superseded.append((_run(*older), _run(*newer)))
        else:
            latest[key] = (path, header)
    return list(latest.values()), result


def _prefer(a: tuple[str, EvalLog], b: tuple[str, EvalLog]) -> tuple[tuple[str, EvalLog], tuple[str, EvalLog]]:
    """(kept, dropped): complete runs beat incomplete ones, then the newer one wins."""

    def rank(item: tuple[str, EvalLog]) -> tuple[bool, str]:
        return item[1].status == "success", item[1].eval.created

    return (a, b) if rank(a) >= rank(b) else (b, a)


def _run(path: str, log: EvalLog) -> Run:
    return Run(path=path, task=log.eval.task, model=log.eval.model, status=log.status, created=log.eval.created)


def read_games(paths: Sequence[str | Path]) -> LogGames:
    """Game records from every arenahard judge log under ``paths``."""
    selected, result = select_runs(paths)
    for path, header in selected:
        run = _run(path, header)
        for summary in read_eval_log_sample_summaries(path):
            score = (summary.scores or {}).get(SCORER) or _namespaced(summary.scores)
            if score is None or not score.metadata:
                run.failed_samples += 1
                continue
            metadata = score.metadata
            if any(isinstance(metadata.get(k), str) and metadata[k].startswith(THINNED) for k in ("games", "style")):
                full = read_eval_log_sample(path, id=summary.id, epoch=summary.epoch)
                metadata = (full.scores or {})[SCORER].metadata or {}
            games = list(_games(summary.id, summary.epoch, header, metadata))
            run.samples += 1
            run.games += len(games)
            result.games += games
        result.runs.append(run)
    return result


def _namespaced(scores: dict[str, Any] | None) -> Any:
    for name, score in (scores or {}).items():
        if name.split("/")[-1] == SCORER:
            return score
    return None


def _games(sample_id: Any, epoch: int, header: EvalLog, metadata: dict[str, Any]) -> Iterable[dict[str, Any]]:
    for game in metadata.get("games", []):
        yield {
            "question_id": str(sample_id),
            "epoch": epoch,
            "model": metadata.get("model") or header.eval.model,
            "baseline": metadata.get("baseline"),
            "judge": game["judge"],
            "category": metadata.get("category"),
            "game": game["game"],
            "model_position": game["model_position"],
            "label": game["label"],
            "parsed": bool(game["parsed"]),
            "style": metadata.get("style"),
        }
