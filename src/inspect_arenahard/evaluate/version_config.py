"""The settings of each benchmark version, read from ``scorers/configs`` into typed objects.

``arena-hard-v0.1.yaml``, ``arena-hard-v2.0.yaml`` and ``custom.yaml`` say which baseline each
question meets, which judge decides and how, and how the scores are computed. Every setting and
its default is stated once, here; the task, the probes, the importer, the hub download and the
``pairwise_judge`` defaults read these objects. An unknown key, a value of the wrong type or an
empty value where one is needed is one error naming the file and the key.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import yaml

from inspect_arenahard.errors import UserError
from inspect_arenahard.judging.templates import data_dir
from inspect_arenahard.stats.verdict_points import STRONG_WEIGHT
from inspect_arenahard.typed_options import DataclassInstance, from_mapping

T = TypeVar("T", bound=DataclassInstance)


@dataclass(frozen=True)
class Baselines:
    """Whose stored answers a question is compared with."""

    default: str | None = None
    """Baseline of every category without its own (none for ``custom``: pass one)."""
    by_category: dict[str, str] = field(default_factory=dict)
    """Category → baseline, for categories with their own (v2.0)."""

    def for_category(self, category: str | None) -> str | None:
        """The baseline of ``category``."""
        return self.by_category.get(category or "", self.default)

    def models(self) -> list[str]:
        """Every baseline named, the default first (the answer files a run may need)."""
        return [m for m in [self.default, *self.by_category.values()] if m]


@dataclass(frozen=True)
class JudgeDefaults:
    """The judge a version prescribes; the task's ``judge*`` arguments override it."""

    model: str = "openai/gpt-4.1"
    """Judge when the ``judge`` role is unbound."""
    temperature: float = 0.0
    max_tokens: int = 16000
    template: str = "judge_system"
    """System prompt in ``scorers/templates``."""
    template_by_category: dict[str, str] = field(default_factory=dict)
    """Category → system prompt, for categories with their own (v2.0 creative writing)."""
    single_brackets: bool = False
    """Accept ``[A>B]`` when no ``[[A>B]]`` is present (v2.0)."""


@dataclass(frozen=True)
class VersionConfig:
    """One benchmark version's settings (a file in ``scorers/configs``)."""

    version: str
    hub_folder: str | None = None
    """Folder of the official release in the hub dataset (none for ``custom``)."""
    baseline: Baselines = field(default_factory=Baselines)
    judge: JudgeDefaults = field(default_factory=JudgeDefaults)
    strong_weight: int = STRONG_WEIGHT
    """Weight of a significant (``>>``) verdict."""
    token_encoding: str = "cl100k_base"
    """Tokenizer of the answers' style features, as this version's answer metadata stores them."""
    method: str = "bt"
    """How the version's official code turns battles into scores (``bt`` or ``mean``); recorded
    in the task's metadata."""


def version_config(version: str) -> VersionConfig:
    """The shipped settings of ``version`` (``v0.1``, ``v2.0`` or ``custom``)."""
    name = "custom" if version == "custom" else f"arena-hard-{version}"
    path = data_dir("scorers") / "configs" / f"{name}.yaml"
    config = load_version_config(path)
    if config.version != version:
        raise UserError(f"{path}.version: {config.version!r}, expected {version!r}")
    return config


@lru_cache(maxsize=None)
def load_version_config(path: Path) -> VersionConfig:
    """A version's settings from a YAML file."""
    if not path.is_file():
        raise FileNotFoundError(f"version configuration not found at {path}")
    return parse_version_config(yaml.safe_load(path.read_text(encoding="utf-8")), str(path))


def parse_version_config(raw: Any, where: str) -> VersionConfig:
    """Validate a version's settings (a parsed YAML mapping); errors name ``where`` and the key."""
    if not isinstance(raw, dict):
        raise UserError(f"{where}: expected a mapping at the top level")
    if "version" not in raw:
        raise UserError(f"{where}: missing key 'version'")
    sections = ("baseline", "judge")
    return dataclasses.replace(
        _typed(VersionConfig, {k: v for k, v in raw.items() if k not in sections}, where),
        baseline=_typed(Baselines, raw.get("baseline"), f"{where}.baseline"),
        judge=_typed(JudgeDefaults, raw.get("judge"), f"{where}.judge"),
    )


def _typed(cls: type[T], raw: Any, where: str) -> T:
    """``cls`` from a mapping (``None``: all defaults). Scalars are checked by ``from_mapping``;
    ``None`` is refused where the field is not optional, and mapping fields must map names to
    names."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise UserError(f"{where}: expected a mapping, got {raw!r}")
    hints = typing.get_type_hints(cls)
    maps = {name for name, hint in hints.items() if typing.get_origin(hint) is dict}
    for name, value in raw.items():
        if value is None and name in hints and type(None) not in typing.get_args(hints[name]):
            raise UserError(f"{where}.{name}: needs a value")
    try:
        scalars = from_mapping(cls, {k: v for k, v in raw.items() if k not in maps}, where)
    except ValueError as ex:
        raise UserError(str(ex)) from None
    return dataclasses.replace(
        scalars, **{name: _names(raw[name], f"{where}.{name}") for name in maps if name in raw}
    )


def _names(value: Any, where: str) -> dict[str, str]:
    """A name → name mapping (category → model or template)."""
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise UserError(f"{where}: expected a mapping of names to names, got {value!r}")
    return dict(value)
