"""Swiss tournaments of peer battles, kept in a folder that survives crashes.

Folder layout:

```text
tournament/
  state.json     # config, participants, every stage's pairings and the ratings after it
  logs/          # one autoarena_battle log per pairing (readable by `arenahard leaderboard`)
```

A *stage* is a Swiss round (all its pairings run in one ``inspect_ai.eval`` call) or one battle
of a model being added. Each pairing plays ``battles_per_pair`` questions; its committee is the
current top ``committee_size`` models other than the two players (optionally other families),
and the strongest non-playing model gives reference answers. After a stage, ratings are
refitted from every completed pairing's log (``inspect_arenahard.arena.ratings.fit_ratings``).

The plan of a stage is saved before it runs and each finished pairing's log is recorded, so a
re-run resumes: finished pairings are kept (a complete log found in ``logs/`` for a pairing the
state had not recorded is adopted), only the rest run again.
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from inspect_arenahard.arena.config import TournamentConfig, load_config
from inspect_arenahard.arena.ratings import Ratings, fit_ratings, prior_ratings
from inspect_arenahard.arena.swiss import (
    Pair,
    committee_for,
    nearest_opponent,
    swiss_round,
    swiss_rounds,
)
from inspect_arenahard.stats.game_record import GameRecord

STATE_FILE = "state.json"
LOGS = "logs"

ModelFactory = Callable[[str], Any]
"""Model name → what Inspect accepts for it (a name or a ``Model``); tests pass scripted models."""


class TournamentError(RuntimeError):
    """Some pairings of a stage failed; the finished ones are saved and a re-run resumes."""


@dataclass
class Pairing:
    """One scheduled battle run between two models, with its judges; ``log`` once finished."""

    model: str
    """The ``--model`` player (the better-ranked one when planned)."""
    opponent: str
    seed: int
    committee: list[str]
    reference: str | None
    log: str | None = None
    """The completed log, relative to the folder."""


@dataclass
class Stage:
    """A Swiss round or one added model's battles: planned before it runs, so it can resume."""

    name: str
    pairings: list[Pairing]
    bye: str | None = None
    ratings: dict[str, Any] | None = None
    """Ratings after the stage (``Ratings.record()``); None until all its pairings finished."""

    @property
    def done(self) -> bool:
        """Every pairing finished and the ratings refitted."""
        return self.ratings is not None


@dataclass
class State:
    """Everything ``state.json`` holds: the config, participants and every stage so far."""

    config: TournamentConfig
    models: list[str]
    """Participants, added models included."""
    prior_order: list[str]
    prior: dict[str, float]
    """Prior scores, added models included (those added without one have none)."""
    stages: list[Stage] = field(default_factory=list)
    additions: dict[str, int] = field(default_factory=dict)
    """Added model → the number of battles it gets (⌈log2 n⌉)."""

    def record(self) -> dict[str, Any]:
        """JSON-safe form written to ``state.json`` after every change."""
        return {
            "config": self.config.record(),
            "models": self.models,
            "prior_order": self.prior_order,
            "prior": self.prior,
            "additions": self.additions,
            "stages": [asdict(s) for s in self.stages],
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> State:
        """Inverse of ``record``; a malformed file raises ``KeyError``/``TypeError``."""
        stages = [
            Stage(**{**s, "pairings": [Pairing(**p) for p in s["pairings"]]})
            for s in record["stages"]
        ]
        return cls(
            TournamentConfig(**record["config"]),
            record["models"],
            record["prior_order"],
            record["prior"],
            stages,
            record["additions"],
        )

    def played(self) -> list[Pair]:
        """(model, opponent) of every planned pairing, so no pair is scheduled twice."""
        return [(p.model, p.opponent) for s in self.stages for p in s.pairings]

    def ratings(self) -> Ratings:
        """Ratings after the last finished stage (the prior before any)."""
        done = [s for s in self.stages if s.done]
        return Ratings.from_record(done[-1].ratings) if done else prior_ratings(self.prior_order)  # type: ignore[arg-type]

    def ranking(self) -> list[str]:
        """Current ranking of every participant (new models without ratings by prior position)."""
        rated = self.ratings().ranking()
        return [m for m in rated if m in self.models] + [
            m for m in self.prior_order if m not in rated
        ]


class Tournament:
    """A tournament folder: ``run`` the Swiss rounds, ``add`` a model, ``refit``."""

    def __init__(
        self,
        folder: str | Path,
        state: State,
        model_factory: ModelFactory | None = None,
        **eval_args: Any,
    ) -> None:
        self.folder = Path(folder)
        self.state = state
        self.model_factory = model_factory or (lambda name: name)
        self.eval_args = eval_args

    @classmethod
    def create(
        cls, config_path: str | Path, model_factory: ModelFactory | None = None, **eval_args: Any
    ) -> Tournament:
        """Open the folder a config names, starting it if new; a changed config is an error."""
        config, folder = load_config(config_path)
        state_file = folder / STATE_FILE
        if state_file.is_file():
            tournament = cls.open(folder, model_factory, **eval_args)
            if tournament.state.config != config:
                changed = [
                    k
                    for k, v in config.record().items()
                    if tournament.state.config.record()[k] != v
                ]
                raise ValueError(
                    f"{config_path}: differs from the tournament in {folder} ({', '.join(changed)}); "
                    "use a new folder, or `arenahard tournament add` for new models"
                )
            return tournament
        folder.mkdir(parents=True, exist_ok=True)
        tournament = cls(
            folder,
            State(config, list(config.models), config.prior_order(), dict(config.prior)),
            model_factory,
            **eval_args,
        )
        tournament.save()
        return tournament

    @classmethod
    def open(
        cls, folder: str | Path, model_factory: ModelFactory | None = None, **eval_args: Any
    ) -> Tournament:
        """Resume the tournament in ``folder``; a missing or damaged ``state.json`` is an error."""
        path = Path(folder) / STATE_FILE
        if not path.is_file():
            raise FileNotFoundError(
                f"no tournament in {folder} ({STATE_FILE} missing); start one with `arenahard tournament run CONFIG`"
            )
        try:
            state = State.from_record(json.loads(path.read_text(encoding="utf-8")))
        except (json.JSONDecodeError, KeyError, TypeError) as ex:
            raise ValueError(
                f"{path}: unreadable tournament state ({type(ex).__name__}: {ex})"
            ) from None
        return cls(folder, state, model_factory, **eval_args)

    def save(self) -> None:
        """Write the state atomically (a crash leaves the old or the new file, never half)."""
        path = self.folder / STATE_FILE
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.state.record(), indent=1), encoding="utf-8")
        os.replace(tmp, path)

    @property
    def config(self) -> TournamentConfig:
        """The settings the tournament was started with (kept in ``state.json``)."""
        return self.state.config

    def swiss_rounds(self) -> int:
        """Swiss rounds to play: the configured count, else ⌈log2 n⌉."""
        return (
            self.config.rounds
            if self.config.rounds is not None
            else swiss_rounds(len(self.config.models))
        )

    def run(self) -> Ratings:
        """Finish any interrupted stage, then play the remaining Swiss rounds."""
        self._resume()
        played = sum(s.name.startswith("round ") for s in self.state.stages)
        for number in range(played + 1, self.swiss_rounds() + 1):
            ranking = [m for m in self.state.ranking() if m in self.config.models]
            byes = {m: sum(s.bye == m for s in self.state.stages) for m in ranking}
            pairs, bye = swiss_round(ranking, self.state.played(), byes)
            self._play(
                Stage(
                    f"round {number}",
                    [self._pairing(a, b, f"round {number}", ranking) for a, b in pairs],
                    bye,
                )
            )
        return self.state.ratings()

    def add(self, model: str, prior: float | None = None) -> Ratings:
        """Add ``model``: its first opponent is its neighbour in the prior order, then the
        nearest-rated models it has not met, ⌈log2 n⌉ battles in all (n counts it)."""
        self._resume()
        played = sum(s.name.startswith("round ") for s in self.state.stages)
        if played < self.swiss_rounds():
            raise ValueError(
                f"{self.folder}: {played} of {self.swiss_rounds()} Swiss rounds played; finish them first (arenahard tournament run)"
            )
        if model in self.config.models:
            raise ValueError(f"{model} already plays in this tournament")
        if model not in self.state.models:
            self._join(model, prior)
        target = self.state.additions[model]
        done = [s for s in self.state.stages if s.name.startswith(f"add {model} ")]
        for k in range(len(done) + 1, target + 1):
            ranking = self.state.prior_order if k == 1 else self.state.ranking()
            opponent = nearest_opponent(model, ranking, self.state.played())
            name = f"add {model} {k}/{target}"
            self._play(
                Stage(
                    name, [self._pairing(*self._sides(model, opponent), name, self.state.ranking())]
                )
            )
        return self.state.ratings()

    def _join(self, model: str, prior: float | None) -> None:
        """Place a newcomer in the prior order by its prior score, else mid-table."""
        score = prior if prior is not None else self.state.prior.get(model)
        order = self.state.prior_order
        if score is None:
            position = len(order) // 2
        else:
            self.state.prior[model] = score
            position = sum(self.state.prior.get(m, float("-inf")) >= score for m in order)
        self.state.prior_order = [*order[:position], model, *order[position:]]
        self.state.models.append(model)
        self.state.additions[model] = swiss_rounds(len(self.state.models))
        self.save()

    def _sides(self, a: str, b: str) -> tuple[str, str]:
        ranking = self.state.ranking()
        return (a, b) if ranking.index(a) <= ranking.index(b) else (b, a)

    def _pairing(self, model: str, opponent: str, stage: str, ranking: list[str]) -> Pairing:
        players = [model, opponent]
        committee = committee_for(
            ranking,
            players,
            self.config.committee_size,
            self.config.exclude_families,
            self.config.families,
        )
        reference = (
            next((m for m in ranking if m not in players), None) if self.config.reference else None
        )
        seed = zlib.crc32(f"{self.config.seed}:{stage}:{model}:{opponent}".encode())
        return Pairing(model, opponent, seed, committee, reference)

    def _resume(self) -> None:
        for stage in self.state.stages:
            if not stage.done:
                self._finish(stage)

    def _play(self, stage: Stage) -> None:
        self.state.stages.append(stage)
        self.save()
        self._finish(stage)

    def _finish(self, stage: Stage) -> None:
        """Run the stage's unfinished pairings, record their logs, then refit the ratings."""
        self._adopt_logs(stage)
        pending = [p for p in stage.pairings if p.log is None]
        if pending:
            self._run_pairings(stage, pending)
        stage.ratings = self.refit().record()
        self.save()

    def _run_pairings(self, stage: Stage, pending: list[Pairing]) -> None:
        from inspect_ai import eval as inspect_eval

        tasks = [self._task(p) for p in pending]
        args = {
            "display": "none",
            "max_tasks": len(tasks),
            **self.config.eval_args,
            **self.eval_args,
        }
        logs = inspect_eval(tasks, log_dir=str(self.folder / LOGS), **args)
        by_key = {(log.eval.model, log.eval.task_args.get("seed")): log for log in logs}
        failed = []
        for p in pending:
            log = by_key.get((p.model, p.seed))
            results = log.results if log is not None else None
            if (
                log is not None
                and log.status == "success"
                and results
                and results.completed_samples == results.total_samples
            ):
                p.log = os.path.relpath(log.location, self.folder)
            else:
                reason = (
                    "no log"
                    if log is None
                    else (log.error.message if log.error else f"status {log.status}")
                )
                failed.append(f"{p.model} vs {p.opponent}: {reason}")
        self.save()
        if failed:
            raise TournamentError(
                f"{stage.name}: {len(failed)} of {len(pending)} pairings failed ({'; '.join(failed)}); "
                f"finished pairings are saved in {self.folder}: run again to resume"
            )

    def _task(self, p: Pairing) -> Any:
        from inspect_ai import task_with

        from inspect_arenahard.arena.peer_battle import autoarena_battle

        roles: dict[str, Any] = {
            "opponent": self.model_factory(p.opponent),
            "committee": [self.model_factory(j) for j in p.committee],
        }
        if p.reference is not None:
            roles["reference"] = self.model_factory(p.reference)
        task = autoarena_battle(
            questions=self.config.questions,
            battles=self.config.battles_per_pair,
            seed=p.seed,
            committee_rounds=self.config.committee_rounds,
            **self.config.task_args,
        )
        return task_with(task, model=self.model_factory(p.model), model_roles=roles)

    def _adopt_logs(self, stage: Stage) -> None:
        """Record complete logs already in ``logs/`` for pairings the state missed (a hard crash)."""
        from inspect_arenahard.logs.reader import log_files, read_header

        pending = {(p.model, p.opponent, p.seed): p for p in stage.pairings if p.log is None}
        if not pending or not (self.folder / LOGS).is_dir():
            return
        for path in log_files([self.folder / LOGS]):
            header = read_header(path)
            key = (header.model, header.roles.get("opponent"), header.task_args.get("seed"))
            if header.complete and key in pending and pending[key].log is None:
                pending[key].log = os.path.relpath(path, self.folder)

    def log_paths(self) -> list[Path]:
        """Every completed pairing's log."""
        return [
            self.folder / p.log for s in self.state.stages for p in s.pairings if p.log is not None
        ]

    def games(self) -> list[GameRecord]:
        """Game records of every completed pairing's log."""
        from inspect_arenahard.logs.reader import read_games

        paths = self.log_paths()
        return list(read_games(paths).games) if paths else []

    def refit(self) -> Ratings:
        """Ratings from every completed pairing plus the prior's ties."""
        return fit_ratings(
            self.games(),
            self.state.prior_order,
            prior_ties=self.config.prior_ties,
            anchor=self.config.anchor or self.config.prior_order()[0],
            rounds=self.config.bootstrap_rounds,
            seed=self.config.seed,
            ci_method=self.config.ci_method,
        )
