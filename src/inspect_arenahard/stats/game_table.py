"""Game records as columns: one numpy array per field, built once from the records.

A leaderboard over 60,000 games reads each record once, here, with one C-level pass per field;
the battles (``stats.battles.from_games``) and the judge checks (``stats.judge_bias.judge_games``)
are then array work on the same table, instead of each walking the dicts again. The records
themselves stay the contract between stages (``stats.game_record``); the table is how the
statistics read them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from itertools import chain, repeat
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np

from inspect_arenahard.stats.game_record import BATTLE_FIELDS, check_game
from inspect_arenahard.stats.game_rows import GameRows
from inspect_arenahard.stats.name_codes import cluster_index
from inspect_arenahard.stats.verdict_points import (
    LABELS,
    SPELLINGS,
    normalize_label,
    outcome_for,
)

STYLE_COLUMNS: tuple[str, ...] = ("tokens", "headers", "lists", "bold")
"""Per-answer style sums kept for style control: token count, then h1–h6, list-item and bold counts."""

UNPARSED = -1
"""``GameTable.label`` of a game without a parsed verdict."""

_LABEL_CODE: dict[str | None, int] = {
    None: UNPARSED,
    **{s: LABELS.index(c) for s, c in SPELLINGS.items()},
}
_SPELLED = -2
"""A label ``_LABEL_CODE`` does not hold: a spelling ``normalize_label`` reads."""
_A_SIDE = [outcome_for(label, "A") for label in LABELS]
A_POINTS = np.array([points for points, _ in _A_SIDE])
"""Points of position A for each label code (``LABELS`` order), from ``outcome_for``."""
STRONG = np.array([strong for _, strong in _A_SIDE])
"""Whether each label code is a strong (``>>``) verdict."""
A_OUTCOME = (np.sign(A_POINTS - 0.5) * np.where(STRONG, 2, 1)).astype(np.int8)
"""Outcome of position A for each label code: 2 much better … −2 much worse."""


def style_vector(features: Mapping[str, Any]) -> tuple[float, float, float, float]:
    """(tokens, headers, lists, bold) of one answer's ``StyleFeatures`` (sums over their sub-counts)."""
    return (
        float(features["token_len"]),
        float(sum(features["header_count"].values())),
        float(sum(features["list_count"].values())),
        float(sum(features["bold_count"].values())),
    )


@dataclass(frozen=True)
class GameTable:
    """Game records as parallel columns, one row per record in the records' order.

    Models are codes into their sorted names, judges and game numbers codes into their distinct
    values; ``question_id``, ``category`` and ``version`` keep the records' own values (object
    arrays). ``label`` is the
    canonical label's index in ``LABELS``, ``UNPARSED`` when the game has no parsed verdict.
    ``model_style`` / ``baseline_style`` are ``(n, 4)`` in ``STYLE_COLUMNS`` order (NaN rows
    where a record has none), None when no record has any; ``malformed_style`` marks the records
    whose style metadata lacks a count (``style_error`` names the first).
    """

    records: np.ndarray | GameRows
    """The records themselves (an object array, or the reader's rows, whose records are made
    on first use): error messages and record-level consumers."""
    checked: frozenset[str]
    """Fields every record was checked to have (``check_game``)."""
    models: tuple[str, ...]
    model: np.ndarray
    baseline: np.ndarray
    """Codes into ``models`` (every model and baseline name, sorted)."""
    judges: tuple[Any, ...]
    judge_code: np.ndarray
    """Codes into ``judges`` (the distinct judge values, first seen first)."""
    question_id: np.ndarray
    prompts: tuple[Any, ...]
    prompt: np.ndarray
    """Codes into ``prompts`` (the distinct ``question_id`` values, first seen first)."""
    category: np.ndarray
    version: np.ndarray
    epoch: np.ndarray
    games: tuple[Any, ...]
    game_code: np.ndarray
    """Codes into ``games`` (the distinct game numbers, first seen first)."""
    position_a: np.ndarray
    """The model sat at position A."""
    label: np.ndarray
    strong_weight: np.ndarray
    """Each record's own strong weight, NaN where it names none."""
    model_style: np.ndarray | None
    baseline_style: np.ndarray | None
    malformed_style: np.ndarray

    def __len__(self) -> int:
        return len(self.records)

    @property
    def judge(self) -> np.ndarray:
        """Each record's judge value (None where it names none)."""
        values = np.empty(len(self.judges), dtype=object)
        values[:] = self.judges
        return values[self.judge_code]

    def prompt_order(self) -> np.ndarray:
        """Each row's prompt as its rank among the names (``str``) of the table's prompts, sorted:
        the order the judge checks' intervals cluster by (``stats.shares.cluster_index``)."""
        return cluster_index(self.prompts)[self.prompt]

    @property
    def parsed(self) -> np.ndarray:
        """Games with a parsed verdict label."""
        return self.label != UNPARSED

    @property
    def outcome(self) -> np.ndarray:
        """The verdict from the model's side (2 much better … −2 much worse; 0 when unparsed,
        see ``parsed``), as ``stats.judge_bias.model_outcome`` defines it."""
        a_side = A_OUTCOME[np.where(self.parsed, self.label, 2)]
        return np.where(self.position_a, a_side, -a_side)

    def select(self, mask: np.ndarray) -> GameTable:
        """The rows where ``mask`` holds (same name tables); itself when every row does."""
        if mask.dtype == bool and len(mask) == len(self) and mask.all():
            return self
        keep = {"models", "judges", "prompts", "games", "checked"}
        changes = {
            f.name: getattr(self, f.name)[mask]
            for f in fields(self)
            if f.name not in keep and getattr(self, f.name) is not None
        }
        return replace(self, **changes)

    def require(self, needed: Sequence[str], where: Callable[[int, Any], str]) -> None:
        """Check every record has ``needed`` (``check_game``'s error, starting with
        ``where(index, record)``, when one does not)."""
        missing = [name for name in needed if name not in self.checked]
        if missing and not all(all(n in r for n in missing) for r in self.records):
            for index, record in enumerate(self.records):
                check_game(record, where(index, record), needed)

    def style_error(self) -> str | None:
        """Why the first record with malformed style metadata is malformed, or None."""
        if not self.malformed_style.any():
            return None
        record: Any = self.records[int(np.argmax(self.malformed_style))]
        try:
            style_vector(record["style"]["model"])
            style_vector(record["style"]["baseline"])
        except (KeyError, TypeError, AttributeError) as ex:
            return f"malformed style metadata ({type(ex).__name__}: {ex})"
        return "malformed style metadata"  # pragma: no cover - flagged rows always fail above


def record_number(index: int, record: Any) -> str:
    """How the judge analyses name a bad record."""
    return f"game record #{index}"


def record_named(index: int, record: Any) -> str:
    """How ranking names a bad record: its number, question and model."""
    where = f"game record {index}"
    if isinstance(record, Mapping):
        where += f" (question_id={record.get('question_id')!r}, model={record.get('model')!r})"
    return where


def game_table(
    games: GameTable | Iterable[Mapping[str, Any]],
    needed: Sequence[str] = BATTLE_FIELDS,
    where: Callable[[int, Any], str] = record_number,
) -> GameTable:
    """The table of ``games`` (itself when already one), every record checked to have
    ``needed`` (``check_game``'s one-line error, starting with ``where(index, record)``, when
    one does not). Rows the log reader kept (``GameRows``) are read from their samples while
    no record of them was made."""
    if isinstance(games, GameTable):
        games.require(needed, where)
        return games
    if isinstance(games, GameRows) and games.unmade:
        rows = _table(games, *_row_columns(games))
        rows.require(needed, where)
        return rows
    records = list(games)
    table: GameTable | None
    try:
        table = _table(_objects(records), *_record_columns(records))
    except (_NotWellFormed, KeyError, TypeError, AttributeError):
        table = None  # the uncommon case: find and name the bad record one by one
    if table is None or not set(needed) <= table.checked:
        for index, record in enumerate(records):
            check_game(record, where(index, record), needed)
    return table if table is not None else _table(_objects(records), *_record_columns(records))


class _NotWellFormed(Exception):
    """A position or label ``check_game`` refuses (it names the record)."""


def _codes(values: Sequence[Any]) -> tuple[list[Any], np.ndarray]:
    """(distinct values in first-seen order, each value's index among them)."""
    distinct = list(dict.fromkeys(values))
    index = dict(zip(distinct, range(len(distinct))))
    return distinct, np.fromiter(map(index.__getitem__, values), np.int64, count=len(values))


def _first_seen(values: list[Any], codes: np.ndarray) -> tuple[list[Any], np.ndarray]:
    """``_codes`` of the row values ``values[codes]`` (every value occurs), from their codes."""
    distinct, first = np.unique(codes, return_index=True)
    order = distinct[np.argsort(first, kind="stable")]
    renumber = np.empty(len(values), dtype=np.int64)
    renumber[order] = np.arange(len(order))
    return [values[i] for i in order.tolist()], renumber[codes]


def _objects(values: Sequence[Any]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


_SAMPLE_FIELDS = (
    "model", "baseline", "question_id", "category", "version", "epoch", "strong_weight", "style",
)  # fmt: skip
"""What the table reads of a record that all games of a sample share."""
_GAME_FIELDS = ("model_position", "judge", "game", "label", "parsed")
"""What the table reads of a record that is the game's own."""

_Columns = tuple[list[list[Any]], list[list[Any]], "np.ndarray | None", set[str]]
"""(sample columns in ``_SAMPLE_FIELDS`` order, game columns in ``_GAME_FIELDS`` order, each
row's sample (None: one sample per row), the fields some record lacks)."""


def _record_columns(records: list[Mapping[str, Any]]) -> _Columns:
    """The columns of records, each its own sample: a C-level pass per field. A lacking field
    reads as None (``parsed`` as true, as ``check_game`` reads it)."""
    columns: list[list[Any]] = []
    absent = set()
    for name in (*_SAMPLE_FIELDS, *_GAME_FIELDS):
        try:  # records as the log reader makes them: every field present
            columns.append(list(map(itemgetter(name), records)))
        except KeyError:
            absent.add(name)
            default = True if name == "parsed" else None
            columns.append([r.get(name, default) for r in records])
    return columns[: len(_SAMPLE_FIELDS)], columns[len(_SAMPLE_FIELDS) :], None, absent


def _row_columns(rows: GameRows) -> _Columns:
    """The columns of the rows the log reader kept, read from the parsed scores: the fields a
    sample's games share once per sample, the games' own once per game."""
    used, row_sample = np.unique(rows.sample, return_inverse=True)
    samples = [rows.samples[i] for i in used.tolist()]
    shared = [list(map(attrgetter(name), samples)) for name in _SAMPLE_FIELDS]
    own = [list(map(attrgetter(name), rows.scored)) for name in _GAME_FIELDS]
    return shared, own, row_sample.reshape(-1).astype(np.int64), set()


def _table(
    records: np.ndarray | GameRows,
    shared: list[list[Any]],
    own: list[list[Any]],
    row_sample: np.ndarray | None,
    absent: set[str],
) -> GameTable:
    """The table of columns that have ``BATTLE_FIELDS`` with a valid position and label (else
    an exception: ``game_table`` then names the bad record); ``checked`` adds the other
    ``RECORD_FIELDS`` every record has. Shared columns are coded once per sample, then spread
    over its rows (``row_sample``)."""
    names, baselines, question_id, category, version, epoch, weights, styles = shared
    positions, judge, game, raw_labels, parsed = own
    if (
        absent & set(BATTLE_FIELDS)
        or not set(positions) <= {"A", "B"}
        or not all(
            label is None or (isinstance(label, str) and normalize_label(label))
            for label in set(raw_labels)
        )
    ):
        raise _NotWellFormed

    def rows(column: np.ndarray) -> np.ndarray:
        return column if row_sample is None else column[row_sample]

    text = {m: str(m) for m in {*names, *baselines}}
    models = sorted(set(text.values()))
    position = {t: i for i, t in enumerate(models)}
    code = {m: position[t] for m, t in text.items()}
    judges, judge_code = _codes(judge)
    prompts, prompt = _codes(question_id)
    if row_sample is not None:
        prompts, prompt = _first_seen(prompts, prompt[row_sample])
    games, game_code = _codes(game)
    n = len(raw_labels)
    label = np.fromiter(map(_LABEL_CODE.get, raw_labels, repeat(_SPELLED)), np.int8, count=n)
    label[~np.fromiter(map(bool, parsed), bool, count=n)] = UNPARSED
    for i in np.flatnonzero(label == _SPELLED).tolist():  # spellings with spaces: rare
        label[i] = LABELS.index(str(normalize_label(raw_labels[i])))
    model_style, baseline_style, malformed = _styles(styles)
    s = len(names)
    return GameTable(
        records=records,
        checked=frozenset(BATTLE_FIELDS) | ({"judge", "game", "label"} - absent),
        models=tuple(models),
        model=rows(np.fromiter(map(code.__getitem__, names), np.int64, count=s)),
        baseline=rows(np.fromiter(map(code.__getitem__, baselines), np.int64, count=s)),
        judges=tuple(judges),
        judge_code=judge_code,
        question_id=rows(_objects(question_id)),
        prompts=tuple(prompts),
        prompt=prompt,
        category=rows(_objects(category)),
        version=rows(_objects(version)),
        epoch=rows(np.array([int(e or 1) for e in epoch], dtype=np.int64)),
        games=tuple(games),
        game_code=game_code,
        position_a=np.array(positions, dtype=object) == "A",
        label=label,
        strong_weight=rows(
            np.array([np.nan if w is None else float(w) for w in weights], dtype=float)
        ),
        model_style=None if model_style is None else rows(model_style),
        baseline_style=None if baseline_style is None else rows(baseline_style),
        malformed_style=rows(malformed),
    )


def _styles(styles: Sequence[Any]) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray]:
    """(model style, baseline style, malformed mask): each distinct style object (the two games
    of a sample share one) summed once, a column at a time."""
    malformed = np.zeros(len(styles), dtype=bool)
    if all(s is None for s in styles):
        return None, None, malformed
    ids = list(map(id, styles))
    by_id = dict(zip(ids, styles))
    by_id.pop(id(None), None)
    distinct = list(by_id.values())
    index = dict(zip(by_id, range(len(by_id))))
    try:
        both = _style_vectors([*map(_MODEL, distinct), *map(_BASELINE, distinct)])
        sides = [both[: len(distinct)], both[len(distinct) :]]
    except (KeyError, TypeError, AttributeError):
        sides = None
    if sides is None:  # some style lacks a count: those rows are NaN and marked
        vectors = [_or_none(s) for s in distinct]
        bad = np.array([v is None for v in vectors], dtype=bool)
        nan_row = (np.nan,) * len(STYLE_COLUMNS)
        sides = [
            np.array([nan_row if v is None else v[k] for v in vectors], dtype=float).reshape(-1, 4)
            for k in (0, 1)
        ]
    else:
        bad = np.zeros(len(distinct), dtype=bool)
    row = np.fromiter(map(index.get, ids, repeat(-1)), dtype=np.int64, count=len(ids))
    has = row >= 0
    out = []
    for side in sides:
        full = np.full((len(styles), len(STYLE_COLUMNS)), np.nan)
        full[has] = side[row[has]]
        out.append(full)
    malformed[has] = bad[row[has]]
    return out[0], out[1], malformed


_MODEL, _BASELINE = itemgetter("model"), itemgetter("baseline")
_COUNTS = itemgetter("header_count", "list_count", "bold_count")


def _style_vectors(features: list[Any]) -> np.ndarray:
    """``style_vector`` of many answers' features: each count dict summed once by C-level passes
    over all of them together (180,000 dicts for 60 logs × 500 samples × 2 answers)."""
    n = len(features)
    tokens = np.fromiter(map(float, map(itemgetter("token_len"), features)), dtype=float, count=n)
    counts = chain.from_iterable(map(_COUNTS, features))
    sums = np.fromiter(map(sum, map(dict.values, counts)), dtype=float, count=3 * n)
    return np.column_stack([tokens, sums.reshape(n, 3)])


def _or_none(style: Any) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    try:
        return style_vector(style["model"]), style_vector(style["baseline"])
    except (KeyError, TypeError, AttributeError):
        return None
