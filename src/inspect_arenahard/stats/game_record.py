"""The game record: one judged game, the contract between judge logs and everything that ranks
or analyses them. Pure (no Inspect imports), so ``stats/`` can use it.

:func:`inspect_arenahard.logs.reader.read_games` builds one record per game of the judge scorers'
score metadata (see :mod:`inspect_arenahard.evaluate.scorers`); ``--games FILE`` reads them from JSONL;
``stats.battles``, ``stats.judge_bias``, :mod:`inspect_arenahard.report.dataframes` and the report read
them. Records stay plain dicts (built fast, written as JSON unchanged); :class:`GameRecord`
types them and :func:`check_game` is the one validator, applied where records enter from outside
(a log's score metadata, a JSONL line, records handed to the statistics).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence, TypedDict, cast

from inspect_arenahard.stats.verdict_points import LABELS, Position, normalize_label


class _RecordCore(TypedDict):
    question_id: str
    model: str
    """The model under test (the ``--model`` player in Auto-Arena battles)."""
    baseline: str
    """The model it is compared with (its opponent in battles)."""
    judge: str
    """Judge model, or ``committee`` for a committee's majority verdict."""
    game: int
    """1: baseline shown as A; 2: positions swapped (battles have game 1 only)."""
    model_position: Position
    label: str | None
    """A verdict label about A vs B (:data:`inspect_arenahard.stats.verdict_points.LABELS`, or a mirrored
    spelling); None when unparsed."""


class GameRecord(_RecordCore, total=False):
    """One judged game. The log reader fills every key; other producers may leave out the
    optional ones (``parsed`` then defaults to "a label is present")."""

    parsed: bool
    category: str | None
    epoch: int
    style: Mapping[str, Any] | None
    """``{"model": features, "baseline": features}`` from :mod:`inspect_arenahard.judging.style_features`."""
    version: str | None
    """Arena-Hard version of the run (picks the official scoring rules)."""
    log: str
    """The log file the game was read from."""
    protocol: str
    """The scorer that judged it (``pairwise_judge``, ``autoarena_committee``): part of a game's
    identity (:func:`inspect_arenahard.logs.reader.game_key`)."""
    strong_weight: int
    """Battles a strong (``>>``) verdict counts for, as the judge scorer scored it; ranking uses
    it unless told otherwise and refuses games with different weights."""
    settings: str
    """The run's verdict-changing judge settings as canonical JSON (template, temperature,
    max tokens, reference, neutralisation rules …): games with different settings are not pooled
    silently (:func:`inspect_arenahard.logs.reader.check_settings`)."""
    canary: bool
    """A canary game (fixed shipped answers, judged in every run): never ranked; the reader keeps
    these apart (``LogGames.canaries``) to compare a judge's runs (:mod:`inspect_arenahard.stats.drift`)."""


RECORD_FIELDS: tuple[str, ...] = tuple(_RecordCore.__annotations__)
"""Fields every game record has (a JSONL file of records, judge analytics)."""
BATTLE_FIELDS: tuple[str, ...] = ("question_id", "model", "baseline", "model_position")
"""Fields ranking needs (``stats.battles.from_games``: no label means unparsed)."""
SCORED_GAME_FIELDS: tuple[str, ...] = ("judge", "game", "model_position", "label", "parsed")
"""Fields of one entry of a judge score's ``metadata["games"]`` (the per-game part of a record)."""


def check_game(record: Any, where: str, fields: Sequence[str] = RECORD_FIELDS) -> GameRecord:
    """``record`` as a :class:`GameRecord`, after checking it has ``fields`` and that its position
    and label (when present) are valid; otherwise one ``ValueError`` starting with ``where``
    (the file and line, log and sample, or record number) that names the field."""
    if not isinstance(record, Mapping):
        raise ValueError(f"{where}: a game record must be an object, got {type(record).__name__}")
    missing = [name for name in fields if name not in record]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    position = record.get("model_position", "A")
    if position not in ("A", "B"):
        raise ValueError(f"{where}: field 'model_position' must be 'A' or 'B', got {position!r}")
    label = record.get("label")
    if label is not None and (not isinstance(label, str) or normalize_label(label) is None):
        raise ValueError(
            f"{where}: field 'label': unknown verdict label {label!r}; expected one of {', '.join(LABELS)}"
        )
    return cast(GameRecord, record)
