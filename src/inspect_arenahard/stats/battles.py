"""Battles: one row per judged game (or per battle-file row), held as numpy arrays.

Everything downstream (Bradley–Terry, bootstrap, style control, the mean method) reads this one
container, so judge logs and battle files are ranked by the same code. Rows whose verdict could
not be parsed stay in the container with ``points`` NaN: they are excluded from every fit but
still counted per model, so nothing disappears silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import cached_property
from typing import Any

import numpy as np

from inspect_arenahard.stats.game_record import BATTLE_FIELDS
from inspect_arenahard.stats.game_table import (
    A_POINTS,
    STRONG,
    STYLE_COLUMNS,
    GameTable,
    game_table,
    record_named,
    style_vector,
)
from inspect_arenahard.stats.name_codes import SortedNameCodes, cluster_index
from inspect_arenahard.stats.verdict_points import STRONG_WEIGHT

__all__ = ["STYLE_COLUMNS", "style_vector"]  # re-exported: battles are where style sums are read

WINNER_POINTS: dict[str, float] = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}
"""Points of ``model_a`` for each ``winner`` value of a battle file (Chatbot Arena's vocabulary)."""

_BATTLE_FIELDS = ("question_id", "model_a", "model_b", "winner")


@dataclass(frozen=True)
class Battles:
    """Battles between models ``a`` and ``b`` (indices into ``models``), one row each.

    ``points`` are ``a``'s: 1 win, 0.5 tie, 0 loss, NaN unparsed (excluded). ``weight`` is the
    number of battles the row stands for (a strong verdict counts ``strong_weight`` times).
    ``baseline`` is the baseline a judge-log record named (None for battle files). ``style_a`` /
    ``style_b`` are ``(n, 4)`` arrays in ``STYLE_COLUMNS`` order (NaN rows where an answer has no
    style metadata), or None when no row has any.
    """

    models: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    points: np.ndarray
    weight: np.ndarray
    question_id: np.ndarray
    category: np.ndarray
    judge: np.ndarray
    baseline: np.ndarray
    style_a: np.ndarray | None = None
    style_b: np.ndarray | None = None
    version: np.ndarray | None = None
    """Arena-Hard version of the run each row came from (``"v0.1"``, ``"v2.0"``, ``"custom"``; None
    when unknown): it decides the official scoring rules (see ``stats.leaderboard.official_rules``)."""
    epoch: np.ndarray | None = None
    """Epoch of the judged sample; with ``question_id``, ``judge`` and the model pair it names the
    judgment a game belongs to (its position-swapped partner shares all four)."""
    question_codes: SortedNameCodes | None = None
    """``question_id`` as the reader coded it by sorted name, where it did (a battle file's text
    ids): what the prompts are grouped by, without sorting the ids again."""

    def __len__(self) -> int:
        return len(self.a)

    @property
    def parsed(self) -> np.ndarray:
        """Mask of the rows that enter the fits."""
        return ~np.isnan(self.points)

    def select(self, mask: np.ndarray) -> Battles:
        """The rows where ``mask`` holds (same model list); itself when every row does."""
        if mask.dtype == bool and len(mask) == len(self) and mask.all():
            return self
        changes = {
            f.name: getattr(self, f.name)[mask]
            for f in fields(self)
            if f.name != "models" and getattr(self, f.name) is not None
        }
        return replace(self, **changes)

    def where(self, judges: Sequence[str] | None = None, category: str | None = None) -> Battles:
        """Rows judged by one of ``judges`` and in ``category`` (None: no filter).

        An unknown judge or category is an error naming the ones present, not an empty table.
        """
        return self.select(selection(self.judge, self.category, judges, category))

    def categories(self) -> list[str]:
        """Distinct non-empty categories, sorted."""
        return sorted(self.named("category"))

    def named(self, column: str) -> frozenset[Any]:
        """The distinct values other than None of an object column (``category``, ``judge``,
        ``baseline``, ``version``; an absent column has none)."""
        return self.values(column) - {None}

    def values(self, column: str) -> frozenset[Any]:
        """The distinct values of an object column, None among them when a row has none (an
        absent column: None alone), found once per container: every table asks again."""
        found = self._values.get(column)
        if found is None:
            values = getattr(self, column)
            found = frozenset({None} if values is None else distinct(values))
            self._values[column] = found
        return found

    @cached_property
    def _values(self) -> dict[str, frozenset[Any]]:
        """``values`` found so far, or known when the container was built."""
        return {}

    def index(self, model: str) -> int:
        """Position of ``model`` in ``models``; a model with no battles is an error."""
        try:
            return self.models.index(model)
        except ValueError:
            raise ValueError(
                f"model {model!r} has no battles; models present: {', '.join(self.models)}"
            ) from None

    def games_per_model(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Number of ``rows`` (a boolean mask; None: all) each model takes part in."""
        m = len(self.models)
        if rows is not None and not rows.any():  # (a battle file's exclusions select nothing)
            return np.zeros(m, dtype=np.intp)
        a, b = (self.a, self.b) if rows is None or rows.all() else (self.a[rows], self.b[rows])
        return np.bincount(a, minlength=m) + np.bincount(b, minlength=m)

    def question_clusters(self) -> np.ndarray | SortedNameCodes:
        """The rows' prompts as ``cluster_index`` groups them: the reader's codes, else the ids."""
        return self.question_id if self.question_codes is None else self.question_codes

    def avg_tokens(self) -> np.ndarray:
        """Mean token count of each model's distinct answers (one per question id); NaN if unknown."""
        m = len(self.models)
        if self.style_a is None or self.style_b is None:
            return np.full(m, np.nan)
        question = cluster_index(self.question_clusters())
        model = np.r_[self.a, self.b]
        tokens = np.r_[self.style_a[:, 0], self.style_b[:, 0]]
        known = ~np.isnan(tokens)
        key = (model * (question.max() + 1) + np.r_[question, question])[known]
        _, first = np.unique(key, return_index=True)
        answers = model[known][first]
        counts = np.bincount(answers, minlength=m)
        sums = np.bincount(answers, tokens[known][first], minlength=m)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def held(column: np.ndarray) -> np.ndarray:
    """Mask of the rows of an object column that hold a value (not None); one vectorised
    comparison, where a Python loop over a million rows costs a tenth of a second."""
    return np.not_equal(column, _NONE)


_NONE = np.array(None, dtype=object)
_ONE = np.array(1, dtype=np.int64)


def _repeated(value: np.ndarray, size: int) -> np.ndarray:
    """One value in every row, as a read-only view of it: a column a battle file lacks (None)
    or its epochs (1) take no memory per row (filled, a million rows' four absent columns and
    epochs are 40 MB of new pages holding nothing)."""
    return np.broadcast_to(value, (size,))


def distinct(column: np.ndarray) -> set[Any]:
    """The distinct values of an object column, None among them when a row has none (one set
    of the rows' values: no per-row comparison with None). A column of None alone, as a battle
    file leaves its categories and judges, is told by counting them: 5x quicker than the set."""
    values = column.tolist()
    if values and values[0] is None and values.count(None) == len(values):
        return {None}
    return set(values)


def selection(
    judge: np.ndarray,
    category: np.ndarray,
    judges: Sequence[str] | None = None,
    wanted: str | None = None,
) -> np.ndarray:
    """Mask of the rows judged by one of ``judges`` and in category ``wanted`` (None: no filter);
    an unknown judge or category, or judges with no battle in the category, is an error naming
    what is present. Battles and raw game records are selected by this one rule."""
    mask = np.ones(len(judge), dtype=bool)
    if judges:
        _check_known("judge", judges, judge)
        mask &= np.isin(judge, list(judges))
    if wanted is not None:
        _check_known("category", [wanted], category)
        mask &= category == wanted
    if judges and wanted is not None and not mask.any():
        # each is present, but not together: say so rather than rank an empty selection
        theirs = {c for c in category[np.isin(judge, list(judges))].tolist() if c is not None}
        raise ValueError(
            f"no battles judged by {', '.join(map(repr, judges))} in category {wanted!r}; "
            f"their categories: {', '.join(sorted(theirs)) or 'none'}"
        )
    return mask


def _check_known(what: str, wanted: Iterable[str], present: np.ndarray) -> None:
    known = distinct(present) - {None}
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise ValueError(
            f"no battles with {what} {', '.join(map(repr, unknown))}; present: {', '.join(sorted(known)) or 'none'}"
        )


class _Columns:
    """Row-by-row accumulator shared by the builders, turned into one ``Battles`` at the end."""

    def __init__(self) -> None:
        self.rows: list[tuple[Any, ...]] = []
        self.style: list[tuple[Sequence[float] | None, Sequence[float] | None]] = []
        self.runs: list[tuple[str | None, int]] = []

    def add(
        self,
        model_a: str,
        model_b: str,
        points: float,
        weight: float,
        question_id: Any,
        category: str | None,
        judge: str | None,
        baseline: str | None,
        style_a: Sequence[float] | None = None,
        style_b: Sequence[float] | None = None,
        version: str | None = None,
        epoch: int = 1,
    ) -> None:
        self.rows.append((model_a, model_b, points, weight, question_id, category, judge, baseline))
        self.style.append((style_a, style_b))
        self.runs.append((version, epoch))

    def build(self) -> Battles:
        models = tuple(sorted({r[0] for r in self.rows} | {r[1] for r in self.rows}))
        position = {m: i for i, m in enumerate(models)}
        cols = list(zip(*self.rows)) if self.rows else [()] * 8

        def objects(values: Sequence[Any]) -> np.ndarray:
            out = np.empty(len(values), dtype=object)
            out[:] = list(values)
            return out

        has_style = any(sa is not None or sb is not None for sa, sb in self.style)
        nan_row = (np.nan,) * len(STYLE_COLUMNS)
        return Battles(
            models=models,
            a=np.array([position[m] for m in cols[0]], dtype=np.int64),
            b=np.array([position[m] for m in cols[1]], dtype=np.int64),
            points=np.array(cols[2], dtype=float),
            weight=np.array(cols[3], dtype=float),
            question_id=objects(cols[4]),
            category=objects(cols[5]),
            judge=objects(cols[6]),
            baseline=objects(cols[7]),
            style_a=np.array([sa or nan_row for sa, _ in self.style], dtype=float).reshape(-1, 4)
            if has_style
            else None,
            style_b=np.array([sb or nan_row for _, sb in self.style], dtype=float).reshape(-1, 4)
            if has_style
            else None,
            version=objects([v for v, _ in self.runs]),
            epoch=np.array([e for _, e in self.runs], dtype=np.int64),
        )


def from_games(
    games: GameTable | Iterable[Mapping[str, Any]], strong_weight: int | None = None
) -> Battles:
    """Battles from judge game records (``inspect_arenahard.stats.game_record.GameRecord``) or
    their ``GameTable``.

    Each game is one row with the model at position A as ``a``; a strong verdict weighs
    ``strong_weight``, by default the records' own ``strong_weight`` (the weight the judge
    scorer scored with; records without one weigh ``STRONG_WEIGHT``). Records with different
    weights are refused unless ``strong_weight`` says which to use. Unparsed games (``parsed``
    false or no label) and games of a model against itself (no information) are kept with NaN
    points: excluded from fits, counted per model.
    """
    table = game_table(games, BATTLE_FIELDS, record_named)
    weight_of_records = strong_weight if strong_weight is not None else table_weight(table)
    if table.malformed_style.any():
        i = int(np.argmax(table.malformed_style))
        raise ValueError(f"{record_named(i, table.records[i])}: {table.style_error()}")
    counted = table.parsed & (table.model != table.baseline)
    label = np.where(counted, table.label, 0)
    points = np.where(counted, A_POINTS[label], np.nan)
    weight = np.where(counted & STRONG[label], float(weight_of_records), 1.0)
    a = np.where(table.position_a, table.model, table.baseline)
    b = np.where(table.position_a, table.baseline, table.model)
    names = np.array(table.models, dtype=object)
    style_a = style_b = None
    if table.model_style is not None and table.baseline_style is not None:
        at_a = table.position_a[:, None]
        style_a = np.where(at_a, table.model_style, table.baseline_style)
        style_b = np.where(at_a, table.baseline_style, table.model_style)
    return Battles(
        models=table.models, a=a, b=b, points=points, weight=weight,
        question_id=table.question_id, category=table.category, judge=table.judge,
        baseline=names[table.baseline],
        style_a=style_a, style_b=style_b, version=table.version, epoch=table.epoch,
    )  # fmt: skip


def records_weight(games: GameTable | Sequence[Mapping[str, Any]]) -> float:
    """The strong weight the records were scored with; different weights are an error naming a
    log of each (pass an explicit weight to rank them under one)."""
    if isinstance(games, GameTable):
        return table_weight(games)
    records = [g for g in games if isinstance(g, Mapping)]
    weights = [g.get("strong_weight") for g in records]
    return _one_weight(np.array([np.nan if w is None else float(w) for w in weights]), records)


def table_weight(table: GameTable) -> float:
    """``records_weight`` of a table's records."""
    return _one_weight(table.strong_weight, table.records)


def _one_weight(weights: np.ndarray, records: Sequence[Mapping[str, Any]] | np.ndarray) -> float:
    weights = np.where(np.isnan(weights), float(STRONG_WEIGHT), weights)
    found, first = np.unique(weights, return_index=True)
    if len(found) > 1:
        detail = ", ".join(
            f"{w:g} in {records[i].get('log', 'records')}" for w, i in zip(found.tolist(), first)
        )
        raise ValueError(
            f"games scored with different strong weights ({detail}); pass --strong-weight to rank "
            "them under one weight"
        )
    return float(found[0]) if len(found) else float(STRONG_WEIGHT)


def from_battle_rows(
    rows: Iterable[tuple[str, Mapping[str, Any]]], source: str, strong_weight: int = STRONG_WEIGHT
) -> Battles:
    """Battles from ``{question_id, model_a, model_b, winner}`` rows, each with where it came from
    (files are read by ``inspect_arenahard.logs.battle_files.read_battles_jsonl``).

    Strong verdicts appear as ``strong_weight`` repeated rows (arena-hard's battle files), so a
    run of c identical consecutive rows is read as c // strong_weight strong games (weight
    ``strong_weight``) and c % strong_weight single games: the fits see the same rows, and
    counts are games, not rows. Optional fields: ``category``, ``judge``, and Chatbot Arena's
    ``conv_metadata`` (style per side). Any bad row is a ``ValueError`` starting with its
    ``where`` (file and line) that names the field; ``source`` names the input when it has none.
    """
    columns = _Columns()
    run: list[Any] = []  # [key, count, game fields] of the current run of identical rows
    for where, row in rows:
        check_battle_row(row, where)
        key = [row.get(f) for f in (*_BATTLE_FIELDS, "category", "judge", "conv_metadata")]
        if run and run[0] == key:
            run[1] += 1
            continue
        _add_run(columns, run, strong_weight)
        style_a, style_b = _arena_style(row.get("conv_metadata"), where)
        run = [key, 1, (
            str(row["model_a"]), str(row["model_b"]), WINNER_POINTS[row["winner"]],
            row["question_id"], row.get("category"), row.get("judge"), style_a, style_b,
        )]  # fmt: skip
    _add_run(columns, run, strong_weight)
    if not columns.rows:
        raise ValueError(f"{source}: no battles")
    return columns.build()


def check_battle_row(row: Mapping[str, Any], where: str) -> None:
    """A ``ValueError`` starting with ``where`` and naming the field, for a row that is not a
    battle (a missing field, an unknown ``winner``, a model against itself, malformed
    ``conv_metadata``); the one rule of both battle-file readers."""
    missing = [f for f in _BATTLE_FIELDS if f not in row]
    if missing:
        raise ValueError(f"{where}: missing field {', '.join(map(repr, missing))}")
    if row["winner"] not in WINNER_POINTS:
        raise ValueError(
            f"{where}: field 'winner' is {row['winner']!r}; expected one of {', '.join(WINNER_POINTS)}"
        )
    if row["model_a"] == row["model_b"]:
        raise ValueError(f"{where}: model_a and model_b are both {row['model_a']!r}")
    _arena_style(row.get("conv_metadata"), where)


@dataclass(frozen=True)
class BattleColumns:
    """A battle file's rows as columns, as a columnar reader leaves them (one entry per row).

    ``a``/``b`` index ``models`` and ``winner`` indexes ``WINNER_POINTS``' keys, each -1 where
    the row has no usable value; ``style_a``/``style_b`` are ``(n, 4)`` (NaN rows without
    ``conv_metadata``) or None when no row has any; ``malformed`` marks the rows whose
    ``conv_metadata`` lacks a count. ``first_invalid`` finds the rows
    ``check_battle_row`` would refuse, ``from_battle_columns`` ranks the rest.
    """

    models: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    winner: np.ndarray
    question_id: np.ndarray
    category: np.ndarray | None
    """None when no row has one (likewise ``judge``)."""
    judge: np.ndarray | None
    style_a: np.ndarray | None
    style_b: np.ndarray | None
    malformed: np.ndarray
    question_missing: np.ndarray
    """Rows with no (or a null) ``question_id``."""
    question_codes: SortedNameCodes | None = None
    """``question_id`` coded by sorted name (``Battles.question_codes``), None where the reader
    left that to the ranking."""


def first_invalid(columns: BattleColumns) -> int | None:
    """Index of the first row that is not a battle (see ``check_battle_row``), or None."""
    bad = (
        (columns.a < 0)
        | (columns.b < 0)
        | (columns.a == columns.b)
        | (columns.winner < 0)
        | columns.malformed
        | columns.question_missing
    )
    return int(np.argmax(bad)) if bad.any() else None


def from_battle_columns(
    columns: BattleColumns, source: str, strong_weight: int = STRONG_WEIGHT
) -> Battles:
    """Battles from valid columns (``first_invalid`` found none), with the same games as
    ``from_battle_rows``: a run of identical consecutive rows is ``count // strong_weight``
    strong games and ``count % strong_weight`` single ones (rows with equal style sums count as
    identical)."""
    n = len(columns.a)
    if n == 0:
        raise ValueError(f"{source}: no battles")
    repeat = np.zeros(n, dtype=bool)  # the row repeats the one before it
    repeat[1:] = (
        (columns.a[1:] == columns.a[:-1])
        & (columns.b[1:] == columns.b[:-1])
        & (columns.winner[1:] == columns.winner[:-1])
    )
    # Python values are compared only where the codes repeat (a million ids: 13 ms each)
    candidates = np.flatnonzero(repeat)
    for values in (columns.question_id, columns.category, columns.judge):
        if values is not None:  # (an absent column is None in every row: the same)
            candidates = candidates[_same_as_previous(values, candidates)]
    repeat[:] = False
    repeat[candidates] = True
    for style in (columns.style_a, columns.style_b):
        if style is not None and repeat.any():
            same = (style[1:] == style[:-1]) | (np.isnan(style[1:]) & np.isnan(style[:-1]))
            repeat[1:] &= same.all(axis=1)
    rows = _expanded_runs(repeat, strong_weight)
    first, weight = rows if rows is not None else (slice(None), np.ones(n))
    points = np.array(list(WINNER_POINTS.values()))[columns.winner]
    size = len(weight)

    def kept(values: np.ndarray | None) -> np.ndarray:
        return _repeated(_NONE, size) if values is None else values[first]

    battles = Battles(
        models=columns.models, a=columns.a[first], b=columns.b[first], points=points[first], weight=weight,
        question_id=columns.question_id[first], category=kept(columns.category),
        judge=kept(columns.judge), baseline=kept(None),
        style_a=None if columns.style_a is None else columns.style_a[first],
        style_b=None if columns.style_b is None else columns.style_b[first],
        version=kept(None), epoch=_repeated(_ONE, size),
        question_codes=None if columns.question_codes is None else columns.question_codes[first],
    )  # fmt: skip
    # the columns a file lacks hold None alone: known here, not found by reading a million rows
    absent = [
        "baseline",
        "version",
        *(n for n in ("category", "judge") if getattr(columns, n) is None),
    ]
    battles._values.update(dict.fromkeys(absent, frozenset({None})))
    return battles


def _same_as_previous(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Whether each of ``rows`` (none the first) holds the value of the row before it (None
    equals None)."""
    return np.asarray(values[rows] == values[rows - 1], dtype=bool)


def _expanded_runs(repeat: np.ndarray, strong_weight: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(source row, weight) of each game when runs of repeated rows fold into strong games;
    None when no row repeats (every row one single game)."""
    if not repeat.any():
        return None
    starts = np.flatnonzero(~repeat)
    counts = np.diff(np.r_[starts, len(repeat)])
    strong, single = np.divmod(counts, strong_weight) if strong_weight > 1 else (0 * counts, counts)
    games = strong + single
    first = np.repeat(starts, games)
    within = np.arange(games.sum()) - np.repeat(np.cumsum(games) - games, games)
    weight = np.where(within < np.repeat(strong, games), float(strong_weight), 1.0)
    return first, weight


def _add_run(columns: _Columns, run: list[Any], strong_weight: int) -> None:
    """The games of a run of identical battle-file rows (see ``from_battle_rows``)."""
    if not run:
        return
    count, (model_a, model_b, points, question_id, category, judge, style_a, style_b) = run[1:]
    strong, single = divmod(count, strong_weight) if strong_weight > 1 else (0, count)
    for weight in [float(strong_weight)] * strong + [1.0] * single:
        columns.add(
            model_a, model_b, points, weight, question_id, category, judge, None, style_a, style_b
        )


def _arena_style(meta: Any, where: str) -> tuple[Sequence[float] | None, Sequence[float] | None]:
    """Per-side style from Chatbot Arena's ``conv_metadata`` (``sum_assistant_a_tokens``, ``header_count_a``, ...)."""
    if meta is None:
        return None, None
    try:
        return tuple(
            style_vector(
                {
                    "token_len": meta[f"sum_assistant_{side}_tokens"],
                    "header_count": meta[f"header_count_{side}"],
                    "list_count": meta[f"list_count_{side}"],
                    "bold_count": meta[f"bold_count_{side}"],
                }
            )
            for side in ("a", "b")
        )  # type: ignore[return-value]
    except (KeyError, TypeError, AttributeError) as ex:
        raise ValueError(f"{where}: malformed conv_metadata ({type(ex).__name__}: {ex})") from None
