"""Who judged whom in one table, and what that allows comparing.

A score is a win-rate against the anchor *as one judge sees it*; two models' scores are on one
scale only when judges link them. The judge–model graph (an edge when a judge scored a model;
anchors, the baselines every judge scores, left out) decides: its connected parts are the groups
of comparable models. One group where every judge scored every model is the normal pooled
ensemble; one group with some judges scoring only some models is a partial overlap (each model's
share of games from judges it shares with other models is reported); several groups are never
ranked against each other. Each row also carries the judges' check flags
(``inspect_arenahard.stats.judge_checks``) and whether it was judged by itself or its family
(``inspect_arenahard.stats.judge_bias.self_judged_share``, the self-bias analysis's rule).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from inspect_arenahard.stats.battles import Battles, held
from inspect_arenahard.stats.judge_bias import self_judged_share
from inspect_arenahard.stats.judge_checks import JudgeCheck
from inspect_arenahard.stats.name_codes import name_codes


@dataclass(frozen=True)
class ModelJudging:
    """One row's judges and what follows from them."""

    model: str
    judges: dict[str, int]
    """Judge → games (parsed) that scored this model, by name."""
    group: int | None
    """1-based group of comparable models; None for an anchor (it is in every group)."""
    shared_share: float
    """Share of the model's games from judges that also scored another model (1 in an ensemble)."""
    self_judged: float
    """Share of the model's games judged by itself or its family (0 for an anchor, fixed at 50)."""
    judge_flags: tuple[str, ...]
    """``flag (judge)`` for each flag of a judge that scored this model."""
    interval_meaningful: bool
    """False when every judge of the row is flagged: its interval measures nothing."""

    def record(self) -> dict[str, object]:
        """The fields a leaderboard record gains."""
        return {
            "judges": dict(self.judges),
            "judge_flags": list(self.judge_flags),
            "self_judged": self.self_judged or None,
            "comparable_group": self.group,
            "shared_judge_share": self.shared_share,
            "interval_meaningful": self.interval_meaningful,
        }

    def flag_cell(self) -> str:
        """The table's ``judge flags`` cell: self-judging, judge flags, a meaningless interval."""
        parts = []
        if self.self_judged:
            parts.append(f"self-judged {100 * self.self_judged:.0f}%")
        parts += self.judge_flags
        if not self.interval_meaningful:
            parts.append("CI not meaningful")
        return "; ".join(parts)


@dataclass(frozen=True)
class TableJudging:
    """Every row's judging and the groups of comparable models of one table."""

    rows: dict[str, ModelJudging]
    groups: tuple[tuple[str, ...], ...]
    judges: tuple[str, ...]
    flagged: dict[str, list[str]]
    """Each flagged judge of the table → its flags' reasons."""

    @property
    def split(self) -> bool:
        """Some models share no judge with others: scores across groups are not comparable."""
        return len(self.groups) > 1

    @property
    def full_ensemble(self) -> bool:
        """Every judge scored every model (one judge included)."""
        players = [r for r in self.rows.values() if r.group is not None]
        return not self.split and all(set(r.judges) == set(self.judges) for r in players)

    def notes(self) -> list[str]:
        """What a reader must know before comparing rows (none for a full ensemble of unflagged
        judges)."""
        out = [f"judge {j} flagged: {'; '.join(why)}" for j, why in self.flagged.items()]
        if self.split:
            listed = "; ".join(
                f"group {i}: {', '.join(g)} (judged by {', '.join(self._group_judges(g))})"
                for i, g in enumerate(self.groups, 1)
            )
            out.append(
                f"not comparable across judges: the judges split the models into {len(self.groups)} "
                f"groups that share no judge, so ranks are within a group ({listed}); rank one "
                "judge (--judge) or an ensemble that scored every model"
            )
        elif not self.full_ensemble:
            shares = ", ".join(
                f"{m} {100 * r.shared_share:.0f}%"
                for m, r in self.rows.items()
                if r.group is not None
            )
            out.append(
                "partial judge overlap: not every judge scored every model; share of each model's "
                f"games from judges it shares with other models: {shares}"
            )
        return out

    def _group_judges(self, group: tuple[str, ...]) -> list[str]:
        return sorted({j for m in group for j in self.rows[m].judges})

    def group_ranks(self, order: Iterable[str]) -> dict[str, int]:
        """Rank of each model within its group, in ``order`` (best first); anchors get none."""
        seen: dict[int, int] = defaultdict(int)
        out = {}
        for model in order:
            group = self.rows[model].group if model in self.rows else None
            if group is not None:
                seen[group] += 1
                out[model] = seen[group]
        return out


def table_judging(
    battles: Battles, models: Iterable[str], checks: Mapping[str, JudgeCheck]
) -> TableJudging | None:
    """The judging of a table ranking ``models`` from ``battles``; None when the battles name no
    judge (a battle file of human votes)."""
    counts = _games_per_model_and_judge(battles)
    if counts is None:
        return None
    anchors = battles.named("baseline")
    wanted = [m for m in models if m in counts]
    players = [m for m in wanted if m not in anchors]
    groups = _components({m: set(counts[m]) for m in players})
    group_of = {m: i for i, group in enumerate(groups, 1) for m in group}
    scored_by: dict[str, set[str]] = defaultdict(set)
    for m in players:
        for j in counts[m]:
            scored_by[j].add(m)
    rows = {}
    for m in wanted:
        judges = dict(sorted(counts[m].items()))
        total = sum(judges.values())
        shared = sum(n for j, n in judges.items() if len(scored_by[j] - {m}) > 0)
        flagged = [j for j in judges if j in checks and checks[j].flags]
        anchor = m in anchors
        rows[m] = ModelJudging(
            model=m,
            judges=judges,
            group=None if anchor else group_of[m],
            shared_share=1.0 if anchor or len(players) < 2 else shared / total,
            self_judged=0.0 if anchor else self_judged_share(judges, m),
            judge_flags=tuple(f"{flag} ({j})" for j in flagged for flag in checks[j].flags),
            interval_meaningful=not judges or len(flagged) < len(judges),
        )
    all_judges = tuple(sorted({j for r in rows.values() for j in r.judges}))
    reasons = {j: checks[j].reasons() for j in all_judges if j in checks and checks[j].flags}
    return TableJudging(rows, tuple(groups), all_judges, reasons)


def _games_per_model_and_judge(battles: Battles) -> dict[str, dict[str, int]] | None:
    """Parsed games per model and judge (both sides of each battle), counted at numpy speed;
    None when no battle names a judge."""
    if not battles.named("judge"):
        return None
    keep = held(battles.judge) & battles.parsed
    judges, judge_index = name_codes(battles.judge[keep])
    size = len(battles.models) * len(judges)
    flat = np.zeros(size, dtype=np.int64)
    for side in (battles.a, battles.b):
        flat += np.bincount(side[keep] * len(judges) + judge_index, minlength=size)
    table = flat.reshape(len(battles.models), len(judges))
    out: dict[str, dict[str, int]] = {}
    for model_index, judge_col in zip(*np.nonzero(table)):
        out.setdefault(battles.models[model_index], {})[str(judges[judge_col])] = int(
            table[model_index, judge_col]
        )
    return out


def _components(edges: Mapping[str, set[str]]) -> list[tuple[str, ...]]:
    """Models linked through shared judges, each group in the order given, groups in order of
    their first model."""
    parent = {m: m for m in edges}

    def find(m: str) -> str:
        while parent[m] != m:
            parent[m] = parent[parent[m]]
            m = parent[m]
        return m

    first_with: dict[str, str] = {}
    for m, judges in edges.items():
        for j in judges:
            if j in first_with:
                parent[find(m)] = find(first_with[j])
            else:
                first_with[j] = m
    groups: dict[str, list[str]] = {}
    for m in edges:
        groups.setdefault(find(m), []).append(m)
    return [tuple(g) for g in groups.values()]
