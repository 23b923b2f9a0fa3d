"""The eight Auto-Arena question domains and the debate's length limits, read from
``scorers/configs/autoarena_domains.yaml`` (Zhao et al. 2024, Appendix A.1 Tables 5 and 6).

Kept as data so that the examiner prompt, the word limits and the reference-answer domains are
defined in one place and cited to the paper.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from inspect_arenahard.judging.templates import config

CONFIG = "autoarena_domains"


@dataclass(frozen=True)
class Domain:
    """One question domain: ``key`` is its id in question files, ``name`` the examiner's [DOMAIN]."""

    key: str
    name: str
    command: str
    example: str
    words: int
    """Word limit of a one-action-group turn (respond, or criticize + raise)."""
    reference: bool
    """Judges see a reference answer for questions of this domain."""


@dataclass(frozen=True)
class ActionGroup:
    """A combination of actions one turn must contain (a row of Table 6)."""

    key: str
    actions: tuple[str, ...]
    include: str
    words_factor: int


ACTION_GROUPS: dict[tuple[str, ...], str] = {
    ("respond",): "respond",
    ("criticize", "raise"): "criticize_raise",
    ("respond", "criticize", "raise"): "respond_criticize_raise",
}


def _settings() -> dict[str, Any]:
    return config(CONFIG)


@lru_cache(maxsize=None)
def domains() -> dict[str, Domain]:
    """Every domain by key, in the paper's order."""
    return {
        key: Domain(
            key, d["name"], d["command"], d["example"], int(d["words"]), bool(d["reference"])
        )
        for key, d in _settings()["domains"].items()
    }


def domain(value: str, where: str = "domain") -> Domain:
    """The domain with this key or examiner name (case-insensitive); an error lists the known keys."""
    wanted = value.strip().casefold()
    for d in domains().values():
        if wanted in (d.key.casefold(), d.name.casefold()):
            return d
    raise ValueError(f"{where}: unknown domain {value!r}; known: {', '.join(domains())}")


def parse_domains(value: str | Sequence[str] | None, where: str = "domains") -> list[Domain]:
    """``all``/None, a comma-separated string or a list of keys or names → domains, paper order."""
    if value is None or (isinstance(value, str) and value.strip().casefold() == "all"):
        return list(domains().values())
    items = [v for v in value.split(",")] if isinstance(value, str) else list(value)
    chosen = {domain(item, where).key for item in items if item.strip()}
    if not chosen:
        raise ValueError(f"{where}: no domain given")
    return [d for d in domains().values() if d.key in chosen]


def action_group(actions: Sequence[str]) -> ActionGroup:
    """The include text and word-limit factor for a turn that takes ``actions``."""
    key = ACTION_GROUPS[tuple(actions)]
    entry = _settings()["actions"][key]
    return ActionGroup(key, tuple(actions), entry["include"], int(entry["words_factor"]))


def word_limit(actions: Sequence[str], dom: Domain) -> int:
    """Words allowed for a turn with ``actions`` on a question of ``dom``."""
    return dom.words * action_group(actions).words_factor


def token_limit(words: int) -> int:
    """Tokens allowed for ``words`` words (4/3 tokens per word, rounded down)."""
    tokens, per_words = _settings()["tokens_per_word"]
    return words * int(tokens) // int(per_words)


def token_encoding() -> str:
    """Tokenizer that counts turn lengths for the word/token limits (from the settings file)."""
    return str(_settings()["token_encoding"])
