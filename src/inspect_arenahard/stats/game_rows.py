"""Game records as the log reader keeps them: each sample's parsed score once, records on demand.

A log's sample score (``GameScore``) holds two games; the reader keeps what the records need of
the parsed score (``SampleGames``) and, per game kept, which sample and which of its games it
is. The ``GameRecord`` dicts, the contract between stages, are made from these only when a
caller reads them (``GameRows`` is a sequence of records), while a ranking builds its columns
straight from the samples (``stats.game_table.game_table``): one parse of the score metadata
serves both, and 60,000 games read for a leaderboard never become 60,000 dicts.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cached_property
from operator import attrgetter
from typing import Any, overload

import numpy as np

from inspect_arenahard.stats.game_record import GameRecord, SampleGames, ScoredGame


class GameRows(Sequence[GameRecord]):
    """Game records as rows over parsed sample scores: row ``i`` is game ``game[i]`` of
    ``samples[sample[i]]``. The records are made on first use, all at once, and kept (a caller
    sees the same dict each time); a ranking reads the scores instead (``game_table``)."""

    def __init__(self, samples: Sequence[SampleGames], sample: np.ndarray, game: np.ndarray):
        self.samples = samples
        self.sample = sample
        self.game = game

    def __len__(self) -> int:
        return len(self.sample)

    @property
    def unmade(self) -> bool:
        """No record made yet: the samples are the games. Once made, the records are (a caller
        may have changed one), and every reader of the rows reads those."""
        return "_records" not in self.__dict__

    @cached_property
    def _records(self) -> list[GameRecord]:
        """Every row's record, each sample's made once."""
        built: dict[int, list[GameRecord]] = {}
        samples = self.samples
        out = []
        for s, g in zip(self.sample.tolist(), self.game.tolist()):
            records = built.get(s)
            if records is None:
                records = built[s] = samples[s].records()
            out.append(records[g])
        return out

    @overload
    def __getitem__(self, index: int | np.integer) -> GameRecord: ...

    @overload
    def __getitem__(self, index: Any) -> GameRows: ...

    def __getitem__(self, index: Any) -> GameRecord | GameRows:
        """A record for an integer; the rows a slice, index array or mask selects otherwise."""
        if isinstance(index, (int, np.integer)):
            return self._records[index]
        rows = GameRows(self.samples, self.sample[index], self.game[index])
        if not self.unmade:  # records already made stay the same dicts
            rows.__dict__["_records"] = self._objects()[index].tolist()
        return rows

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same records (a list of them included)."""
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # mutable records: not hashable, as a list

    def _objects(self) -> np.ndarray:
        out = np.empty(len(self), dtype=object)
        out[:] = self._records
        return out

    def __iter__(self) -> Iterator[GameRecord]:
        return iter(self._records)

    def tolist(self) -> list[GameRecord]:
        """The records as a list (as ``numpy.ndarray.tolist`` of a record column)."""
        return list(self._records)

    @cached_property
    def scored(self) -> list[ScoredGame]:
        """Each row's game as its score holds it."""
        samples = self.samples
        return [samples[s].games[g] for s, g in zip(self.sample.tolist(), self.game.tolist())]

    def settings(self) -> set[str]:
        """The distinct verdict-changing settings of the rows."""
        samples = self.samples
        return {samples[s].settings for s in np.unique(self.sample).tolist()}


def unparsed_count(games: Sequence[GameRecord]) -> int:
    """Games without a parsed verdict (``parsed`` false; a record without it counts as parsed)."""
    if isinstance(games, GameRows) and games.unmade:
        return len(games) - sum(map(attrgetter("parsed"), games.scored))
    return sum(not g.get("parsed", True) for g in games)
