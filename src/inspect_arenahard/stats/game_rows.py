"""Game records as the log reader keeps them: each sample's parsed score once, records on demand.

A log's sample score (``GameScore``) holds two games; the reader keeps the parsed score and,
per game kept, which sample and which of its games it is. The ``GameRecord`` dicts, the contract
between stages, are made from these only when a caller reads them (``GameRows`` is a sequence of
records), while a ranking builds its columns straight from the scores
(``stats.game_table.game_table``): one parse of the score metadata serves both.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, overload

import numpy as np

from inspect_arenahard.stats.game_record import GameRecord, GameScore, ScoredGame


@dataclass(frozen=True)
class SampleGames:
    """One sample's parsed judge score and where it was read: everything its records hold."""

    score: GameScore
    question_id: str
    epoch: int
    log_model: str
    """The log's model: the records' model when the score names none."""
    model: str
    """The model under test, as its records name it (the score's, else the log's)."""
    baseline: str
    """The baseline, as its records name it."""
    log: str
    version: str | None
    protocol: str
    settings: str
    """The run's verdict-changing settings (with the sample's neutralisation rules)."""

    @classmethod
    def of(
        cls,
        score: GameScore,
        *,
        question_id: str,
        epoch: int,
        log_model: str,
        log: str,
        version: str | None,
        protocol: str,
        settings: str,
    ) -> SampleGames:
        """The sample of ``score`` read from the log ``log`` of the model ``log_model``."""
        model, baseline = score.model or log_model, str(score.baseline)
        return cls(
            score, question_id, epoch, log_model, model, baseline, log, version, protocol, settings
        )

    def records(self) -> list[GameRecord]:
        """Its game records (``GameScore.records``), one per game in the score's order."""
        return self.score.records(
            question_id=self.question_id,
            epoch=self.epoch,
            model=self.log_model,
            log=self.log,
            version=self.version,
            protocol=self.protocol,
            settings=self.settings,
        )

    def key(self, game: ScoredGame) -> tuple[Any, ...]:
        """The identity of one of its games (``inspect_arenahard.logs.reader.game_key`` of its record)."""
        return (
            self.model, self.baseline, game.judge, self.question_id,
            self.epoch or 1, game.game, self.protocol,
        )  # fmt: skip


class GameRows(Sequence[GameRecord]):
    """Game records as rows over parsed sample scores: row ``i`` is game ``game[i]`` of
    ``samples[sample[i]]``. The records are made on first use, all at once, and kept (a caller
    sees the same dict each time); a ranking reads the scores instead (``game_table``)."""

    def __init__(
        self,
        samples: Sequence[SampleGames],
        sample: np.ndarray,
        game: np.ndarray,
        scored: list[ScoredGame] | None = None,
    ):
        self.samples = samples
        self.sample = sample
        self.game = game
        if scored is not None:  # each row's game, when the caller has them at hand
            self.__dict__["scored"] = scored

    def __len__(self) -> int:
        return len(self.sample)

    @cached_property
    def _records(self) -> list[GameRecord]:
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
        if "_records" in self.__dict__:  # records already made stay the same dicts
            rows.__dict__["_records"] = self._objects()[index].tolist()
        return rows

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
        return [samples[s].score.games[g] for s, g in zip(self.sample.tolist(), self.game.tolist())]

    def settings(self) -> set[str]:
        """The distinct verdict-changing settings of the rows."""
        samples = self.samples
        return {samples[s].settings for s in np.unique(self.sample).tolist()}


def unparsed_count(games: Sequence[GameRecord]) -> int:
    """Games without a parsed verdict (``parsed`` false; a record without it counts as parsed)."""
    if isinstance(games, GameRows):
        return sum(not game.parsed for game in games.scored)
    return sum(not g.get("parsed", True) for g in games)
