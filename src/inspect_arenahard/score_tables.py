"""Loading score tables (benchmark or reference) and matching their model names.

Two on-disk formats are read:

* bootstrap JSONL, one model a line: ``{model, score, lower, upper, results: [bootstrap
  scores]}`` (the Arena-Hard paper notebook's format; ``results`` or ``lower``/``upper`` may be
  missing, not both);
* leaderboard CSV with ``model``, ``rating`` (or ``score``), ``rating_q025``/``rating_q975`` (or
  ``lower``/``upper``) and optionally ``variance`` (Chatbot Arena exports, Arena-Hard
  leaderboards).

Every problem is reported as one ``ValueError`` naming the file, the line or row and the field.
Model names that cannot be matched are returned in lists, never dropped silently.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from inspect_arenahard.jsonl import read_json, read_jsonl
from inspect_arenahard.stats.bootstrap import percentile_interval
from inspect_arenahard.stats.quality import DEFAULT_CI, IntervalScores, variance_from_interval

_CSV_SCORE = ("rating", "score")
_CSV_LOWER = ("rating_q025", "lower")
_CSV_UPPER = ("rating_q975", "upper")


@dataclass(frozen=True)
class ModelEntry:
    """One model's score with whatever uncertainty information the source had; ``ci`` is the
    confidence level of ``lower``/``upper`` (files hold 95% intervals)."""

    model: str
    score: float
    lower: float | None = None
    upper: float | None = None
    samples: np.ndarray | None = None
    variance: float | None = None
    ci: float = DEFAULT_CI


@dataclass(frozen=True)
class ScoreTable:
    """Scores of several models from one source (a file, or logs aggregated on the fly)."""

    source: str
    entries: dict[str, ModelEntry]

    @property
    def models(self) -> list[str]:
        """Model names in the table's order."""
        return list(self.entries)


def leaderboard_scores(source: str, table: Any) -> ScoreTable:
    """A leaderboard computed from logs (``stats.leaderboard.Leaderboard``) as a score table,
    with its official bootstrap samples, or the prompt-clustered variance of its scores."""
    return ScoreTable(
        source,
        {
            r.model: ModelEntry(
                r.model,
                r.score,
                r.lower,
                r.upper,
                samples=table.bootstrap.get(r.model),
                variance=table.score_covariance(r.model, r.model) if not table.bootstrap else None,
                ci=table.ci,
            )
            for r in table.rows
        },
    )


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


@dataclass(frozen=True)
class Alignment:
    """Which benchmark model is which reference model, and what matched nothing."""

    pairs: list[tuple[str, str]]
    only_benchmark: list[str]
    only_reference: list[str]
    not_in_map: list[tuple[str, str]] = field(default_factory=list)
    map_direction: str | None = None
    unused_map_entries: list[str] = field(default_factory=list)

    @property
    def renamed(self) -> list[tuple[str, str]]:
        """(benchmark name, reference name) of the pairs matched under different names."""
        return [(b, r) for b, r in self.pairs if b != r]


def _fold_index(names: Iterable[str]) -> dict[str, str]:
    """casefolded name → name, for names whose casefold is unique."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(name.casefold(), []).append(name)
    return {fold: group[0] for fold, group in groups.items() if len(group) == 1}


def _lookup(name: str, exact: set[str], folded: dict[str, str]) -> str | None:
    return name if name in exact else folded.get(name.casefold())


def _orient(name_map: Mapping[str, str], benchmark: list[str]) -> tuple[dict[str, str], str]:
    """The map as benchmark→reference: keys are taken as benchmark names unless the values
    name more benchmark models (a reference→benchmark file such as the notebook's)."""
    bench = _fold_index(benchmark)
    keys_hit = sum(k.casefold() in bench for k in name_map)
    values_hit = sum(v.casefold() in bench for v in name_map.values())
    if values_hit > keys_hit:
        flipped: dict[str, str] = {}
        for key, value in name_map.items():
            if value.casefold() in flipped:
                raise ValueError(
                    f"name map sends both {flipped[value.casefold()]!r} and {key!r} to {value!r}"
                )
            flipped[value.casefold()] = key
        return flipped, "reference->benchmark"
    return {k.casefold(): v for k, v in name_map.items()}, "benchmark->reference"


def align_models(
    benchmark: Iterable[str],
    reference: Iterable[str],
    name_map: Mapping[str, str] | None = None,
    only_mapped: bool = False,
) -> Alignment:
    """Match benchmark names to reference names.

    A name in the alias map is translated first (the map's direction is detected: whichever of
    its keys or values name more benchmark models are taken as benchmark names), then matched
    exactly, then case-insensitively. With ``only_mapped`` the comparison is restricted to
    models named in the map (the paper notebook's shared model set); matched pairs outside it
    are listed in ``not_in_map``.
    """
    benchmark, reference = list(benchmark), list(reference)
    exact, folded = set(reference), _fold_index(reference)
    directed, direction = _orient(name_map, benchmark) if name_map else ({}, None)
    pairs: list[tuple[str, str]] = []
    only_benchmark: list[str] = []
    not_in_map: list[tuple[str, str]] = []
    claimed: dict[str, str] = {}
    used: set[str] = set()
    for name in benchmark:
        mapped = directed.get(name.casefold())
        match = _lookup(mapped if mapped is not None else name, exact, folded)
        if match is None:
            only_benchmark.append(name)
            continue
        if match in claimed:
            raise ValueError(
                f"benchmark models {claimed[match]!r} and {name!r} both match reference model {match!r}"
            )
        claimed[match] = name
        if mapped is not None:
            used.add(name.casefold())
        elif only_mapped:
            not_in_map.append((name, match))
            continue
        pairs.append((name, match))
    only_reference = [name for name in reference if name not in claimed]
    unused = [f"{k} -> {v}" for k, v in directed.items() if k not in used]
    return Alignment(pairs, only_benchmark, only_reference, not_in_map, direction, unused)


def interval_scores(
    table: ScoreTable, models: Iterable[str], ci: float = DEFAULT_CI
) -> IntervalScores:
    """Arrays for ``benchmark_quality``: intervals are bootstrap percentiles at ``ci`` when the
    model has samples, else the given lower/upper (only if they are ``ci`` intervals);
    mean/variance come from the samples, else the score and the given variance or the normal
    variance implied by the interval."""
    point, lower, upper, mean, var = [], [], [], [], []
    for model in models:
        entry = table.entries[model]
        if entry.samples is not None:
            lo, hi = (float(x) for x in percentile_interval(entry.samples, ci))
            m, v = float(np.mean(entry.samples)), float(np.var(entry.samples))
        else:
            if not math.isclose(ci, entry.ci):
                raise ValueError(
                    f"{table.source}: model {model!r} has no bootstrap 'results', so only its given "
                    f"{entry.ci:.0%} interval is known; a {ci:.0%} interval needs bootstrap samples"
                )
            lo, hi = entry.lower, entry.upper  # type: ignore[assignment]
            m = entry.score
            v = (
                entry.variance
                if entry.variance is not None
                else variance_from_interval(lo, hi, entry.ci)
            )
        point.append(entry.score)
        lower.append(lo)
        upper.append(hi)
        mean.append(m)
        var.append(v)
    return IntervalScores(*(np.array(a, dtype=float) for a in (point, lower, upper, mean, var)))
