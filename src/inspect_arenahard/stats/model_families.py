"""Which family a model belongs to (``openai/gpt-4o`` and ``gpt-4o-mini`` → ``openai``), from the
family map shipped as data beside this module (``model_families.json``): self-bias analysis and
self-judged rows read the same map, and a user extends it without touching code."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

FAMILY_FILE = Path(__file__).with_name("model_families.json")


@dataclass(frozen=True)
class FamilyMap:
    """Name prefixes per family (first match wins) and the family a provider prefix implies."""

    prefixes: tuple[tuple[str, tuple[str, ...]], ...]
    providers: Mapping[str, str]


@cache
def shipped_families() -> FamilyMap:
    """The family map shipped with the package."""
    data = json.loads(FAMILY_FILE.read_text(encoding="utf-8"))
    return FamilyMap(
        tuple((family, tuple(p)) for family, p in data["prefixes"].items()),
        dict(data["providers"]),
    )


def model_family(name: str, overrides: Mapping[str, str] | None = None) -> str:
    """Vendor family of a model name (``openai/gpt-4o`` and ``gpt-4o`` → ``openai``); an
    override map (exact name → family) wins; unknown names are their own family."""
    if overrides and name in overrides:
        return overrides[name]
    families = shipped_families()
    parts = name.lower().split("/")
    base = parts[-1]
    for family, prefixes in families.prefixes:
        if base.startswith(prefixes):
            return family
    for part in parts[:-1]:
        if part in families.providers:
            return families.providers[part]
    return base
