"""How games become a ranking: ``RankingOptions`` and the vocabularies of its fields.

Apart from the ranking service (``stats.ranking``) because every command's parser is built from
these options: this module imports no estimation code (no scipy), so ``arenahard --help`` and the
flags of every command are built without loading the statistics they will run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from inspect_arenahard.stats.style_control import Anchor, parse_features
from inspect_arenahard.stats.verdict_points import check_strong_weight

DEFAULT_CI = 0.95
"""Confidence level of every interval unless a command is told otherwise."""
Method = Literal["bt", "mean"]
METHODS: tuple[str, ...] = ("bt", "mean")
Unparsed = Literal["game", "pair"]
UNPARSED_RULES: tuple[str, ...] = ("game", "pair")
CIMethod = Literal["sandwich", "official"]
CI_METHODS: tuple[str, ...] = ("sandwich", "official")
"""How intervals are computed: ``sandwich`` (default) treats prompts as the independent units
(cluster-robust covariance of the fit, every method); ``official`` is the published code's
percentile bootstrap over expanded battle rows, kept to reproduce published CIs (it covers less
than its level: see docs/intervals.md)."""
Refits = Literal["auto", "exact", "one-step"]
REFITS: tuple[str, ...] = ("auto", "exact", "one-step")
"""How the style-controlled official bootstrap refits each resample (see ``stats.style_refit``)."""


@dataclass(frozen=True)
class RankingOptions:
    """How games become a ranking. ``None`` rules follow the official code of the games' version."""

    baseline: str | None = field(
        default=None,
        metadata={"help": "anchor model (None: the baseline the judge records name)"},
    )
    judge: list[str] | None = field(
        default=None,
        metadata={"help": "use only this judge (repeat to pool several; None: all pooled)", "repeat": True, "metavar": "MODEL"},
    )  # fmt: skip
    category: str | None = field(default=None, metadata={"help": "use only this question category"})
    method: Method | None = field(
        default=None,
        metadata={"help": "bt: Bradley–Terry win-rate (official v0.1); mean: mean battle score (official v2.0); None: the version's"},
    )  # fmt: skip
    unparsed: Unparsed | None = field(
        default=None,
        metadata={"help": "game: drop only an unparsed game (official v0.1); pair: drop both games of its judgment (official v2.0); None: the version's"},
    )  # fmt: skip
    style_control: str | None = field(
        default=None,
        metadata={"help": "comma-separated style features: length, markdown (= header,list,bold), header, list, bold", "metavar": "FEATURES"},
    )  # fmt: skip
    style_anchor: Anchor | None = field(
        default=None,
        metadata={"help": "style-controlled score at the pool's mean style difference (official) or at equal style (equal: does not move with the pool); None: official"},
    )  # fmt: skip
    ci_method: CIMethod = field(
        default="sandwich",
        metadata={"help": "sandwich: prompt-clustered intervals that cover (every method); official: the published row bootstrap over --rounds resamples, too narrow (reproduces published CIs)"},
    )  # fmt: skip
    style_refits: Refits = field(
        default="auto",
        metadata={"help": "style-controlled official bootstrap: exact refits of each resample, or one Newton step from the full fit (one-step: several times faster at arena scale, an approximation whose error benchmarks/bench_arena.py prints); auto: one-step from 200,000 battles"},
    )  # fmt: skip
    ci: float = field(default=DEFAULT_CI, metadata={"help": "confidence level of the intervals"})
    rounds: int = field(default=100, metadata={"help": "bootstrap rounds (--ci-method official)"})
    seed: int = field(
        default=0, metadata={"help": "bootstrap seed (0: the same games give the same table)"}
    )
    by_category: bool = field(
        default=True,
        metadata={"help": "with several categories, a table per category (and the combined score when their baselines differ) besides the pooled one; --no-by-category: the pooled table only"},
    )  # fmt: skip
    strong_weight: int | None = field(
        default=None,
        metadata={"help": "battles a strong (>>) verdict counts for (judge logs only; None: the records' own weight)"},
    )  # fmt: skip
    strict_judges: bool = field(
        default=False,
        metadata={"help": "refuse to rank when a judge is flagged (position-only, constant label, swap-inconsistent or length-only verdicts) instead of marking its rows"},
    )  # fmt: skip

    def __post_init__(self) -> None:
        if self.ci_method not in CI_METHODS:
            raise ValueError(
                f"unknown CI method {self.ci_method!r}; choose from {', '.join(CI_METHODS)}"
            )
        if not 0 < self.ci < 1:
            raise ValueError(f"confidence level must be between 0 and 1, got {self.ci}")
        if self.rounds < 1:
            raise ValueError(f"bootstrap rounds must be at least 1, got {self.rounds}")
        if self.strong_weight is not None:
            check_strong_weight(self.strong_weight, "--strong-weight")
        parse_features(
            self.style_control or ""
        )  # an unknown feature: an error now, not after reading

    @property
    def style(self) -> tuple[str, ...]:
        """The style-control features, canonical order (empty: no style control)."""
        return parse_features(self.style_control) if self.style_control else ()
