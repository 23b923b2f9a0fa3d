"""Read judge games out of Inspect logs: the single source of truth between stages.

Only log headers and sample summaries are read; for ``.eval`` files the summaries are parsed as
plain JSON straight from the archive (Inspect's typed reader validates every field and is ~30×
slower), with Inspect's reader as the fallback for ``.json`` logs. A sample is read in full only
when Inspect thinned a score metadata key out of its summary (keys over 1 KB, e.g. the games of
a large ensemble), or when ``summaries.json`` is damaged (each sample member is then read on its
own, and a damaged member is named and counted, never the end of the run). What the audit and
the cost report need of a sample travels in its judge score too (``audit``, ``usage``) in logs
whose header says so (``Header.records``); other logs are read in full, once, when they are
asked for (``read_games``'s ``on_sample``).

The game is the unit (see docs/logs.md): a judgment is identified by (model, baseline, judge,
prompt id, epoch, game, protocol) and counted once across every log given; when it was judged
more than once, the most recent log's judgment wins and the replaced ones are counted. Runs over
disjoint prompts pool; a shorter re-run replaces only the games it re-judged. Every file ends in
exactly one outcome: read, partly read (damaged members named), skipped (a reason), or eval-set
bookkeeping (``eval-set.json``, ``logs.json``: silent).
"""

from __future__ import annotations

import json
import math
import zipfile
import zlib
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Iterator, Protocol, Sequence

import numpy as np
from orjson import loads as _orjson_loads  # ~3× faster than json on sample summaries
from zstandard import ZstdError

from inspect_arenahard.errors import UserError
from inspect_arenahard.evaluate.stopping_header import header_adaptive, run_note
from inspect_arenahard.files.bulk_reads import full_collections_paused
from inspect_arenahard.files.storage import list_logs, local_mtime, open_archive, open_binary
from inspect_arenahard.stats.drift import canary_drift
from inspect_arenahard.stats.game_record import (
    SCORE_RECORDS,
    SCORE_RECORDS_VERSION,
    GameRecord,
    GameScore,
    SampleGames,
    judgment_key,
)
from inspect_arenahard.stats.game_rows import GameRows, unparsed_count

DAMAGED = (
    KeyError, ValueError, TypeError, OSError, EOFError, NotImplementedError, zipfile.BadZipFile,
    zlib.error, ZstdError,
)  # fmt: skip
"""What reading a truncated, corrupt or foreign file raises; such a log or member is named."""

SCORER = "pairwise_judge"
GAME_SCORERS = (SCORER, "autoarena_committee")
"""Scorers whose metadata follows the game-record contract (``judges.py``; Auto-Arena battles)."""
OUR_TASKS = ("arenahard", "autoarena_battle")
"""Task names of this package whose logs hold games (tasks wrapping them keep the metadata)."""
BOOKKEEPING = ("eval-set.json", "logs.json")
"""Files ``inspect eval-set`` writes beside its logs: recognised and passed over silently."""
THINNED = "Key removed from summary"
VERDICT_SETTINGS = (
    "template_name", "template_by_category", "temperature", "max_tokens", "single_brackets",
    "committee_rounds",
)  # fmt: skip
"""Judge scorer options that can change a verdict (retries, cache, concurrency cannot: a re-run
with other values replaces games instead of splitting a model)."""


def _loads(data: bytes | str) -> Any:
    """JSON as Inspect writes it: orjson (fast), or the standard parser where Inspect wrote
    ``NaN``/``Infinity`` (a metric over no scored sample), which orjson refuses."""
    try:
        return _orjson_loads(data)
    except ValueError:
        return json.loads(data)


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
    unparsed: int = 0
    """Games whose verdict could not be parsed (kept, excluded from every fit)."""
    replaced: int = 0
    """Games of this log that a more recent judgment of the same game replaced."""
    damaged: list[str] = field(default_factory=list)
    """Archive members that could not be read (``summaries.json``, a sample)."""
    skipped_samples: int = 0
    """Samples adaptive judging did not need (no model or judge call; not games, not failures)."""
    adaptive: dict[str, Any] | None = None
    """Adaptive judging's rule and outcome (``Header.adaptive``)."""
    canary_games: int = 0
    """Canary games of this log (``inspect_arenahard.evaluate.canaries``): never ranked."""


@dataclass
class LogGames:
    """Game records (``inspect_arenahard.stats.game_record.GameRecord``) plus what was skipped."""

    games: Sequence[GameRecord] = field(default_factory=list)
    """The games kept, in one canonical order (``read_games`` gives ``GameRows``: the records
    are made on first use)."""
    runs: list[Run] = field(default_factory=list)
    """Every judge log read (also those whose games were all replaced), oldest first."""
    replaced_by: dict[tuple[str, str], int] = field(default_factory=dict)
    """(older log, newer log) -> games of the older one the newer one re-judged."""
    ignored: list[tuple[str, str]] = field(default_factory=list)
    """(path, reason) for logs that are not arenahard judge logs or cannot be read at all."""
    canaries: list[GameRecord] = field(default_factory=list)
    """Canary games of every run read (``canary`` true), kept apart from ``games``: they are
    never ranked, and each run keeps its own (drift compares runs, ``inspect_arenahard.stats.drift``)."""

    @property
    def superseded(self) -> list[tuple[Run, Run]]:
        """(run, the run that replaced most of its games) for runs none of whose games is kept."""
        by_path = {run.path: run for run in self.runs}
        out = []
        for run in self.runs:
            if run.games and run.replaced == run.games:
                newer = max(
                    (n for (old, n) in self.replaced_by if old == run.path),
                    key=lambda n: self.replaced_by[(run.path, n)],
                )
                out.append((run, by_path[newer]))
        return out

    @property
    def kept_runs(self) -> list[Run]:
        """Runs that contribute at least one game (costs and reports count these)."""
        return [run for run in self.runs if run.games > run.replaced]

    def counts(self) -> dict[str, int]:
        """The figures of ``summary``."""
        return {
            "read": len(self.games),
            "replaced": sum(run.replaced for run in self.runs),
            "unparsed": unparsed_count(self.games),
            "damaged": sum(len(run.damaged) for run in self.runs),
            "skipped": len(self.ignored),
        }

    def summary(self) -> str:
        """The one line every ranking prints: what was read, replaced, excluded, damaged, skipped."""
        c = self.counts()
        canaries = f", {len(self.canaries)} canary games (never ranked)" if self.canaries else ""
        return (
            f"games: {c['read']} read from {len(self.kept_runs)} logs, {c['replaced']} replaced by "
            f"newer judgments, {c['unparsed']} excluded (unparsed), {c['damaged']} damaged "
            f"members, {c['skipped']} files skipped{canaries}"
        )

    def _unchecked_drift(self) -> list[str]:
        """A line naming the kept runs that judged no canary, when others did: drift cannot be
        checked for them, and pooling them says nothing about it."""
        kept = self.kept_runs
        without = [run.path for run in kept if not run.canary_games]
        if not without or len(without) == len(kept):
            return []
        shown = ", ".join(without[:5]) + (" …" if len(without) > 5 else "")
        return [
            f"canary drift not checked for {len(without)} of {len(kept)} runs without canary games "
            f"(imported, cut by --limit or --sample-id, or -T canaries=0): {shown}"
        ]

    def notes(self) -> list[str]:
        """Human-readable lines about partial, replaced, damaged and ignored logs."""
        lines = []
        for run in self.runs:
            if run.status != "success" or run.failed_samples:
                lines.append(
                    f"partial run {run.path} ({run.status}): {run.samples} samples scored, "
                    f"{run.failed_samples} failed or unscored samples contribute nothing"
                )
            if run.damaged:
                lines.append(
                    f"partly read {run.path}: {len(run.damaged)} damaged members skipped "
                    f"({', '.join(run.damaged[:5])}{' …' if len(run.damaged) > 5 else ''})"
                )
        for run in self.runs:
            if run.adaptive is not None:
                lines.append(
                    run_note(run.path, run.model, run.samples, run.skipped_samples, run.adaptive)
                )
        lines += self._unchecked_drift()
        superseded = {run.path for run, _ in self.superseded}
        for (old, new), n in self.replaced_by.items():
            if old in superseded:
                lines.append(f"superseded: {old} (all {n} games) replaced by newer {new}")
            else:
                lines.append(f"replaced: {n} games of {old} re-judged in newer {new}")
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
    """Adaptive judging (``inspect_arenahard.evaluate.adaptive``): the rule (task metadata
    ``adaptive``), the ``anytime_interval`` metrics (``judged``, ``stopped_at``, ``lower``,
    ``upper``) and the skip counts (``answered``, ``skipped``, ``skipped_by_reason``, ``canaries``)."""
    registry_name: str = ""
    """The task's registry name (``inspect_arenahard/arenahard`` …)."""
    settings: str = ""
    """The verdict-changing judge settings of the run, as canonical JSON (see
    ``VERDICT_SETTINGS``); every game of the run carries them."""
    records: bool = False
    """Its judge scorer wrote the audit and usage records into every sample's score
    (``inspect_arenahard.stats.game_record.SCORE_RECORDS``), so the audit and the cost report
    read the sample summaries alone."""

    @property
    def recency(self) -> tuple[str, str, float]:
        """Orders runs: the later one's judgment of a game replaces the earlier one's."""
        return self.created, self.completed, self.modified

    @property
    def is_ours(self) -> bool:
        """A task of this package (or one wrapping it: the version metadata travels along)."""
        return (
            self.task.split("/")[-1] in OUR_TASKS
            or self.version is not None
            or self.registry_name.startswith("inspect_arenahard/")
        )

    @property
    def is_judge_log(self) -> bool:
        """Whether the log holds judge games: our task, scored (or still running) by a game scorer."""
        scored = any(s.split("/")[-1] in GAME_SCORERS for s in self.scorers)
        return self.is_ours and (scored or self.task.split("/")[-1] in OUR_TASKS)

    def skip_reason(self) -> str:
        """Why a log that is not a judge log is skipped."""
        if any(s.split("/")[-1] in GAME_SCORERS for s in self.scorers):
            return (
                f"task {self.task} is not an arenahard task (a scorer of that name, but no "
                "arenahard_version metadata)"
            )
        return f"task {self.task} has no {SCORER} scores"


def read_header(path: str) -> Header:
    """Header fields of one log; ``.eval`` archives are read as plain JSON (fast)."""
    raw: dict[str, Any] | None = None
    if path.endswith(".eval"):
        with open_archive(path) as archive:
            names = set(archive.namelist())
            member = "header.json" if "header.json" in names else "_journal/start.json"
            raw = _loads(archive.read(member))
    else:
        from inspect_ai.log import read_eval_log  # a .json log: Inspect's own reader

        try:
            raw = read_eval_log(path, header_only=True).model_dump(exclude_none=True)
        except DAMAGED:  # NaN/Infinity or a field Inspect's model refuses: the plain JSON
            with open_binary(path) as handle:
                raw = _loads(handle.read())
    if not isinstance(raw, dict) or not isinstance(raw.get("eval"), dict):
        raise ValueError("no 'eval' header")
    spec = raw["eval"]
    roles = {name: _role_models(cfg) for name, cfg in (spec.get("model_roles") or {}).items()}
    results = raw.get("results") or {}
    scores = results.get("scores") or []
    status = raw.get("status", "started")
    task_args = spec.get("task_args") or {}
    return Header(
        task=spec["task"],
        model=spec["model"],
        created=spec["created"],
        status=status,
        task_args=task_args,
        roles=roles,
        scorers=tuple(str(s.get("scorer") or s.get("name")) for s in scores)
        or tuple(str(s.get("name")) for s in spec.get("scorers") or []),
        complete=status == "success"
        and results.get("completed_samples") == results.get("total_samples"),
        completed=str((raw.get("stats") or {}).get("completed_at") or ""),
        modified=local_mtime(path),
        version=(spec.get("metadata") or {}).get("arenahard_version") or task_args.get("version"),
        registry_name=str(spec.get("task_registry_name") or ""),
        settings=_settings(spec, task_args, roles),
        adaptive=header_adaptive(spec, results),
        records=(spec.get("metadata") or {}).get(SCORE_RECORDS) == SCORE_RECORDS_VERSION,
    )


def _settings(spec: dict[str, Any], task_args: dict[str, Any], roles: dict[str, str]) -> str:
    """The run's verdict-changing settings: the game scorer's options that change a verdict, and
    whether judges saw a reference answer."""
    options: dict[str, Any] | None = None
    for scorer in spec.get("scorers") or []:
        if str(scorer.get("name", "")).split("/")[-1] == SCORER:
            options = scorer.get("options") or {}
    if options is None:  # imported, or another protocol (battles): its settings are unknown
        return "{}"
    chosen = {k: options.get(k) for k in VERDICT_SETTINGS}
    reference = task_args.get("reference") or roles.get("reference")
    chosen["reference"] = None if reference is None else str(reference)
    return json.dumps(chosen, sort_keys=True, default=str)


def _role_models(cfg: Any) -> str:
    """A role's model, or its comma-joined models when the role is bound to a list (an ensemble)."""
    if isinstance(cfg, list):
        return ",".join(_role_models(c) for c in cfg)
    return str(cfg.get("model") if isinstance(cfg, dict) else cfg)


def select_runs(paths: Sequence[str | Path]) -> tuple[list[tuple[str, Header]], LogGames]:
    """Headers of every judge log under ``paths``, oldest first (a later run's judgment of a game
    replaces an earlier one's); other files are listed in ``ignored`` (bookkeeping: silently)."""
    result = LogGames()
    found: list[tuple[str, Header]] = []
    for path in log_files(paths):
        if PurePosixPath(path).name in BOOKKEEPING:
            continue
        try:
            header = read_header(path)
        except DAMAGED as ex:
            result.ignored.append((path, f"not a readable Inspect log ({_brief(ex)})"))
            continue
        if not header.is_judge_log:
            result.ignored.append((path, header.skip_reason()))
            continue
        found.append((path, header))
    found.sort(key=lambda item: (item[1].recency, item[0]))
    return found, result


def _brief(ex: BaseException) -> str:
    """An exception in one line (pydantic errors span many)."""
    text = " ".join(str(ex).split())
    return f"{type(ex).__name__}: {text[:200]}{'…' if len(text) > 200 else ''}"


def _run(path: str, header: Header) -> Run:
    return Run(
        path=path,
        task=header.task,
        model=header.model,
        status=header.status,
        created=header.created,
        adaptive=header.adaptive,
    )


def game_key(game: GameRecord) -> tuple[Any, ...]:
    """A judgment's identity: the same game judged again has the same key."""
    return judgment_key(
        game["model"], game["baseline"], game["judge"], game["question_id"], game.get("epoch"),
        game["game"], game.get("protocol") or SCORER,
    )  # fmt: skip


@dataclass(frozen=True)
class ScoredSample:
    """One sample's judge score as its summary gives it (``score`` None: the sample has none)."""

    id: str
    epoch: int
    score: GameScore | None
    value: float | None
    """The score's value (the model's points against the baseline), None when unscored."""


class SampleReader(Protocol):
    """What the leaderboard's audit and cost columns take from the same read as the games.

    In a log whose header says its samples carry the records (``Header.records``), each parsed
    score is offered as it is read (``scored``), so that the reader keeps only what it needs
    and no log's parsed scores outlive their sample; ``scored_all`` then says whether the
    scores gave everything."""

    def scored(self, path: str, sample: ScoredSample) -> None:
        """Take what is needed from one sample's parsed score."""
        ...

    def scored_all(self, path: str) -> bool:
        """The log's scores are all read: True when they gave everything; False: hand over the
        full samples as well (what ``scored`` took from this log is then dropped)."""
        ...

    def __call__(self, path: str, sample: dict[str, Any]) -> None:
        """One full sample record (input, output, events, scores) of a log."""
        ...


@dataclass
class SampleReaders:
    """Several readers on one read: full samples go only to those the scores did not satisfy."""

    readers: Sequence[SampleReader]
    _wanting: dict[str, list[SampleReader]] = field(default_factory=dict)

    def scored(self, path: str, sample: ScoredSample) -> None:
        """Offer one sample's score to every reader."""
        for reader in self.readers:
            reader.scored(path, sample)

    def scored_all(self, path: str) -> bool:
        """True when no reader wants the full samples."""
        self._wanting[path] = [r for r in self.readers if not r.scored_all(path)]
        return not self._wanting[path]

    def __call__(self, path: str, sample: dict[str, Any]) -> None:
        """A full sample, to the readers that want it."""
        for reader in self._wanting.get(path, self.readers):
            reader(path, sample)


def read_games(paths: Sequence[str | Path], on_sample: SampleReader | None = None) -> LogGames:
    """Game records from every arenahard judge log under ``paths``, each game counted once.

    Without ``on_sample`` only the sample summaries are read (fast). With it, a log whose
    header says every sample carries the audit record is read from its summaries too, and
    ``on_sample.scored`` gets each parsed score; other logs (older ones, other tasks), and logs
    whose scores did not satisfy it, are read once in full, each sample handed to ``on_sample``.
    """
    with full_collections_paused():
        return _read_games(paths, on_sample)


def _read_games(paths: Sequence[str | Path], on_sample: SampleReader | None) -> LogGames:
    selected, result = select_runs(paths)
    samples: list[SampleGames] = []
    # game -> (its sample in ``samples``, its place among the sample's games, its run in
    # ``result.runs``): plain numbers, so the collector soon stops scanning these tuples
    kept: dict[tuple[Any, ...], tuple[int, int, int]] = {}
    for path, header in selected:
        run = _run(path, header)
        result.runs.append(run)
        scored: SampleReader | None = None
        try:
            if on_sample is None or header.records:
                summaries = raw_summaries(path, run.damaged)
                scored = on_sample
            else:
                summaries = _full_samples(path, run, on_sample)
        except DAMAGED as ex:
            result.runs.pop()
            result.ignored.append((path, f"damaged log, samples unreadable ({_brief(ex)})"))
            continue
        for summary in summaries:
            found = _sample_games(path, header, summary, run, scored)
            if found is None:
                run.failed_samples += 1
                continue
            if found is SKIPPED_SAMPLE:
                run.skipped_samples += 1
                continue
            games = found.games
            if games and found.canary:
                result.canaries += found.records()
                run.canary_games += len(games)
                continue
            run.samples += 1
            run.games += len(games)
            run.unparsed += sum(not game.parsed for game in games)
            number = len(samples)
            samples.append(found)
            for index, game in enumerate(games):
                key = found.key(game)
                if key in kept:
                    old = result.runs[kept[key][2]]
                    old.replaced += 1
                    pair = (old.path, run.path)
                    result.replaced_by[pair] = result.replaced_by.get(pair, 0) + 1
                kept[key] = (number, index, len(result.runs) - 1)
        if scored is not None and not scored.scored_all(path):
            _hand_over(path, run, scored)
    rows = [kept[key] for key in sorted(kept, key=_sortable)]
    result.games = GameRows(
        samples,
        np.fromiter(map(itemgetter(0), rows), np.int64, count=len(rows)),
        np.fromiter(map(itemgetter(1), rows), np.int64, count=len(rows)),
    )
    return result


def _hand_over(path: str, run: Run, on_sample: SampleReader) -> None:
    """Every full sample of a log whose games were read from its summaries, to ``on_sample``;
    members that cannot be read are named once in ``run.damaged``."""
    damaged: list[str] = []
    try:
        for sample in sample_records(path, damaged):
            on_sample(path, sample)
    except DAMAGED as ex:
        damaged.append(f"samples ({_brief(ex)})")
    run.damaged += [name for name in damaged if name not in run.damaged]


def _full_samples(path: str, run: Run, on_sample: SampleReader) -> list[dict[str, Any]]:
    """Every full sample of a log, each first handed to ``on_sample``; a damaged member (named
    in ``run.damaged``) still gives its games from the summaries when those are intact."""
    before = len(run.damaged)
    samples = []
    for sample in sample_records(path, run.damaged):
        on_sample(path, sample)
        samples.append(sample)
    if len(run.damaged) > before:
        have = {(s["id"], s["epoch"]) for s in samples}
        samples += [s for s in raw_summaries(path) if (s["id"], s["epoch"]) not in have]
    return samples


def _sortable(key: tuple[Any, ...]) -> tuple[str, ...]:
    """Games in one canonical order whatever the logs' layout (bootstraps then agree)."""
    return tuple(f"{v:>12}" if isinstance(v, int) else str(v) for v in key)


SKIPPED_SAMPLE = SampleGames("", 0, "", "", None, (), None, 0, False, "", None, "", "")
"""What ``_sample_games`` returns for a sample adaptive judging skipped (compared by identity)."""


def _sample_games(
    path: str,
    header: Header,
    summary: dict[str, Any],
    run: Run,
    scored: SampleReader | None = None,
) -> SampleGames | None:
    """The parsed score of one sample summary, None when it has no judge score, or
    ``SKIPPED_SAMPLE`` when adaptive judging did not need it; ``scored`` is offered its parsed
    score."""
    score = find_score(summary.get("scores"), *GAME_SCORERS)
    if not isinstance(score, dict) or not score.get("metadata"):
        if scored is not None:
            scored.scored(
                path, ScoredSample(str(summary.get("id")), summary.get("epoch") or 1, None, None)
            )
        return None
    metadata = score["metadata"]
    if any(
        isinstance(metadata.get(k), str) and metadata[k].startswith(THINNED)
        for k in ("games", "style", "audit", "usage")
    ):
        from inspect_ai.log import read_eval_log_sample

        try:
            full = read_eval_log_sample(path, id=summary["id"], epoch=summary["epoch"])
        except DAMAGED as ex:
            run.damaged.append(f"sample {summary['id']} epoch {summary['epoch']} ({_brief(ex)})")
            return None
        metadata = getattr(find_score(full.scores, *GAME_SCORERS), "metadata", None) or {}
    protocol = next(
        (n.split("/")[-1] for n in summary.get("scores") or {} if n.split("/")[-1] in GAME_SCORERS),
        SCORER,
    )
    where = f"{path}: sample {summary['id']} (epoch {summary['epoch']}): score metadata"
    game_score = GameScore.parse(metadata, where)
    if scored is not None:
        value = score.get("value")
        points = float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None
        scored.scored(path, ScoredSample(str(summary["id"]), summary["epoch"], game_score, points))
    if game_score.skipped is not None:
        return SKIPPED_SAMPLE
    return _sample(summary["id"], summary["epoch"], header, game_score, path, protocol)


def no_games_error(result: LogGames, paths: Sequence[str | Path]) -> UserError:
    """Why ``paths`` gave no game: no logs at all, no arenahard logs, or no judged sample."""
    where = ", ".join(map(str, paths))
    if not log_files(paths):
        return UserError(f"no Inspect logs (.eval or .json files) in {where}")
    if not result.runs:
        return UserError(
            f"no arenahard judge logs in {where} ({len(result.ignored)} other or damaged logs listed above)"
        )
    unparsed = unparsed_count(result.games)
    if result.games:
        return UserError(
            f"no judged games ({unparsed} unparsed) in {where}: no judge reply had a verdict label "
            "(see `inspect view`)"
        )
    samples = sum(run.failed_samples for run in result.runs)
    return UserError(
        f"the arenahard logs in {where} hold no judged games: all {samples} samples are failed or unscored "
        "(no game has a parsed verdict label; see `inspect view`)"
    )


def check_settings(games: Sequence[GameRecord], pool: bool = False) -> list[str]:
    """The verdict-changing settings on which ``games`` differ (empty when they agree).

    A setting a run does not record (imported judgments, older logs) is unknown and differs from
    nothing. Differing settings are refused with one line naming the setting and a run of each value,
    unless ``pool``: then the names are returned so that every output can label the pooling.
    """
    try:  # records as the reader makes them: one set of the settings' texts settles most runs
        settings = (
            games.settings()
            if isinstance(games, GameRows) and games.unmade
            else set(map(itemgetter("settings"), games))
        )
        if len(settings) < 2:
            return []
    except KeyError:
        pass
    by_settings: dict[str, str] = {}
    for game in games:
        by_settings.setdefault(game.get("settings") or "{}", game.get("log", "records"))
    if len(by_settings) < 2:
        return []
    parsed = {text: json.loads(text) for text in by_settings}
    keys = sorted({k for d in parsed.values() for k in d})
    differing = [k for k in keys if len({json.dumps(d[k]) for d in parsed.values() if k in d}) > 1]
    if pool or not differing:
        return differing
    detail = "; ".join(
        f"{k}: "
        + ", ".join(
            f"{parsed[t][k]!r} in {log}" for t, log in by_settings.items() if k in parsed[t]
        )
        for k in differing
    )
    raise UserError(
        f"games judged under different settings are not pooled ({detail}); rank them apart, "
        "re-judge, or pass --pool-settings to pool them (outputs are then labelled)"
    )


def check_drift(result: LogGames, pool: bool = False) -> list[str]:
    """Runs pooled under one judge name whose canary verdicts differ beyond chance
    (``inspect_arenahard.stats.drift``), each later run against the judge's first.

    Refused with one line naming the runs and how many canary games disagree, unless ``pool``:
    then one label per drifted run is returned so that every output can say so."""
    kept = [run.path for run in result.kept_runs]
    wanted = set(kept)
    canaries = [g for g in result.canaries if g.get("log") in wanted]
    drifted = [c for judge in canary_drift(canaries, kept) for c in judge.drifted]
    labels = [
        f"canary drift of judge {c.judge}: {c.later} against {c.earlier} "
        f"({c.disagree} of {c.games} canary games disagree, p={c.p_value:.2g})"
        for c in drifted
    ]
    if pool or not labels:
        return labels
    raise UserError(
        f"runs of one judge whose canary verdicts differ beyond chance are not pooled ({'; '.join(labels)}); "
        "the judge changed between them: rank them apart, re-judge, or pass --pool-settings to pool them "
        "(outputs are then labelled)"
    )


def raw_summaries(path: str, damaged: list[str] | None = None) -> list[dict[str, Any]]:
    """Sample summaries as plain dicts (``id``, ``epoch``, ``scores`` …), latest per sample.

    A damaged ``summaries.json`` (or journal part) falls back to the sample members, each read
    on its own; the names of the members that could not be read are added to ``damaged``.
    """
    if not path.endswith(".eval"):
        from inspect_ai.log import read_eval_log_sample_summaries

        try:
            return [s.model_dump() for s in read_eval_log_sample_summaries(path)]
        except DAMAGED:  # NaN/Infinity in a .json log: its plain JSON has the samples
            with open_binary(path) as handle:
                return list(_latest(_loads(handle.read()).get("samples") or []))
    with open_archive(path) as archive:
        names = archive.namelist()
        if "summaries.json" in names:
            sources = ["summaries.json"]
        else:  # an unfinished run: only the journal exists, in write order
            sources = sorted(
                (n for n in names if n.startswith("_journal/summaries/") and n.endswith(".json")),
                key=lambda n: int(Path(n).stem) if Path(n).stem.isdigit() else 0,
            )
        try:
            parts = [_loads(archive.read(n)) for n in sources]
            return list(_latest(s for part in parts for s in part))
        except DAMAGED as ex:
            if damaged is not None:
                damaged.append(f"{sources[-1] if sources else 'summaries'} ({_brief(ex)})")
        return list(_latest(_members(archive, damaged)))


def _latest(samples: Iterable[Any]) -> Iterator[dict[str, Any]]:
    """The last record of each (id, epoch): a journal may hold a sample more than once."""
    latest = {(s["id"], s["epoch"]): s for s in samples if isinstance(s, dict)}
    return iter(latest.values())


def _members(archive: zipfile.ZipFile, damaged: list[str] | None) -> Iterator[dict[str, Any]]:
    """Every readable sample member of an archive; unreadable ones are named in ``damaged``."""
    for name in archive.namelist():
        if not (name.startswith("samples/") and name.endswith(".json")):
            continue
        try:
            sample = _loads(archive.read(name))
            if not isinstance(sample, dict) or "id" not in sample or "epoch" not in sample:
                raise ValueError("not a sample record")
        except DAMAGED as ex:
            if damaged is not None:
                damaged.append(f"{name} ({_brief(ex)})")
            continue
        yield sample


def sample_records(path: str, damaged: list[str]) -> Iterator[dict[str, Any]]:
    """Every sample of a log in full (input, output, scores) as a plain dict; members that cannot
    be read are named in ``damaged`` (the audit reads answers this way)."""
    if path.endswith(".eval"):
        with open_archive(path) as archive:
            yield from _members(archive, damaged)
        return
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(path)
        samples: list[dict[str, Any]] = [s.model_dump() for s in log.samples or []]
    except DAMAGED:
        with open_binary(path) as handle:
            samples = list(_loads(handle.read()).get("samples") or [])
    yield from samples


def find_score(scores: dict[str, Any] | None, *names: str) -> Any:
    """The score of the first scorer called one of ``names``, with or without its package prefix."""
    for name, score in (scores or {}).items():
        if name.split("/")[-1] in names:
            return score
    return None


def _sample(
    sample_id: Any,
    epoch: int,
    header: Header,
    score: GameScore,
    log: str,
    protocol: str = SCORER,
) -> SampleGames:
    """One sample's parsed score with the run's settings and the rules that neutralised the
    answers the judge saw: what its game records are made of."""
    settings = header.settings
    if score.neutralisation is not None:  # the rules that rewrote the answers the judge saw
        settings = json.dumps(
            {**json.loads(settings or "{}"), "neutralisation": score.neutralisation},
            sort_keys=True,
        )
    return SampleGames.of(
        score,
        question_id=str(sample_id),
        epoch=epoch,
        log_model=header.model,
        log=log,
        version=header.version,
        protocol=protocol,
        settings=settings,
    )
