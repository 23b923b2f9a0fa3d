"""One read of judge logs for a ranking command: the games, the audit flags and the costs together.

``arenahard leaderboard`` and ``arenahard report`` read each log once: the games come from
``inspect_arenahard.logs.ranked_games``, and the audit's answers and the cost's usage are
collected from the same read (from the score records where every sample has them, else from each
full sample), never by a read of their own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from inspect_arenahard.logs.ranked_games import RankedLogs, read_ranked_logs
from inspect_arenahard.logs.reader import SampleReader, SampleReaders
from inspect_arenahard.report.audit_inputs import AnswerReader, audit_samples, flags_of
from inspect_arenahard.report.costs import PRICES, CostReport, UsageReader


@dataclass(frozen=True)
class LogReading:
    """What one read of the logs gave: the ranked games, and the audit flags and costs when asked."""

    ranked: RankedLogs
    flags: dict[str, list[str]] | None
    """Audit flags per model (None: the audit was not asked for)."""
    costs: CostReport | None
    """Usage and cost of the runs ranked (None: not asked for)."""


def read_logs(
    paths: Sequence[str | Path],
    pool_settings: bool = False,
    audit: bool = True,
    prices: Mapping[str, tuple[float, float]] | None = None,
    cost: bool = False,
) -> LogReading:
    """Read ``paths`` once for a ranking: games (``read_ranked_logs``), the audit flags when
    ``audit``, the costs when ``cost`` (``prices`` over the shipped list prices)."""
    answers = AnswerReader() if audit else None
    usage = UsageReader({**PRICES, **(prices or {})}) if cost else None
    readers: list[SampleReader] = [r for r in (answers, usage) if r is not None]
    ranked = read_ranked_logs(paths, pool_settings, SampleReaders(readers) if readers else None)
    flags = None if answers is None else flags_of(audit_samples(*answers.by_model(ranked.read)))
    return LogReading(ranked, flags, None if usage is None else usage.report(ranked.read))
