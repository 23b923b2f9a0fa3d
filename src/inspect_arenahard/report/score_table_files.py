"""Reading score tables (benchmark or reference) from files.

Two on-disk formats are read:

* bootstrap JSONL, one model a line: ``{model, score, lower, upper, results: [bootstrap
  scores]}`` (the Arena-Hard paper notebook's format; ``results`` or ``lower``/``upper`` may be
  missing, not both);
* leaderboard CSV with ``model``, ``rating`` (or ``score``), ``rating_q025``/``rating_q975`` (or
  ``lower``/``upper``) and optionally ``variance`` (Chatbot Arena exports, Arena-Hard
  leaderboards).

Every problem is reported as one ``ValueError`` naming the file, the line or row and the field.
Matching names across tables is ``inspect_arenahard.stats.score_tables``.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

import numpy as np

from inspect_arenahard.files.jsonl import read_json, read_jsonl
from inspect_arenahard.stats.score_tables import ModelEntry, ScoreTable

_CSV_SCORE = ("rating", "score")
_CSV_LOWER = ("rating_q025", "lower")
_CSV_UPPER = ("rating_q975", "upper")


def _number(value: Any, where: str, name: str, required: bool = True) -> float | None:
    if value is None or value == "":
        if required:
            raise ValueError(f"{where}: field '{name}' is missing")
        return None
    if isinstance(value, bool):
        raise ValueError(f"{where}: field '{name}' must be a number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: field '{name}' must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{where}: field '{name}' must be finite, got {value!r}")
    return number


def _entry(
    where: str,
    model: Any,
    score: Any,
    lower: Any,
    upper: Any,
    samples: Any,
    variance: Any,
    names: tuple[str, str, str, str],
) -> ModelEntry:
    """Validated entry; ``names`` are the source's field names (score, lower, upper, variance)."""
    if not isinstance(model, str) or not model.strip():
        raise ValueError(f"{where}: field 'model' must be a non-empty string, got {model!r}")
    lo = _number(lower, where, names[1], required=False)
    hi = _number(upper, where, names[2], required=False)
    if (lo is None) != (hi is None):
        raise ValueError(f"{where}: fields '{names[1]}' and '{names[2]}' must be given together")
    if lo is not None and hi is not None and lo > hi:
        raise ValueError(f"{where}: '{names[1]}' ({lo}) is above '{names[2]}' ({hi})")
    boot = None
    if samples is not None:
        if not isinstance(samples, list) or not samples:
            raise ValueError(f"{where}: field 'results' must be a non-empty list of numbers")
        boot = np.array(
            [_number(s, where, f"results[{k}]") for k, s in enumerate(samples)], dtype=float
        )
    var = _number(variance, where, names[3], required=False)
    if var is not None and var < 0:
        raise ValueError(f"{where}: field '{names[3]}' must be >= 0, got {var}")
    if boot is None and lo is None:
        raise ValueError(
            f"{where}: model {model!r} has neither 'results' nor '{names[1]}'/'{names[2]}'"
        )
    return ModelEntry(model, _number(score, where, names[0]), lo, hi, boot, var)  # type: ignore[arg-type]


def _add(entries: dict[str, ModelEntry], entry: ModelEntry, where: str) -> None:
    if entry.model in entries:
        raise ValueError(f"{where}: model {entry.model!r} appears twice")
    entries[entry.model] = entry


def _require_file(path: Path) -> None:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")


def load_bootstrap_jsonl(path: str | Path) -> ScoreTable:
    """Read a bootstrap JSONL file (see module docstring)."""
    path = Path(path)
    _require_file(path)
    entries: dict[str, ModelEntry] = {}
    for lineno, record in read_jsonl(path):
        where = f"{path}:{lineno}"
        entry = _entry(
            where,
            record.get("model"),
            record.get("score"),
            record.get("lower"),
            record.get("upper"),
            record.get("results"),
            record.get("variance"),
            ("score", "lower", "upper", "variance"),
        )
        _add(entries, entry, where)
    if not entries:
        raise ValueError(f"{path}: no models found")
    return ScoreTable(str(path), entries)


def _optional_column(header: list[str], choices: tuple[str, ...]) -> str | None:
    return next((name for name in choices if name in header), None)


def _column(header: list[str], choices: tuple[str, ...], path: Path) -> str:
    name = _optional_column(header, choices)
    if name is None:
        raise ValueError(
            f"{path}: missing column {' or '.join(repr(c) for c in choices)}; columns are {header}"
        )
    return name


def load_leaderboard_csv(path: str | Path) -> ScoreTable:
    """Read a leaderboard CSV (see module docstring)."""
    path = Path(path)
    _require_file(path)
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        header = list(reader.fieldnames or [])
        model_col = _column(header, ("model",), path)
        score_col = _column(header, _CSV_SCORE, path)
        lower_col = _column(header, _CSV_LOWER, path)
        upper_col = _column(header, _CSV_UPPER, path)
        var_col = _optional_column(header, ("variance",))
        entries: dict[str, ModelEntry] = {}
        for rowno, row in enumerate(reader, start=2):
            where = f"{path}:{rowno}"
            entry = _entry(
                where,
                row[model_col],
                row[score_col],
                row[lower_col],
                row[upper_col],
                None,
                row[var_col] if var_col else None,
                (score_col, lower_col, upper_col, var_col or "variance"),
            )
            _add(entries, entry, where)
    if not entries:
        raise ValueError(f"{path}: no models found")
    return ScoreTable(str(path), entries)


def load_score_table(path: str | Path) -> ScoreTable:
    """Bootstrap JSONL (``.jsonl``/``.json``) or leaderboard CSV (``.csv``), by file suffix."""
    suffix = Path(path).suffix.lower()
    if suffix in (".jsonl", ".json"):
        return load_bootstrap_jsonl(path)
    if suffix == ".csv":
        return load_leaderboard_csv(path)
    raise ValueError(
        f"{path}: unknown score-table format {suffix!r}; expected .jsonl (bootstrap) or .csv (leaderboard)"
    )


def load_name_map(path: str | Path) -> dict[str, str]:
    """A JSON object of model-name aliases ``{name: other_name}`` (direction does not matter)."""
    path = Path(path)
    _require_file(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise ValueError(
            f"{path}: expected a JSON object mapping model names, got {type(data).__name__}"
        )
    for key, value in data.items():
        if not isinstance(value, str) or not value.strip():
            raise ValueError(
                f"{path}: value for {key!r} must be a non-empty model name, got {value!r}"
            )
    return dict(data)
