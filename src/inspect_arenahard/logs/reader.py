"""Read judge games out of Inspect logs: the single source of truth between stages.

Only log headers and sample summaries are read; for ``.eval`` files the summaries are parsed as
plain JSON straight from the archive (Inspect's typed reader validates every field and is ~30×
slower), with Inspect's reader as the fallback for ``.json`` logs. A sample is read in full only
when Inspect thinned a score metadata key out of its summary (keys over 1 KB, e.g. the games of
a large ensemble). Repeated runs of the same model, task arguments and judges keep the latest
complete run; the others are reported, never silently merged.
"""

from __future__ import annotations

import json
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import inspect_ai._util.zipfile  # noqa: F401  (teaches stdlib zipfile the zstd that .eval files use)
from inspect_ai.log import read_eval_log, read_eval_log_sample, read_eval_log_sample_summaries
from orjson import loads as _loads  # ~3× faster than json on sample summaries
from zstandard import ZstdError

from inspect_arenahard.errors import UserError
from inspect_arenahard.evaluate.adaptive import SKIPPED, header_adaptive, run_note
from inspect_arenahard.files.storage import list_logs, local_mtime, open_archive
from inspect_arenahard.stats.game_record import SCORED_GAME_FIELDS, GameRecord, check_game

DAMAGED = (KeyError, ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error, ZstdError)
"""What reading a truncated, corrupt or foreign file raises; such a log is skipped and named."""

SCORER = "pairwise_judge"
GAME_SCORERS = (SCORER, "autoarena_committee")
"""Scorers whose metadata follows the game-record contract (``judges.py``; Auto-Arena battles)."""
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
    skipped_samples: int = 0
    """Samples adaptive judging did not need (no model or judge call; not games, not failures)."""
    adaptive: dict[str, Any] | None = None
    """Adaptive judging's rule and outcome (:attr:`Header.adaptive`)."""


@dataclass
class LogGames:
    """Game records (:class:`inspect_arenahard.stats.game_record.GameRecord`) plus what was skipped."""

    games: list[GameRecord] = field(default_factory=list)
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
        for run in self.runs:
            if run.adaptive is not None:
                lines.append(
                    run_note(run.path, run.model, run.samples, run.skipped_samples, run.adaptive)
                )
        for old, kept in self.superseded:
            lines.append(
                f"superseded: {old.path} ({old.model}, {old.created}) replaced by newer {kept.path}"
            )
        for path, reason in self.ignored:
            lines.append(f"ignored {path}: {reason}")
        return lines


def log_files(paths: Sequence[str | Path]) -> list[str]:
    """Every ``.eval``/``.json`` file named or found (recursively) under ``paths`` (local or a store URL)."""
    return [f for p in paths for f in list_logs(p)]


@dataclass(frozen=True)
class Header:
    """The few header fields the reader needs, from ``header.json`` or Inspect's reader."""

    task: str
    model: str
    created: str
    status: str
    task_args: dict[str, Any]
    roles: dict[str, str]
    scorers: tuple[str, ...]
    complete: bool
    """Finished successfully with every sample completed (no errored samples)."""
    completed: str = ""
    """``stats.completed_at``: with ``created`` (both to the second) it orders re-runs."""
    modified: float = 0.0
    """The file's modification time where the store gives one (local files): the last tie-break
    between re-runs created and completed in the same second."""
    version: str | None = None
    """Arena-Hard version the run scored (task metadata ``arenahard_version``); it picks the
    official scoring rules."""
    adaptive: dict[str, Any] | None = None
    """Adaptive judging (:mod:`inspect_arenahard.evaluate.adaptive`): the rule (task metadata
    ``adaptive``) and the ``anytime_interval`` metrics (``judged``, ``stopped_at``, ``lower``,
    ``upper``)."""

    @property
    def run_key(self) -> str:
        """Runs with equal keys measure the same thing; only the latest complete one is kept."""
        return json.dumps(
            [self.model, self.task, self.task_args, self.roles], sort_keys=True, default=str
        )

    @property
    def is_judge_log(self) -> bool:
        """Whether the log holds judge games (by scorer name, or the ``arenahard`` task)."""
        return (
            any(s.split("/")[-1] in GAME_SCORERS for s in self.scorers)
            or self.task.split("/")[-1] == "arenahard"
        )


def read_header(path: str) -> Header:
    """Header fields of one log; ``.eval`` archives are read as plain JSON (fast)."""
    raw: dict[str, Any] | None = None
    if path.endswith(".eval"):
        with open_archive(path) as archive:
            names = set(archive.namelist())
            member = "header.json" if "header.json" in names else "_journal/start.json"
            raw = _loads(archive.read(member))
    else:
        raw = read_eval_log(path, header_only=True).model_dump(exclude_none=True)
    spec = raw["eval"]
    roles = {name: _role_models(cfg) for name, cfg in (spec.get("model_roles") or {}).items()}
    results = raw.get("results") or {}
    scores = results.get("scores") or []
    status = raw.get("status", "started")
    return Header(
        task=spec["task"],
        model=spec["model"],
        created=spec["created"],
        status=status,
        task_args=spec.get("task_args") or {},
        roles=roles,
        scorers=tuple(str(s.get("scorer") or s.get("name")) for s in scores),
        complete=status == "success"
        and results.get("completed_samples") == results.get("total_samples"),
        completed=str((raw.get("stats") or {}).get("completed_at") or ""),
        modified=local_mtime(path),
        version=(spec.get("metadata") or {}).get("arenahard_version")
        or (spec.get("task_args") or {}).get("version"),
        adaptive=header_adaptive(spec, scores),
    )


def _role_models(cfg: Any) -> str:
    """A role's model, or its comma-joined models when the role is bound to a list (an ensemble)."""
    if isinstance(cfg, list):
        return ",".join(_role_models(c) for c in cfg)
    return str(cfg.get("model") if isinstance(cfg, dict) else cfg)


def select_runs(paths: Sequence[str | Path]) -> tuple[list[tuple[str, Header]], LogGames]:
    """Headers of the judge logs to read, newest complete run per key."""
    result = LogGames()
    latest: dict[str, tuple[str, Header]] = {}
    for path in log_files(paths):
        try:
            header = read_header(path)
        except DAMAGED as ex:
            result.ignored.append((path, f"not a readable Inspect log ({type(ex).__name__}: {ex})"))
            continue
        if not header.is_judge_log:
            result.ignored.append((path, f"task {header.task} has no {SCORER} scores"))
            continue
        key = header.run_key
        if key in latest:
            newer, older = _prefer((path, header), latest[key])
            latest[key] = newer
            result.superseded.append((_run(*older), _run(*newer)))
        else:
            latest[key] = (path, header)
    return list(latest.values()), result


def _prefer(
    a: tuple[str, Header], b: tuple[str, Header]
) -> tuple[tuple[str, Header], tuple[str, Header]]:
    """(kept, dropped): complete runs beat incomplete ones, then the newer one wins."""

    def rank(item: tuple[str, Header]) -> tuple[bool, str, str, float]:
        return item[1].complete, item[1].created, item[1].completed, item[1].modified

    return (a, b) if rank(a) >= rank(b) else (b, a)


def _run(path: str, header: Header) -> Run:
    return Run(
        path=path,
        task=header.task,
        model=header.model,
        status=header.status,
        created=header.created,
        adaptive=header.adaptive,
    )


def read_games(paths: Sequence[str | Path]) -> LogGames:
    """Game records from every arenahard judge log under ``paths``."""
    selected, result = select_runs(paths)
    for path, header in selected:
        run = _run(path, header)
        try:
            summaries = raw_summaries(path)
        except DAMAGED as ex:
            result.ignored.append(
                (path, f"damaged log, samples unreadable ({type(ex).__name__}: {ex})")
            )
            continue
        for summary in summaries:
            score = find_score(summary.get("scores"), *GAME_SCORERS)
            if score is None or not score.get("metadata"):
                run.failed_samples += 1
                continue
            metadata = score["metadata"]
            if metadata.get(SKIPPED):
                run.skipped_samples += 1
                continue
            if any(
                isinstance(metadata.get(k), str) and metadata[k].startswith(THINNED)
                for k in ("games", "style")
            ):
                full = read_eval_log_sample(path, id=summary["id"], epoch=summary["epoch"])
                metadata = getattr(find_score(full.scores, *GAME_SCORERS), "metadata", None) or {}
            games = list(_games(summary["id"], summary["epoch"], header, metadata, path))
            run.samples += 1
            run.games += len(games)
            result.games += games
        result.runs.append(run)
    return result


def no_games_error(result: LogGames, paths: Sequence[str | Path]) -> UserError:
    """Why ``paths`` gave no game: no logs at all, no arenahard logs, or no judged sample."""
    where = ", ".join(map(str, paths))
    if not log_files(paths):
        return UserError(f"no Inspect logs (.eval or .json files) in {where}")
    if not result.runs:
        return UserError(
            f"no arenahard judge logs in {where} ({len(result.ignored)} other or damaged logs listed above)"
        )
    samples = sum(run.failed_samples for run in result.runs)
    return UserError(
        f"the arenahard logs in {where} hold no judged games: all {samples} samples are failed or unscored "
        "(no game has a parsed verdict label; see `inspect view`)"
    )


def raw_summaries(path: str) -> list[dict[str, Any]]:
    """Sample summaries as plain dicts (``id``, ``epoch``, ``scores`` …), latest per sample."""
    if path.endswith(".eval"):
        try:
            with open_archive(path) as archive:
                names = set(archive.namelist())
                if "summaries.json" in names:
                    parts = [_loads(archive.read("summaries.json"))]
                else:  # an unfinished run: only the journal exists, in write order
                    journal = sorted(
                        (
                            n
                            for n in names
                            if n.startswith("_journal/summaries/") and n.endswith(".json")
                        ),
                        key=lambda n: int(Path(n).stem) if Path(n).stem.isdigit() else 0,
                    )
                    parts = [_loads(archive.read(n)) for n in journal]
            latest = {(s["id"], s["epoch"]): s for part in parts for s in part}
            return list(latest.values())
        except (
            zipfile.BadZipFile,
            KeyError,
            ValueError,
            NotImplementedError,
            zlib.error,
            ZstdError,
        ):
            pass  # unexpected layout or a damaged member: let Inspect's reader decide
    return [s.model_dump() for s in read_eval_log_sample_summaries(path)]


def find_score(scores: dict[str, Any] | None, *names: str) -> Any:
    """The score of the first scorer called one of ``names``, with or without its package prefix."""
    for name, score in (scores or {}).items():
        if name.split("/")[-1] in names:
            return score
    return None


def _games(
    sample_id: Any, epoch: int, header: Header, metadata: dict[str, Any], log: str
) -> Iterable[GameRecord]:
    where = f"{log}: sample {sample_id} (epoch {epoch}): score metadata"
    games = metadata.get("games", [])
    if not games:
        return
    baseline = metadata.get("baseline")
    if not isinstance(baseline, str):
        raise ValueError(f"{where}: field 'baseline' (the baseline model) is missing")
    for k, game in enumerate(games):
        check_game(game, f"{where} games[{k}]", SCORED_GAME_FIELDS)
        yield {
            "log": log,
            "question_id": str(sample_id),
            "epoch": epoch,
            "model": metadata.get("model") or header.model,
            "baseline": baseline,
            "judge": game["judge"],
            "category": metadata.get("category"),
            "game": game["game"],
            "model_position": game["model_position"],
            "label": game["label"],
            "parsed": bool(game["parsed"]),
            "style": metadata.get("style"),
            "version": header.version,
        }
