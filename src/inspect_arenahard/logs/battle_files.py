"""Battle files: Chatbot-Arena-style JSONL rows (``question_id, model_a, model_b, winner``) ranked
like judge logs (``arenahard leaderboard --battles FILE``).

Only the reading lives here; what a row means is ``inspect_arenahard.stats.battles.check_battle_row``
and ``from_battle_columns``. A local file is read by
pyarrow's JSON reader into columns and checked a column at a time (a million battles in about the
time pyarrow takes to parse them); a bad row is then named by re-reading that one line with the
row rule. Files pyarrow cannot read (a field whose JSON type changes between rows, a store URL,
invalid JSON) go through the row-by-row reader, which names the first bad line.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from inspect_arenahard.files.bulk_reads import full_collections_paused
from inspect_arenahard.files.jsonl import read_jsonl, record_at
from inspect_arenahard.files.storage import is_remote
from inspect_arenahard.stats.battles import (
    STYLE_COLUMNS,
    WINNER_POINTS,
    BattleColumns,
    Battles,
    check_battle_row,
    first_invalid,
    from_battle_columns,
    from_battle_rows,
)
from inspect_arenahard.stats.name_codes import SortedNameCodes
from inspect_arenahard.stats.verdict_points import STRONG_WEIGHT

if TYPE_CHECKING:
    import pyarrow as pa

BLOCK_BYTES = 1 << 24
"""pyarrow's JSON block: a row longer than this is read by the row reader."""
PACKED_SUFFIXES = (".gz", ".bz2", ".lz4", ".zst")
"""File names pyarrow's reader decompresses (it reads those by name; any other file is
memory-mapped)."""
STYLE_FIELDS = ("sum_assistant_{}_tokens", "header_count_{}", "list_count_{}", "bold_count_{}")
"""``conv_metadata`` fields of one side, in ``STYLE_COLUMNS`` order (all but tokens are counts
by kind, summed)."""
assert len(STYLE_FIELDS) == len(STYLE_COLUMNS)


def read_battles_jsonl(path: str | Path, strong_weight: int = STRONG_WEIGHT) -> Battles:
    """Battles from a JSONL file (a run of ``strong_weight`` identical rows is one strong game);
    a bad line is one ``ValueError`` naming the file, line and field."""
    columns = read_battle_columns(path)
    if columns is not None:
        bad = first_invalid(columns)
        if bad is None:
            return from_battle_columns(columns, str(path), strong_weight)
        lineno, row = record_at(path, bad)
        if isinstance(row, dict):
            check_battle_row(row, f"{path}:{lineno}")  # raises, naming the field
        # a row the columns refuse but the row rule takes (an explicit null): read row by row
    return read_battle_rows(path, strong_weight)


def read_battles_soon(path: str | Path, strong_weight: int = STRONG_WEIGHT) -> Future[Battles]:
    """``read_battles_jsonl`` started on its own thread; ``result()`` gives its battles or raises
    its error. pyarrow parses without the GIL, so a caller that has other work meanwhile (the
    command imports the fitting code) gets both done in the time of the longer."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="battle-file")
    try:
        return pool.submit(read_battles_jsonl, path, strong_weight)
    finally:
        pool.shutdown(wait=False)


def read_battle_rows(path: str | Path, strong_weight: int = STRONG_WEIGHT) -> Battles:
    """The row-by-row reader: any file ``read_jsonl`` reads, its exact error messages."""
    with full_collections_paused():  # a row a battle: a million kept tuples
        return from_battle_rows(
            ((f"{path}:{lineno}", row) for lineno, row in read_jsonl(path)),
            str(path),
            strong_weight,
        )


def read_battle_columns(path: str | Path) -> BattleColumns | None:
    """A local battle file as columns, or None where pyarrow cannot read it (then the row
    reader does, and says what is wrong) or a field has a JSON type the columns do not hold."""
    if is_remote(path) or not Path(path).is_file():
        return None  # store URLs, folders and missing files: the row reader's messages
    import pyarrow as pa
    import pyarrow.json as pa_json

    mapped: pa.MemoryMappedFile | None = None
    try:
        # a file in the page cache is parsed where it lies, not first copied into fresh buffers
        # (on a large file the kernel's time for those varies from run to run, up to the parse's)
        mapped = None if str(path).endswith(PACKED_SUFFIXES) else pa.memory_map(str(path))
        table = pa_json.read_json(
            str(path) if mapped is None else mapped,
            read_options=pa_json.ReadOptions(block_size=BLOCK_BYTES),
        )
    except (pa.ArrowException, OSError):  # (pyarrow's I/O errors, a bad gzip stream among them)
        return None
    finally:
        if mapped is not None:
            mapped.close()
    rows = table.num_rows
    try:
        # the model and winner codes (pyarrow's hashing, numpy: no GIL) on a second core while
        # this thread makes the question ids' Python strings (GIL held throughout)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="battle-codes") as pool:
            codes = pool.submit(_battle_codes, table)
            question_id = _column(table, "question_id")
            question_ids = _objects(question_id, rows)
            (models, a, b), winner = codes.result()
        return BattleColumns(
            models=models, a=a, b=b, winner=winner,
            question_id=question_ids,
            category=_labels(_column(table, "category"), rows),
            judge=_labels(_column(table, "judge"), rows),
            **_style(_column(table, "conv_metadata"), rows),
            question_missing=np.ones(rows, dtype=bool) if question_id is None
            else ~_valid(question_id),
            question_codes=_question_codes(question_id),
        )  # fmt: skip
    except _Unsupported:
        return None


class _Unsupported(Exception):
    """A column of a JSON type the columns do not hold (numbers as model names, ...)."""


def _column(table: pa.Table, name: str) -> pa.Array | None:
    """One column as a single array; None when no row has the field."""
    if name not in table.column_names:
        return None
    column = table.column(name).combine_chunks()
    return None if column.null_count == len(column) else column


def _codes(
    column: pa.Array | None, rows: int, names: list[str] | None = None
) -> tuple[np.ndarray, list[str]]:
    """Per row, the index of its text in ``names`` (by default the texts present, sorted), or
    -1 (no value, or one not in ``names``); and the names."""
    if column is None:
        return np.full(rows, -1), names or []
    present, indices = _encoded(_text(column))
    names = sorted(present) if names is None else names
    return _lookup(present, indices, names), names


ModelCodes = tuple[tuple[str, ...], np.ndarray, np.ndarray]
"""The model names (sorted) and each row's ``model_a`` and ``model_b`` as indices into them."""


def _battle_codes(table: pa.Table) -> tuple[ModelCodes, np.ndarray]:
    """``_model_codes`` and each row's winner as an index into ``WINNER_POINTS``' keys."""
    winner = _codes(_column(table, "winner"), table.num_rows, list(WINNER_POINTS))[0]
    return _model_codes(table), winner


def _model_codes(table: pa.Table) -> ModelCodes:
    """The model names (sorted) and each row's ``model_a`` and ``model_b`` as indices into them
    (-1 where absent); each column is encoded once."""
    rows = table.num_rows
    encoded = [
        _encoded(_text(column)) if (column := _column(table, side)) is not None else None
        for side in ("model_a", "model_b")
    ]
    names = sorted({name for side in encoded if side is not None for name in side[0]})
    a, b = (np.full(rows, -1) if side is None else _lookup(*side, names) for side in encoded)
    return tuple(names), a, b


def _question_codes(column: pa.Array | None) -> SortedNameCodes | None:
    """Each row's question id as its index among the sorted ids, as ``stats.name_codes`` orders
    them (UTF-8 bytes sort as the code points Python compares), made on first use by pyarrow's
    hashing and sort; None for ids that are not all texts (the ranking then codes them)."""
    import pyarrow as pa

    if column is None or column.null_count or not pa.types.is_string(column.type):
        return None
    return SortedNameCodes(lambda: _sorted_name_codes(column))


def _sorted_name_codes(column: pa.Array) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(column)
    order = _fixed(pc.sort_indices(encoded.dictionary), pa.int64())
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[_fixed(encoded.indices, pa.int64())]


def _text(column: pa.Array) -> pa.Array:
    """The column, if it holds texts."""
    import pyarrow as pa

    if not pa.types.is_string(column.type):
        raise _Unsupported
    return column


def _encoded(column: pa.Array) -> tuple[list[Any], np.ndarray]:
    """A column's distinct values and, per row, the index of its value among them
    (``len(values)`` where the row has none)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(column)
    present = encoded.dictionary.to_pylist()
    indices = np.where(_valid(encoded.indices), _fixed(encoded.indices, pa.int64()), len(present))
    return present, indices


def _lookup(present: list[str], indices: np.ndarray, names: list[str]) -> np.ndarray:
    """``_encoded``'s indices as indices into ``names`` (-1: no text, or one not in ``names``)."""
    where = {name: i for i, name in enumerate(names)}
    return np.array([where.get(name, -1) for name in present] + [-1], dtype=np.int64)[indices]


def _objects(column: pa.Array | None, rows: int, text: bool = False) -> np.ndarray:
    """A column as Python values (None where absent); ``text``: only strings are held."""
    import pyarrow as pa

    if column is None:
        return np.full(rows, None, dtype=object)
    if text and not pa.types.is_string(column.type):
        raise _Unsupported
    if not (pa.types.is_string(column.type) or pa.types.is_integer(column.type)):
        raise _Unsupported  # floats, lists, objects: kept as the row reader keeps them
    if pa.types.is_integer(column.type) and not column.null_count:
        values = np.empty(len(column), dtype=object)
        values[:] = _fixed(column, pa.int64())
        return values
    if _mostly_distinct(column):  # question ids: hashing them costs 3x making the strings
        return np.fromiter(column.to_pylist(), dtype=object, count=len(column))
    # categories, judges: each distinct value made a Python object once
    present, indices = _encoded(column)
    return np.array([*present, None], dtype=object)[indices]


def _labels(column: pa.Array | None, rows: int) -> np.ndarray | None:
    """A text column (categories, judges) as Python values; None when no row has the field."""
    return None if column is None else _objects(column, rows, text=True)


DISTINCT_PROBE = 1024
"""Rows a column's first values are looked at to tell ids (mostly distinct) from labels."""


def _mostly_distinct(column: pa.Array) -> bool:
    """Whether most of the column's first ``DISTINCT_PROBE`` values differ (ids, not labels)."""
    head = column.slice(0, DISTINCT_PROBE)
    return len(head.unique()) > len(head) // 2


def _style(meta: pa.Array | None, rows: int) -> dict[str, Any]:
    """``style_a``/``style_b`` from ``conv_metadata`` (None when no row has it) and the rows whose
    metadata lacks a count."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if meta is None:
        return {"style_a": None, "style_b": None, "malformed": np.zeros(rows, dtype=bool)}
    if not pa.types.is_struct(meta.type):
        raise _Unsupported
    present = _valid(meta)
    malformed = np.zeros(len(meta), dtype=bool)
    sides = {}
    for side in ("a", "b"):
        style = np.full((len(meta), len(STYLE_FIELDS)), np.nan)
        for j, template in enumerate(STYLE_FIELDS):
            name = template.format(side)
            if meta.type.get_field_index(name) < 0:
                malformed |= present
                continue
            field = pc.struct_field(meta, name)
            counts = _numbers(field) if j == 0 else _sum_of_counts(field)
            malformed |= present & ~_valid(field)
            style[:, j] = counts
        style[~present] = np.nan
        sides[f"style_{side}"] = style
    return {**sides, "malformed": malformed}


def _numbers(field: pa.Array) -> np.ndarray:
    import pyarrow as pa

    if not (pa.types.is_integer(field.type) or pa.types.is_floating(field.type)):
        raise _Unsupported
    return np.where(_valid(field), _fixed(field, pa.float64()), np.nan)


def _sum_of_counts(field: pa.Array) -> np.ndarray:
    """Per row, the sum of a ``{kind: count}`` object's counts."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_struct(field.type):
        raise _Unsupported
    total = np.zeros(len(field))
    for k in range(field.type.num_fields):
        total += np.nan_to_num(_numbers(pc.struct_field(field, k)))
    return total


# pyarrow's own conversions to numpy (``to_numpy``, scalars) import pandas, a third of a second
# of a command that reads a million battles in one second: the two below read the buffers.


def _valid(column: pa.Array) -> np.ndarray:
    """Per row, whether it holds a value (the validity bitmap)."""
    bitmap = column.buffers()[0]
    if bitmap is None:
        return np.ones(len(column), dtype=bool)
    bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), bitorder="little")
    return bits[column.offset : column.offset + len(column)].astype(bool)


def _fixed(column: pa.Array, to: pa.DataType) -> np.ndarray:
    """A numeric column cast to ``to`` (int64 or float64), as numpy; whatever lies under a null."""
    cast = column.cast(to)
    values = np.frombuffer(cast.buffers()[1], dtype=to.to_pandas_dtype())
    return values[cast.offset : cast.offset + len(cast)]
