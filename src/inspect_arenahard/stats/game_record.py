"""The game record, from the judge's score to the ranking: the contract between stages.

Two halves. Upstream, ``GameScore`` is what every judge scorer writes as a sample's score
metadata (the ``pairwise_judge`` scorer, imported arena-hard-auto judgments, Auto-Arena's peer
battles): built as this frozen type and turned into JSON by ``GameScore.metadata``, read back
by ``GameScore.parse``, so writers and the reader cannot disagree on a key. Downstream, each
game becomes a ``GameRecord`` (``GameScore.records``): what
``inspect_arenahard.logs.reader.read_games`` yields, ``--games FILE`` holds, and
``stats.battles``, ``stats.judge_bias``, ``inspect_arenahard.report.dataframes`` and the report
read. Records stay plain dicts (built fast, written as JSON unchanged); ``GameRecord`` types
them and ``check_game`` is the one validator, applied where records enter from outside (a
log's score metadata, a JSONL line, records handed to the statistics).

Pure (no Inspect imports), so ``stats/`` can use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, cast

from inspect_arenahard.stats.sample_usage import SampleUsage
from inspect_arenahard.stats.verdict_points import (
    LABELS,
    STRONG_WEIGHT,
    Position,
    check_strong_weight,
    normalize_label,
    weighted_points,
)

CANARY = "canary"
"""Sample and score metadata key: true on a canary (``inspect_arenahard.evaluate.canaries``)."""


def is_canary(metadata: Mapping[str, Any] | None) -> bool:
    """Whether sample (or score) metadata marks a canary."""
    return bool((metadata or {}).get(CANARY))


class _RecordCore(TypedDict):
    question_id: str
    model: str
    """The model under test (the ``--model`` player in Auto-Arena battles)."""
    baseline: str
    """The model it is compared with (its opponent in battles)."""
    judge: str
    """Judge model, or ``committee`` for a committee's majority verdict."""
    game: int
    """1: baseline shown as A; 2: positions swapped (battles have game 1 only)."""
    model_position: Position
    label: str | None
    """A verdict label about A vs B (``inspect_arenahard.stats.verdict_points.LABELS``, or a mirrored
    spelling); None when unparsed."""


class GameRecord(_RecordCore, total=False):
    """One judged game. The log reader fills every key; other producers may leave out the
    optional ones (``parsed`` then defaults to "a label is present")."""

    parsed: bool
    category: str | None
    epoch: int
    style: Mapping[str, Any] | None
    """``{"model": features, "baseline": features}`` from ``inspect_arenahard.judging.style_features``."""
    version: str | None
    """Arena-Hard version of the run (picks the official scoring rules)."""
    log: str
    """The log file the game was read from."""
    protocol: str
    """The scorer that judged it (``pairwise_judge``, ``autoarena_committee``): part of a game's
    identity (``inspect_arenahard.logs.reader.game_key``)."""
    strong_weight: int
    """Battles a strong (``>>``) verdict counts for, as the judge scorer scored it; ranking uses
    it unless told otherwise and refuses games with different weights."""
    settings: str
    """The run's verdict-changing judge settings as canonical JSON (template, temperature,
    max tokens, reference, neutralisation rules …): games with different settings are not pooled
    silently (``inspect_arenahard.logs.reader.check_settings``)."""
    canary: bool
    """A canary game (fixed shipped answers, judged in every run): never ranked; the reader keeps
    these apart (``LogGames.canaries``) to compare a judge's runs (``inspect_arenahard.stats.drift``)."""


RECORD_FIELDS: tuple[str, ...] = tuple(_RecordCore.__annotations__)
"""Fields every game record has (a JSONL file of records, judge analytics)."""
BATTLE_FIELDS: tuple[str, ...] = ("question_id", "model", "baseline", "model_position")
"""Fields ranking needs (``stats.battles.from_games``: no label means unparsed)."""
SCORED_GAME_FIELDS: tuple[str, ...] = ("judge", "game", "model_position", "label", "parsed")
"""Fields of one entry of a judge score's ``metadata["games"]`` (the per-game part of a record)."""


def check_game(record: Any, where: str, fields: Sequence[str] = RECORD_FIELDS) -> GameRecord:
    """``record`` as a ``GameRecord``, after checking it has ``fields`` and that its position
    and label (when present) are valid; otherwise one ``ValueError`` starting with ``where``
    (the file and line, log and sample, or record number) that names the field."""
    if not isinstance(record, Mapping):
        raise ValueError(f"{where}: a game record must be an object, got {type(record).__name__}")
    missing = [name for name in fields if name not in record]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    position = record.get("model_position", "A")
    if position not in ("A", "B"):
        raise ValueError(f"{where}: field 'model_position' must be 'A' or 'B', got {position!r}")
    label = record.get("label")
    if label is not None and (not isinstance(label, str) or normalize_label(label) is None):
        raise ValueError(
            f"{where}: field 'label': unknown verdict label {label!r}; expected one of {', '.join(LABELS)}"
        )
    return cast(GameRecord, record)


@dataclass(frozen=True, slots=True)
class ScoredGame:
    """One game as a judge scorer writes it: an entry of the score metadata's ``games``."""

    judge: str
    """Judge model, or ``committee`` for a committee's majority verdict."""
    game: int
    """1: baseline shown as A; 2: positions swapped (battles have game 1 only)."""
    model_position: Position
    label: str | None
    """A verdict label about A vs B; None when the judge's reply had none."""
    parsed: bool
    attempts: int = 1
    """Judge calls the game took (retries asking for a missing label; 0: imported null game)."""

    def record(self) -> dict[str, Any]:
        """The JSON entry (the reasoning is the score's explanation, not metadata)."""
        return {
            "judge": self.judge,
            "game": self.game,
            "model_position": self.model_position,
            "label": self.label,
            "parsed": self.parsed,
            "attempts": self.attempts,
        }

    @classmethod
    def parse(cls, raw: Any, where: str) -> ScoredGame:
        """A scored game from its JSON entry, or one ``ValueError`` naming ``where`` and the field."""
        try:  # the common case first: a well-formed entry (logs hold many)
            judge, number, position = raw["judge"], raw["game"], raw["model_position"]
            label, parsed, attempts = raw["label"], raw["parsed"], raw.get("attempts", 1)
            well_formed = (
                type(number) is int
                and position in ("A", "B")
                and (label is None or label in LABELS)
            )
        except (KeyError, TypeError, AttributeError):
            well_formed = False
        if not well_formed:
            game = check_game(raw, where, SCORED_GAME_FIELDS)  # raises, naming the field
            judge, number, position = game["judge"], game["game"], game["model_position"]
            label, parsed, attempts = game["label"], game["parsed"], game.get("attempts", 1)
            if not isinstance(number, int) or isinstance(number, bool):
                raise ValueError(f"{where}: field 'game' must be a game number, got {number!r}")
        return cls(
            judge=str(judge),
            game=number,
            model_position=position,
            label=label,
            parsed=bool(parsed),
            attempts=attempts if isinstance(attempts, int) else 1,
        )


ANSWER_AUDIT_VERSION = 1
"""Version of the per-answer audit record (``AnswerAudit``)."""
SCORE_RECORDS = "score_records"
"""The task metadata key whose value, ``SCORE_RECORDS_VERSION``, says in a log's header that
its judge scorer wrote an ``AnswerAudit`` and a ``SampleUsage`` into every sample's score (the
log reader then needs no full sample for the audit and the cost)."""
SCORE_RECORDS_VERSION = 1


AnswerAuditRow = tuple[
    tuple[tuple[str, tuple[str, ...]], ...], bool, bool, int, int | None, str | None, float | None
]
"""``AnswerAudit`` as plain values (``AnswerAudit.row``): injection pairs sorted by kind, then
the fields in order."""


@dataclass(frozen=True)
class AnswerAudit:
    """What the audit needs of one answer, computed where the texts are at hand (the judge
    scorer, the importer) so that the leaderboard's audit flags come from the sample summaries
    (``inspect_arenahard.judging.answer_audit.answer_audit`` builds it)."""

    injection: Mapping[str, tuple[str, ...]]
    """Each kind of judge-directed text the answer carries and its prompt does not, with the
    spellings it was written in (``inspect_arenahard.judging.injection.injection_findings``)."""
    empty: bool
    cut: bool
    """Not empty, and stopped at the token limit or ending inside a code block."""
    answer_chars: int
    baseline_chars: int | None
    """None when the sample had no baseline answer."""
    sketch: str | None
    """A SimHash of the answer's character 5-grams (base64), from which the cosine similarity of
    two answers is estimated; None when the answer has no 5-gram (blank)."""
    off_prompt_rank: float | None
    """The share of the benchmark's other prompts closer to the answer than its own (word
    TF-IDF cosine); None when the writer did not know the benchmark's prompts."""

    def metadata(self) -> dict[str, Any]:
        """The compact JSON entry (under 1 KB, so Inspect keeps it in the sample summary)."""
        return {
            "v": ANSWER_AUDIT_VERSION,
            "injection": {kind: list(sp) for kind, sp in sorted(self.injection.items())},
            "empty": self.empty,
            "cut": self.cut,
            "chars": self.answer_chars,
            "baseline_chars": self.baseline_chars,
            "sketch": self.sketch,
            "off_prompt": self.off_prompt_rank,
        }

    def row(self) -> AnswerAuditRow:
        """The record as a tuple of plain values: a reader keeping thousands of them leaves the
        garbage collector nothing to rescan (a tuple of strings and numbers is not tracked)."""
        return (
            tuple(sorted(self.injection.items())) if self.injection else (),
            self.empty,
            self.cut,
            self.answer_chars,
            self.baseline_chars,
            self.sketch,
            self.off_prompt_rank,
        )

    @classmethod
    def from_row(cls, row: AnswerAuditRow) -> AnswerAudit:
        """The record ``row`` gave."""
        injection, empty, cut, chars, baseline_chars, sketch, rank = row
        return cls(dict(injection), empty, cut, chars, baseline_chars, sketch, rank)

    @classmethod
    def parse(cls, raw: Any, where: str) -> AnswerAudit | None:
        """The record of a score's ``audit`` entry; None for a record of another version (the
        audit then reads the sample in full), or one ``ValueError`` naming ``where``."""
        if not isinstance(raw, Mapping) or raw.get("v") != ANSWER_AUDIT_VERSION:
            return None
        try:
            injection = {str(k): tuple(map(str, v)) for k, v in raw["injection"].items()}
            rank = raw["off_prompt"]
            base = raw["baseline_chars"]
            return cls(
                injection=injection,
                empty=bool(raw["empty"]),
                cut=bool(raw["cut"]),
                answer_chars=int(raw["chars"]),
                baseline_chars=None if base is None else int(base),
                sketch=raw["sketch"],
                off_prompt_rank=None if rank is None else float(rank),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as ex:
            raise ValueError(f"{where}: field 'audit' is malformed ({ex!r})") from None


def points_over(games: Iterable[ScoredGame], strong_weight: int) -> tuple[float, float]:
    """(points × weight, weight) of the model summed over the parsed games: their ratio is its
    Arena-Hard score against the baseline (a strong verdict counts ``strong_weight`` times)."""
    points = weight = 0.0
    for game in games:
        if game.label is not None and game.parsed:
            p, w = weighted_points(game.label, game.model_position, strong_weight)
            points, weight = points + p, weight + w
    return points, weight


@dataclass(frozen=True)
class GameScore:
    """A judge score's metadata: who played whom, every game's verdict, and what the judge saw.

    The protocol's own details (a committee's rounds, a battle's turns) travel in ``committee``
    and ``battle``; a sample adaptive judging skipped has no games and names why in ``skipped``.
    """

    model: str | None
    """The model under test (the ``--model`` player in battles); None: the log's model."""
    baseline: str | None
    """The model it is compared with (its opponent in battles); required when there are games."""
    category: str | None
    games: tuple[ScoredGame, ...] = ()
    strong_weight: int = STRONG_WEIGHT
    style: Mapping[str, Any] | None = None
    """``{"model": features, "baseline": features}`` (``inspect_arenahard.judging.style_features``)."""
    neutralisation: str | None = None
    """Version of the rules that rewrote the answers the judge saw (a verdict-changing setting)."""
    neutralised: Mapping[str, Any] | None = None
    """Per text shown to the judge, the spans neutralised."""
    committee: Mapping[str, Any] | None = None
    """Every committee member's verdict in every round (committee protocols)."""
    battle: Mapping[str, Any] | None = None
    """A peer battle's sides and its cut or incomplete turns (Auto-Arena)."""
    skipped: str | None = None
    """Why adaptive judging did not need the sample (then there are no games)."""
    canary: bool = False
    """A canary (shipped answers judged in every run, ``inspect_arenahard.evaluate.canaries``):
    its games are never ranked; the log reader keeps them apart for the drift check."""
    audit: AnswerAudit | None = None
    """What the audit needs of the answer (``AnswerAudit``); None in logs written before it."""
    usage: SampleUsage | None = None
    """The sample's model calls per role (``inspect_arenahard.stats.sample_usage``); None in
    logs written before it."""

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "strong_weight", check_strong_weight(self.strong_weight, "strong_weight")
        )

    def points(self) -> float | None:
        """The model's Arena-Hard points over the parsed games (0–1); None when none parsed."""
        points, weight = points_over(self.games, self.strong_weight)
        return points / weight if weight else None

    def metadata(self) -> dict[str, Any]:
        """The score metadata (JSON): the contract every reader of judge logs relies on."""
        if self.skipped is not None:
            return {"skipped": self.skipped, "model": self.model, "category": self.category}
        out: dict[str, Any] = {
            "model": self.model,
            "baseline": self.baseline,
            "category": self.category,
            "strong_weight": self.strong_weight,
            "games": [game.record() for game in self.games],
            "style": None if self.style is None else dict(self.style),
        }
        optional = {
            "neutralisation": self.neutralisation,
            "neutralised": self.neutralised,
            "committee": self.committee,
            "battle": self.battle,
            "canary": True if self.canary else None,
            "audit": None if self.audit is None else self.audit.metadata(),
            "usage": None if self.usage is None else self.usage.metadata(),
        }
        out.update(
            {
                k: dict(v) if isinstance(v, Mapping) else v
                for k, v in optional.items()
                if v is not None
            }
        )
        return out

    @classmethod
    def parse(cls, metadata: Mapping[str, Any], where: str) -> GameScore:
        """The score of a log's metadata (any log this package wrote, older ones included), or
        one ``ValueError`` starting with ``where`` that names the field."""
        if metadata.get("skipped"):
            return cls(
                metadata.get("model"),
                None,
                metadata.get("category"),
                skipped=str(metadata["skipped"]),
            )
        raw_games = metadata.get("games") or []
        if not isinstance(raw_games, list):
            raise ValueError(
                f"{where}: field 'games' must be a list, got {type(raw_games).__name__}"
            )
        baseline = metadata.get("baseline")
        if raw_games and not isinstance(baseline, str):
            raise ValueError(f"{where}: field 'baseline' (the baseline model) is missing")
        weight = metadata.get("strong_weight")
        return cls(
            model=metadata.get("model") or None,
            baseline=baseline,
            category=metadata.get("category"),
            games=tuple(_parse_games(raw_games, where)),
            strong_weight=STRONG_WEIGHT if weight is None else _weight(weight, where),
            style=metadata.get("style"),
            neutralisation=metadata.get("neutralisation"),
            neutralised=metadata.get("neutralised"),
            committee=metadata.get("committee"),
            battle=metadata.get("battle"),
            canary=is_canary(metadata),
            audit=AnswerAudit.parse(metadata.get("audit"), where),
            usage=SampleUsage.parse(metadata.get("usage"), where),
        )

    def records(
        self,
        *,
        question_id: str,
        epoch: int,
        model: str,
        log: str,
        version: str | None,
        protocol: str,
        settings: str,
    ) -> list[GameRecord]:
        """One ``GameRecord`` per game; ``model`` stands in when the score names none, and
        ``settings`` (the run's verdict-changing settings, canonical JSON) travel in each."""
        return SampleGames.of(
            self,
            question_id=question_id,
            epoch=epoch,
            log_model=model,
            log=log,
            version=version,
            protocol=protocol,
            settings=settings,
        ).records()


@dataclass(frozen=True, slots=True)
class SampleGames:
    """One sample's games and where they were read: everything its game records hold, kept by
    the log reader in place of the records (``inspect_arenahard.stats.game_rows.GameRows``
    makes these on first use; a ranking reads its columns from these directly)."""

    question_id: str
    epoch: int
    model: str
    """The model under test, as its records name it (the score's, else the log's)."""
    baseline: str
    category: str | None
    games: tuple[ScoredGame, ...]
    style: Mapping[str, Any] | None
    strong_weight: int
    canary: bool
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
        """The games of ``score``, a sample of the log ``log`` whose model is ``log_model``."""
        return cls(
            question_id, epoch, score.model or log_model, str(score.baseline), score.category,
            score.games, score.style, score.strong_weight, score.canary, log, version, protocol,
            settings,
        )  # fmt: skip

    def records(self) -> list[GameRecord]:
        """Its game records, one per game in the score's order."""
        records: list[GameRecord] = [
            {
                "log": self.log,
                "question_id": self.question_id,
                "epoch": self.epoch,
                "model": self.model,
                "baseline": self.baseline,
                "judge": game.judge,
                "category": self.category,
                "game": game.game,
                "model_position": game.model_position,
                "label": game.label,
                "parsed": game.parsed,
                "style": self.style,
                "version": self.version,
                "protocol": self.protocol,
                "strong_weight": self.strong_weight,
                "settings": self.settings,
            }
            for game in self.games
        ]
        if self.canary:
            for record in records:
                record["canary"] = True
        return records

    def key(self, game: ScoredGame) -> tuple[Any, ...]:
        """The identity of one of its games (``inspect_arenahard.logs.reader.game_key`` of its record)."""
        return judgment_key(
            self.model, self.baseline, game.judge, self.question_id, self.epoch, game.game,
            self.protocol,
        )  # fmt: skip


def judgment_key(
    model: str, baseline: str, judge: str, question_id: str, epoch: int | None, game: int,
    protocol: str,
) -> tuple[Any, ...]:  # fmt: skip
    """A judgment's identity: the same game judged again has the same key (no epoch: the
    first)."""
    return (model, baseline, judge, question_id, epoch or 1, game, protocol)


def _parse_games(raw_games: list[Any], where: str) -> Iterable[ScoredGame]:
    for k, raw in enumerate(raw_games):
        yield ScoredGame.parse(raw, f"{where} games[{k}]")


def _weight(value: Any, where: str) -> int:
    try:
        return check_strong_weight(value, "strong_weight")
    except ValueError as ex:
        raise ValueError(f"{where}: {ex}") from None
