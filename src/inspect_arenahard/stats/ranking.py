"""The one ranking service: games (or battles) and a ``RankingOptions`` in, every table out.

``arenahard leaderboard``, ``metrics``, ``judges``, ``power``, ``report --html``, tournament
ratings and the ``inspect_arenahard.report.dataframes`` dataframes all call ``rank``, so the same
options give the same numbers everywhere. The options are one typed dataclass; the CLI flags and
config keys are generated from it (``typed_options``), so they cannot drift between commands.

Tables: one per category (each against its own baseline), a pooled table when one baseline
serves every category, and the v2.0 combined score (the prompt-weighted mean of the category
scores, ``stats.combined``) when the categories have their own baselines. Point estimates follow
the battles' official rules; intervals are prompt-clustered (``sandwich``) unless
``ci_method="official"`` asks for the published row bootstrap (see docs/intervals.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from inspect_arenahard.stats.battles import Battles, from_games, selection
from inspect_arenahard.stats.combined import COMBINED, combine, prompts_per_category
from inspect_arenahard.stats.estimates import Leaderboard, leaderboard, resolve_baseline
from inspect_arenahard.stats.game_record import BATTLE_FIELDS
from inspect_arenahard.stats.game_table import GameTable, game_table, record_named
from inspect_arenahard.stats.judge_checks import JudgeCheck, check_judges, flagged, strict_error
from inspect_arenahard.stats.judge_coverage import TableJudging, table_judging
from inspect_arenahard.stats.rank_options import RankingOptions as RankingOptions  # re-exported

DEFAULT_STYLE = "length,markdown"
"""Features of a style-controlled table when none are named (the HTML report's second board)."""


@dataclass(frozen=True)
class Ranking:
    """Every table of one ranking, in print order (pooled, per category, combined), the models
    the combined table leaves out (not in every category), the battles ranked and the game
    records they came from (empty for a battle file)."""

    tables: tuple[Leaderboard, ...]
    left_out: tuple[str, ...]
    battles: Battles
    options: RankingOptions
    columns: GameTable | None = None
    """The game records ranked, as columns (None for a battle file)."""

    @property
    def games(self) -> tuple[Mapping[str, Any], ...]:
        """The game records ranked (empty for a battle file)."""
        return () if self.columns is None else tuple(self.columns.records.tolist())

    @cached_property
    def judge_checks(self) -> tuple[JudgeCheck, ...]:
        """Each judge's information checks from the games ranked (none for a battle file)."""
        return () if self.columns is None else check_judges(self.columns, self.options.ci)

    def judging(self, table: Leaderboard) -> TableJudging | None:
        """Who judged each row of ``table`` and which rows compare; None without judge names."""
        battles = self.battles
        if table.category not in (None, COMBINED):
            battles = battles.where(category=table.category)
        checks = {c.judge: c for c in self.judge_checks}
        return table_judging(battles, [r.model for r in table.rows], checks)

    def judgings(self) -> dict[str | None, TableJudging]:
        """``judging`` of every table that has one, by the table's category."""
        return {t.category: j for t in self.tables if (j := self.judging(t)) is not None}

    @property
    def overall(self) -> Leaderboard:
        """The table that ranks across everything: the combined one when the categories have
        their own baselines (and some model plays in all), else the first (pooled, or the only)
        table."""
        last = self.tables[-1]
        return last if last.category == COMBINED and last.rows else self.tables[0]


def select_battles(
    source: Battles | GameTable | Iterable[Mapping[str, Any]], options: RankingOptions
) -> Battles:
    """The battles of game records (weighted by ``strong_weight``) or of a battle file, narrowed
    to the chosen judges and category."""
    if isinstance(source, Battles):
        if options.strong_weight is not None:
            raise ValueError(
                "--strong-weight applies to judge logs; battle files already repeat strong verdicts"
            )
        battles = source
    elif options.strong_weight is None:
        battles = from_games(source)
    else:
        battles = from_games(source, options.strong_weight)
    return battles.where(judges=options.judge, category=options.category)


def rank(
    source: Battles | GameTable | Iterable[Mapping[str, Any]], options: RankingOptions | None = None
) -> Ranking:
    """Every table ``options`` asks for, from game records (or their table) or battles."""
    options = options or RankingOptions()
    games: GameTable | None = None
    if not isinstance(source, Battles):
        source = game_table(source, BATTLE_FIELDS, record_named)
        games = source.select(
            selection(source.judge, source.category, options.judge, options.category)
        )
    battles = select_battles(source, options)
    tables = leaderboards(battles, options)
    per_category = [t for t in tables if t.category is not None]
    left_out: list[str] = []
    if len(per_category) == len(tables) > 1:  # categories with their own baselines (v2.0)
        combined, left_out = combine(per_category, prompts_per_category(battles), seed=options.seed)
        tables = [*tables, combined]
    ranking = Ranking(tuple(tables), tuple(left_out), battles, options, games)
    if options.strict_judges and (bad := flagged(ranking.judge_checks)):
        raise ValueError(strict_error(bad))
    return ranking


def leaderboards(battles: Battles, options: RankingOptions) -> list[Leaderboard]:
    """One table, or with several categories a pooled table (when one baseline serves all) and
    one per category. A requested baseline absent from a category falls back to that category's
    own baseline."""
    categories = battles.categories()
    if not options.by_category:
        return [_table(battles, options.baseline, None, options)]
    if len(categories) <= 1:
        return [_table(battles, options.baseline, categories[0] if categories else None, options)]
    tables = []
    try:
        resolve_baseline(battles, options.baseline)
    except ValueError:
        pass  # categories with different baselines: per-category tables only (each names its baseline)
    else:
        tables.append(_table(battles, options.baseline, None, options))
    for name in categories:
        subset = battles.where(category=name)
        present = {subset.models[i] for i in np.unique(np.r_[subset.a, subset.b])}
        own = options.baseline if options.baseline in present else None
        tables.append(_table(subset, own, name, options))
    return tables


def _table(
    battles: Battles, baseline: str | None, category: str | None, options: RankingOptions
) -> Leaderboard:
    return leaderboard(
        battles, baseline, method=options.method, style=options.style, rounds=options.rounds,
        seed=options.seed, ci=options.ci, category=category, unparsed=options.unparsed,
        style_anchor=options.style_anchor, ci_method=options.ci_method,
        style_refits=options.style_refits,
    )  # fmt: skip
