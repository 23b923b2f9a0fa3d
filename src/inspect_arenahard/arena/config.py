"""``tournament.yaml``: who plays, on which questions, judged how.

::

    models: [openai/gpt-4.1, anthropic/claude-sonnet-4-0, ...]
    questions: questions.jsonl        # examiner output (or its log); relative to this file
    prior: {openai/gpt-4.1: 90.2, ...}  # or a best-first list, or a leaderboard CSV/JSONL file
    battles_per_pair: 40              # questions per pairing, spread over domains (paper: 5 × 8)
    committee_size: 5                 # current top-k, players excluded
    folder: tournament/               # state, logs, ratings (default: next to this file, named after it)

Every other key is optional (see ``TournamentConfig``); unknown keys and wrong types are
errors naming the file and key.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from inspect_arenahard.report.score_table_files import load_score_table
from inspect_arenahard.stats.estimates import CIMethod
from inspect_arenahard.stats.score_tables import align_models
from inspect_arenahard.typed_options import from_mapping

CONFIG_FILE = "tournament.yaml"


@dataclass(frozen=True)
class TournamentConfig:
    """A tournament's YAML settings; ``state.json`` keeps a copy so a resume plays by them."""

    models: list[str]
    questions: str
    prior: dict[str, float] = field(default_factory=dict)
    """Prior score per model, higher is better (only the order is used)."""
    battles_per_pair: int = 40
    rounds: int | None = None
    """Swiss rounds (default ⌈log2 n⌉)."""
    committee_size: int = 5
    committee_rounds: int = 1
    exclude_families: bool = False
    families: dict[str, str] = field(default_factory=dict)
    """Model → family for ``exclude_families`` (default: the provider prefix)."""
    reference: bool = True
    """The strongest model not playing answers reasoning/math/coding questions for the judges."""
    prior_ties: int = 1
    ci_method: CIMethod = "sandwich"
    """Rating intervals: ``sandwich`` (clustered by question, the default) or ``official``
    (the row bootstrap of ``bootstrap_rounds`` rounds)."""
    bootstrap_rounds: int = 100
    seed: int = 0
    anchor: str | None = None
    """Model at Elo 1000 (default: the prior's best)."""
    task_args: dict[str, Any] = field(default_factory=dict)
    """Extra ``autoarena_battle`` arguments (e.g. ``judge_max_tokens``)."""
    eval_args: dict[str, Any] = field(default_factory=dict)
    """Extra ``inspect_ai.eval`` arguments (e.g. ``max_connections``)."""

    def prior_order(self, models: list[str] | None = None) -> list[str]:
        """``models`` (default all) best first by prior score, ties in listed order."""
        chosen = self.models if models is None else models
        return sorted(chosen, key=lambda m: -self.prior[m]) if self.prior else list(chosen)

    def record(self) -> dict[str, Any]:
        """JSON-safe form saved in ``state.json`` (``State.from_record`` reads it back)."""
        return dataclasses.asdict(self)


_MAPPINGS = ("prior", "families", "task_args", "eval_args")
_RESERVED_TASK_ARGS = ("questions", "battles", "seed", "committee_rounds")


def load_config(path: str | Path) -> tuple[TournamentConfig, Path]:
    """(config, state folder) from a YAML file; relative paths are relative to the file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"tournament config not found: {path}")
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: expected a mapping of settings")
    folder = loaded.pop("folder", None)
    config = parse_config(loaded, str(path), path.parent)
    return config, (path.parent / folder if folder else path.parent / path.stem)


def parse_config(raw: dict[str, Any], where: str, base: Path) -> TournamentConfig:
    """Validate a config mapping (from the YAML file or the copy in the state folder)."""
    raw = dict(raw)
    extra = {k: raw.pop(k) for k in _MAPPINGS if k in raw}
    for key in ("models", "questions"):
        if key not in raw:
            raise ValueError(f"{where}: missing key {key!r}")
    scalars = from_mapping(TournamentConfig, raw, where)
    models = [str(m) for m in scalars.models]
    if len(set(models)) != len(models):
        raise ValueError(
            f"{where}.models: listed twice: {', '.join(sorted({m for m in models if models.count(m) > 1}))}"
        )
    if len(models) < 2:
        raise ValueError(f"{where}.models: a tournament needs at least 2 models")
    for key in ("families", "task_args", "eval_args"):
        if not isinstance(extra.get(key, {}), dict):
            raise ValueError(f"{where}.{key}: expected a mapping")
    reserved = sorted(set(extra.get("task_args", {})) & set(_RESERVED_TASK_ARGS))
    if reserved:
        raise ValueError(f"{where}.task_args: {reserved[0]!r} is set by the tournament itself")
    for key, minimum in (
        ("battles_per_pair", 1),
        ("committee_size", 2),
        ("committee_rounds", 0),
        ("prior_ties", 0),
        ("bootstrap_rounds", 1),
    ):
        if getattr(scalars, key) < minimum:
            raise ValueError(
                f"{where}.{key}: must be at least {minimum}, got {getattr(scalars, key)}"
            )
    if scalars.anchor is not None and scalars.anchor not in models:
        raise ValueError(f"{where}.anchor: {scalars.anchor!r} is not one of the models")
    questions = base / scalars.questions
    if not questions.is_file():
        raise FileNotFoundError(f"{where}.questions: file not found: {questions}")
    return dataclasses.replace(
        scalars,
        models=models,
        questions=str(questions.resolve()),
        prior=load_prior(extra.get("prior"), models, f"{where}.prior", base),
        families={str(k): str(v) for k, v in extra.get("families", {}).items()},
        task_args=dict(extra.get("task_args", {})),
        eval_args=dict(extra.get("eval_args", {})),
    )


def load_prior(value: Any, models: list[str], where: str, base: Path) -> dict[str, float]:
    """Prior scores from a mapping, a best-first list, or a score-table file (CSV/JSONL)."""
    if value is None:
        raise ValueError(
            f"{where}: missing; give a mapping {{model: score}}, a best-first list, or a leaderboard file"
        )
    if isinstance(value, list):
        unknown = [m for m in value if m not in models]
        if unknown:
            raise ValueError(f"{where}: {unknown[0]!r} is not one of the models")
        scores = {str(m): float(len(value) - i) for i, m in enumerate(value)}
    elif isinstance(value, dict):
        scores = {}
        for model, score in value.items():
            if isinstance(score, bool) or not isinstance(score, (int, float)):
                raise ValueError(f"{where}.{model}: expected a number, got {score!r}")
            scores[str(model)] = float(score)
    elif isinstance(value, str):
        table = load_score_table(base / value)
        alignment = align_models(models, table.models)
        scores = {mine: table.entries[theirs].score for mine, theirs in alignment.pairs}
    else:
        raise ValueError(
            f"{where}: expected a mapping, a list or a file name, got {type(value).__name__}"
        )
    missing = [m for m in models if m not in scores]
    if missing:
        raise ValueError(f"{where}: no prior for {', '.join(missing)}")
    return {m: scores[m] for m in models}
