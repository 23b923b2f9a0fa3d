"""Everything ``arenahard judges`` reports about the judges of some games, as one object that the
printed tables and the JSON both read: position bias and consistency, judge–judge agreement,
self-bias against a reference ranking (or the other judges), and length bias, raw and
style-controlled, beside a judge that always prefers the longer answer (paper Table 12).

Each judge's ranking here is a single Bradley–Terry fit of its own games (no bootstrap): the
analyses compare rankings, not intervals.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from inspect_arenahard.stats import judge_bias
from inspect_arenahard.stats.agreement import AgreementSummary
from inspect_arenahard.stats.battles import Battles, from_games
from inspect_arenahard.stats.game_record import GameRecord
from inspect_arenahard.stats.model_families import model_family
from inspect_arenahard.stats.ranking import DEFAULT_STYLE, RankingOptions, rank
from inspect_arenahard.stats.score_tables import ScoreTable, align_models

LENGTH_STYLE = DEFAULT_STYLE
POINTS_ONLY_OPTIONS = partial(RankingOptions, ci_method="official", rounds=1)
"""Rankings whose intervals are never shown: one bootstrap round, the cheapest interval."""
"""Style features controlled for in the length analysis."""


@dataclass(frozen=True)
class JudgeSelfBias:
    """A judge's rank shifts, against the given reference or the other judges' consensus."""

    bias: judge_bias.SelfBias
    reference: str
    """``given`` or ``other judges``."""

    def to_dict(self) -> dict[str, Any]:
        """The self-bias record and which reference it was measured against."""
        return self.bias.to_dict() | {"reference": self.reference}


@dataclass(frozen=True)
class LengthCorrelation:
    """One judge's model scores against the models' mean answer tokens."""

    judge: str
    raw: dict[str, float]
    """``n``, ``pearson``, ``spearman`` of the plain scores."""
    style_controlled: dict[str, Any]
    """The same for style-controlled scores, or ``{"unavailable": reason}``."""
    spearman_vs_reference: float | None = None
    """Rank correlation of the plain scores with the reference; None without a reference."""

    def to_dict(self) -> dict[str, Any]:
        """``raw``, ``style_controlled`` and, with a reference, ``spearman_vs_reference``."""
        out: dict[str, Any] = {"raw": self.raw, "style_controlled": self.style_controlled}
        if self.spearman_vs_reference is not None:
            out["spearman_vs_reference"] = self.spearman_vs_reference
        return out


@dataclass(frozen=True)
class LengthBias:
    """Whether judges reward longer answers: score against length per judge, and who wins
    when the two answers differ in length."""

    avg_tokens: dict[str, float]
    """Mean answer tokens per model."""
    judges: list[LengthCorrelation]
    """Each judge in name order, then the always-longer judge."""
    longer_answer_preference: dict[str, dict[str, float]]
    """Per judge: ``n`` decisive games with answers of different length, ``longer_wins`` share."""

    def to_dict(self) -> dict[str, Any]:
        """The figures with the correlations keyed by judge."""
        return {
            "avg_tokens": self.avg_tokens,
            "judges": {c.judge: c.to_dict() for c in self.judges},
            "longer_answer_preference": self.longer_answer_preference,
        }


@dataclass(frozen=True)
class JudgeAnalytics:
    """Everything ``arenahard judges`` reports, in the order it prints it."""

    positions: list[judge_bias.PositionStats]
    agreement: tuple[AgreementSummary, AgreementSummary] | None
    """Five-point and win/tie/loss agreement; None with fewer than two judges."""
    unscored: list[str]
    """Models the given reference has no score for (left out of self-bias and length)."""
    self_bias: list[JudgeSelfBias]
    length: LengthBias | None
    """None when the games carry no answer-length (style) metadata."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``arenahard judges --json``: ``position``, ``agreement`` (two judges or
        more), ``self_bias`` and ``length``."""
        out: dict[str, Any] = {"position": [p.to_dict() for p in self.positions]}
        if self.agreement is not None:
            fine, coarse = self.agreement
            out["agreement"] = {"five_point": fine.to_dict(), "win_tie_loss": coarse.to_dict()}
        out["self_bias"] = [b.to_dict() for b in self.self_bias]
        out["length"] = (
            self.length.to_dict() if self.length is not None else {"skipped": "no style metadata"}
        )
        return out


def _scores(battles: Battles, judge: str, style: str | None = None) -> Any:
    """One judge's overall table, optionally style-controlled: point estimates only (the one
    bootstrap round is never shown)."""
    return rank(battles, POINTS_ONLY_OPTIONS(judge=[judge], style_control=style)).overall


def analyse_judges(
    records: Iterable[Mapping[str, Any]],
    reference: ScoreTable | None = None,
    name_map: Mapping[str, str] | None = None,
    families: Mapping[str, str] | None = None,
) -> JudgeAnalytics:
    """Every judge analysis of some game records. ``reference`` ranks the models for self-bias
    and length (default: each judge against the others' consensus); ``name_map`` aliases its
    names, ``families`` overrides the built-in model-family guesses."""
    games = judge_bias.checked(records)
    positions = judge_bias.position_analysis(games)
    judges = [p.judge for p in positions]
    agreement = judge_bias.judges_agreement(games) if len(judges) >= 2 else None
    battles = from_games(games)
    tables = {judge: _scores(battles, judge) for judge in judges}
    scores = {judge: {r.model: r.score for r in t.rows} for judge, t in tables.items()}
    given: dict[str, float] | None = None
    unscored: list[str] = []
    if reference is not None:
        contestants = sorted({m for s in scores.values() for m in s})
        alignment = align_models(contestants, reference.models, name_map)
        unscored = alignment.only_benchmark
        given = {ours: reference.entries[theirs].score for ours, theirs in alignment.pairs}
    self_bias = []
    for judge in judges:
        ref_scores = given if given is not None else judge_bias.consensus_scores(scores, judge)
        if len(ref_scores) < 2 or judge not in scores:
            continue
        bias = judge_bias.self_bias(
            judge, scores[judge], ref_scores, lambda name: model_family(name, families)
        )
        self_bias.append(JudgeSelfBias(bias, "given" if given is not None else "other judges"))
    tokens = {
        r.model: r.avg_tokens for t in tables.values() for r in t.rows if r.avg_tokens is not None
    }
    length = _length_bias(games, battles, tables, tokens, given) if tokens else None
    return JudgeAnalytics(positions, agreement, unscored, self_bias, length)


def _length_bias(
    games: list[GameRecord],
    battles: Battles,
    tables: Mapping[str, Any],
    tokens: dict[str, float],
    reference: Mapping[str, float] | None,
) -> LengthBias:
    """Score vs mean answer length per judge, raw and style-controlled, and for a judge that
    always prefers the longer answer."""
    policy_battles = from_games(judge_bias.verbose_policy(games))
    policy = rank(policy_battles, POINTS_ONLY_OPTIONS()).overall
    rows = []
    for judge, table in [*sorted(tables.items()), (judge_bias.VERBOSE_POLICY, policy)]:
        raw = {r.model: r.score for r in table.rows}
        source = policy_battles if judge == judge_bias.VERBOSE_POLICY else battles
        try:
            styled = _scores(source, judge, LENGTH_STYLE)
            controlled: dict[str, Any] = judge_bias.correlations(
                {r.model: r.score for r in styled.rows}, tokens
            )
        except ValueError as ex:  # e.g. answers without style metadata: reported, not hidden
            controlled = {"unavailable": str(ex)}
        rows.append(
            LengthCorrelation(
                judge,
                judge_bias.correlations(raw, tokens),
                controlled,
                None if reference is None else judge_bias.correlations(raw, reference)["spearman"],
            )
        )
    return LengthBias(tokens, rows, judge_bias.longer_answer_preference(games))
