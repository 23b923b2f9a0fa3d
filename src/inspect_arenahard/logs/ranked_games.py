"""The games a ranking command reads from judge logs, and what it tells the user about them.

Every command that ranks logs (``leaderboard``, ``metrics``, ``judges``, ``power``, ``report``)
reads them through ``read_log_games``: partial, replaced, ignored and damaged logs are listed
on stderr with one summary line, finding no judged game is an error that says why, and games
judged under different verdict-changing settings, or by a judge whose canary verdicts drifted
between runs, are refused unless pooled on purpose.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from inspect_arenahard.logs.reader import (
    LogGames,
    Run,
    SampleReader,
    check_drift,
    check_settings,
    no_games_error,
    read_games,
)
from inspect_arenahard.stats.game_record import GameRecord
from inspect_arenahard.stats.game_rows import unparsed_count


@dataclass(frozen=True)
class RankedLogs:
    """What a ranking command read: the game records, the verdict settings they were pooled
    across (empty unless asked to pool), and the whole reading (runs, replaced, ignored)."""

    games: Sequence[GameRecord]
    """The games (the reader's ``GameRows``: records made on first use)."""
    pooled: list[str]
    read: LogGames


def read_ranked_logs(
    paths: Sequence[str | Path], pool_settings: bool = False, on_sample: SampleReader | None = None
) -> RankedLogs:
    """The games of ``paths`` as a ranking reads them (see the module docstring); ``on_sample``
    is handed every full sample of the same read (``inspect_arenahard.logs.reader.read_games``)."""
    result = read_games(paths, on_sample)
    for note in result.notes():
        print(note, file=sys.stderr)
    if result.runs or result.ignored:  # no file at all: the error below says so alone
        print(result.summary(), file=sys.stderr)
    if unparsed_count(result.games) == len(result.games):
        raise no_games_error(result, paths)
    pooled = check_settings(result.games, pool=pool_settings)
    return RankedLogs(result.games, pooled + check_drift(result, pool=pool_settings), result)


def read_log_games(
    paths: Sequence[str | Path], pool_settings: bool = False, runs: list[Run] | None = None
) -> tuple[Sequence[GameRecord], list[str]]:
    """Game records and the verdict settings they differ on (``read_ranked_logs``);
    ``runs`` receives the runs read."""
    ranked = read_ranked_logs(paths, pool_settings)
    if runs is not None:
        runs += ranked.read.runs
    return ranked.games, ranked.pooled
