"""Criteria rubrics and their perturbed variants (ScaleEval, Chern et al. 2024, Table 8).

A rubric is a list of scored levels ``name - description`` (``scorers/configs/
scaleeval_criteria.yaml``). A variant changes the wording while keeping the structure: the same
scores in the same order, one ``"<score>": "<text>"`` line per level.

* ``general``: the rubric as written;
* ``shortened``: the leading quality names (``Not Helpful - ``) dropped;
* ``gibberish``: a seeded share of letters replaced by symbols and digits;
* ``shuffled``: each level's words in a seeded random order;
* ``flipped``: every word spelled backwards (punctuation around it kept in place);
* ``masked``: a seeded share of characters replaced by ``_``.

The same rubric, variant and seed always give the same text: the random generator is seeded
from the variant, the seed and the level's score, never from process state.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import yaml

from inspect_arenahard.judging.templates import config

VARIANTS = ("general", "shortened", "gibberish", "shuffled", "flipped", "masked")
GIBBERISH_RATE = 0.3
GIBBERISH_SYMBOLS = "$!%#@+/=&()0123456789"
MASK_RATE = 0.25
MASK = "_"


@dataclass(frozen=True)
class Level:
    """One score level of a rubric."""

    score: int
    name: str
    description: str

    @property
    def text(self) -> str:
        """The level as the judges read it: ``name - description``."""
        return f"{self.name} - {self.description}"


Rubric = tuple[Level, ...]


def _rubric(name: str, raw: Any, where: str) -> Rubric:
    if not isinstance(raw, list) or not raw:
        raise ValueError(f"{where}: criterion {name!r} must be a non-empty list of levels")
    levels = []
    for k, level in enumerate(raw):
        if not isinstance(level, dict) or not {"score", "name", "description"} <= set(level):
            raise ValueError(
                f"{where}: criterion {name!r} level {k} needs fields score, name, description"
            )
        levels.append(Level(int(level["score"]), str(level["name"]), str(level["description"])))
    return tuple(levels)


def load_rubrics(path: str | Path | None = None) -> dict[str, Rubric]:
    """Rubrics by criterion name: the built-in file, or a YAML file of the same shape."""
    if path is None:
        raw, where = config("scaleeval_criteria"), "scaleeval_criteria.yaml"
    else:
        where = str(path)
        if not Path(path).is_file():
            raise FileNotFoundError(f"criteria file not found: {path}")
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        if not isinstance(raw, dict):
            raise ValueError(f"{path}: expected a mapping of criterion name to levels")
    return {name: _rubric(name, levels, where) for name, levels in raw.items()}


def rubric(criterion: str, path: str | Path | None = None) -> Rubric:
    """The rubric of ``criterion`` (from ``path``, else the built-in ones); unknown is an error."""
    rubrics = load_rubrics(path)
    if criterion not in rubrics:
        raise ValueError(f"unknown criterion {criterion!r}; known: {', '.join(sorted(rubrics))}")
    return rubrics[criterion]


def _rng(variant: str, seed: int, score: int) -> random.Random:
    return random.Random(f"{variant}:{seed}:{score}")


def gibberish(text: str, rng: random.Random) -> str:
    """Replace a share of the letters with symbols."""
    return "".join(
        rng.choice(GIBBERISH_SYMBOLS) if c.isalpha() and rng.random() < GIBBERISH_RATE else c
        for c in text
    )


def shuffled(text: str, rng: random.Random) -> str:
    """The same words in random order."""
    words = text.split()
    rng.shuffle(words)
    return " ".join(words)


_WORD = re.compile(r"^(\W*)(.*?)(\W*)$", re.S)


def flipped(text: str, rng: random.Random | None = None) -> str:
    """Every word spelled backwards, punctuation kept (``rng`` unused: this one is fixed)."""

    def flip(token: str) -> str:
        lead, core, trail = _WORD.match(token).groups()  # type: ignore[union-attr]
        return lead + core[::-1] + trail

    return " ".join(flip(token) for token in text.split())


def masked(text: str, rng: random.Random) -> str:
    """Replace a share of the characters with the mask symbol."""
    return "".join(MASK if rng.random() < MASK_RATE else c for c in text)


_PERTURB: dict[str, Callable[[str, random.Random], str]] = {
    "gibberish": gibberish,
    "shuffled": shuffled,
    "flipped": flipped,
    "masked": masked,
}


def level_texts(levels: Rubric, variant: str = "general", seed: int = 0) -> list[tuple[int, str]]:
    """(score, text) per level under ``variant``."""
    if variant not in VARIANTS:
        raise ValueError(
            f"unknown criteria variant {variant!r}; expected one of {', '.join(VARIANTS)}"
        )
    if variant == "general":
        return [(level.score, level.text) for level in levels]
    if variant == "shortened":
        return [(level.score, level.description) for level in levels]
    perturb = _PERTURB[variant]
    return [
        (level.score, perturb(level.text, _rng(variant, seed, level.score))) for level in levels
    ]


def render(levels: Rubric, variant: str = "general", seed: int = 0) -> str:
    """The ``[Criteria]`` text: one ``"<score>": "<text>"`` line per level."""
    return "\n".join(f'"{score}": "{text}"' for score, text in level_texts(levels, variant, seed))
