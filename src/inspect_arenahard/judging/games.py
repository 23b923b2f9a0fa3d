"""What every judging protocol shares: asking a judge for a label, the two position-swapped
games of a pairwise comparison, and the models bound to a role.

The pairwise judge of the ``arenahard`` task, committees
(``inspect_arenahard.judging.committee``), ScaleEval debates, Auto-Arena battles, probes and prompt
annotation all build on this module, so a missing label, a follow-up turn and a role binding are
handled the same way everywhere. It imports no protocol module (no import cycles).

A ``Game`` is one judge's verdict on one ordering of two answers; ``Game.scored`` is
its entry in the score contract (``inspect_arenahard.stats.game_record.ScoredGame``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    model_roles,
)

from inspect_arenahard.judging.templates import template
from inspect_arenahard.judging.verdicts import parse_verdict
from inspect_arenahard.stats.game_record import ScoredGame, points_over
from inspect_arenahard.stats.sample_usage import SampleUsage, sample_usage
from inspect_arenahard.stats.verdict_points import LABELS, Position

REFERENCE_ANSWER = "reference"
"""Sample metadata key of a reference answer (stored, or written by a live ``reference`` role)."""


def role_bound(role: str) -> bool:
    """Whether ``--model-role <role>=...`` (or ``model_roles=``) bound a model to ``role``."""
    return role in model_roles()


@dataclass(frozen=True)
class JudgeSettings:
    """How a judge is asked: generation config, follow-up turns for a missing label, and the
    Inspect cache for first replies (follow-ups are never cached)."""

    config: GenerateConfig = field(default_factory=lambda: GenerateConfig(temperature=0.0))
    retries: int = 1
    cache: bool | CachePolicy = True


def role_models(role: str, at_least: int = 0, what: str = "judges") -> list[Model]:
    """The models bound to ``role`` (a list binding is several; none bound is an empty list).

    With ``at_least`` (a committee or a debate needs 2), fewer bound models is an error telling
    how to bind them; ``what`` names the members in it.
    """
    bound = model_roles().get(role)
    models = [] if bound is None else list(bound) if isinstance(bound, list) else [bound]
    if len(models) < at_least:
        raise ValueError(
            f"the {role} role needs at least {at_least} {what}, got {len(models)}: bind them with "
            f"--model-role {role}=<model>,<model>[,<model>...]"
        )
    return models


def label_list() -> str:
    """The five labels as the judge must write them, for follow-up turns."""
    return ", ".join(f"[[{label}]]" for label in LABELS)


@dataclass
class Reply:
    """A judge's answer to one request: the label, every reply text and the whole conversation."""

    label: str | None
    attempts: int
    replies: list[str]
    messages: list[ChatMessage]

    @property
    def text(self) -> str:
        """Every reply, follow-ups marked: the game's reasoning."""
        return "\n\n[follow-up]\n".join(self.replies)


async def ask_verdict(
    judge: Model,
    messages: list[ChatMessage],
    parse: Callable[[str], str | None],
    labels: str,
    settings: JudgeSettings,
) -> Reply:
    """Ask ``judge`` until ``parse`` finds a label, with up to ``settings.retries`` follow-up turns.

    ``labels`` lists the accepted labels for the follow-up turn.
    """
    messages = list(messages)
    output = await judge.generate(messages, config=settings.config, cache=settings.cache)
    replies = [output.completion]
    label = parse(output.completion)
    while label is None and len(replies) <= settings.retries:
        # follow-ups are never cached: a re-run must ask again rather than replay a failure
        messages += [
            output.message,
            ChatMessageUser(content=template("judge_retry").format(labels=labels)),
        ]
        output = await judge.generate(messages, config=settings.config, cache=False)
        replies.append(output.completion)
        label = parse(output.completion)
    return Reply(
        label=label, attempts=len(replies), replies=replies, messages=[*messages, output.message]
    )


@dataclass
class Game:
    """One judge's verdict on one ordering of the two answers."""

    judge: str
    game: int
    model_position: Position
    label: str | None
    parsed: bool
    attempts: int
    reasoning: str

    def scored(self) -> ScoredGame:
        """The game in the score contract: everything but the reasoning (that is the explanation)."""
        return ScoredGame(
            self.judge, self.game, self.model_position, self.label, self.parsed, self.attempts
        )


def judge_prompt(question: str, answer_a: str, answer_b: str, reference: str | None) -> str:
    """The judge's user turn: the prompt, an optional reference, and both answers delimited."""
    if reference is not None:
        return template("judge_user_reference").format(
            question=question, reference=reference, answer_a=answer_a, answer_b=answer_b
        )
    return template("judge_user").format(question=question, answer_a=answer_a, answer_b=answer_b)


@dataclass(frozen=True)
class Matchup:
    """What every game of one sample shows its judges: system prompt, question and answers."""

    system: str
    question: str
    model_answer: str
    baseline_answer: str
    reference: str | None

    def messages(self, game: int) -> tuple[Position, list[ChatMessage]]:
        """(model position, judge conversation): game 1 shows the baseline as A, game 2 as B."""
        model_position: Position = "B" if game == 1 else "A"
        a, b = (
            (self.baseline_answer, self.model_answer)
            if game == 1
            else (self.model_answer, self.baseline_answer)
        )
        return model_position, [
            ChatMessageSystem(content=self.system),
            ChatMessageUser(content=judge_prompt(self.question, a, b, self.reference)),
        ]


async def play_game(
    judge: Model, game: int, matchup: Matchup, settings: JudgeSettings, single_brackets: bool
) -> Game:
    """Ask ``judge`` for one verdict; game 1 shows the baseline as A, game 2 as B."""
    model_position, messages = matchup.messages(game)
    reply = await ask_verdict(
        judge, messages, lambda text: parse_verdict(text, single_brackets), label_list(), settings
    )
    return Game(
        judge=str(judge),
        game=game,
        model_position=model_position,
        label=reply.label,
        parsed=reply.label is not None,
        attempts=reply.attempts,
        reasoning=reply.text,
    )


def score_games(games: list[Game], strong_weight: int) -> float | None:
    """Weighted win-rate of the model over parsed games; None when no game parsed."""
    points, weight = points_over((g.scored() for g in games), strong_weight)
    return points / weight if weight else None


def explain(games: list[Game]) -> str:
    """Every game's verdict and full reasoning, for ``inspect view``."""
    parts = []
    for g in games:
        verdict = f"[[{g.label}]]" if g.label else "unparsed"
        parts.append(
            f"### {g.judge} · game {g.game} (model is Assistant {g.model_position}) → {verdict}\n\n{g.reasoning}"
        )
    return "\n\n".join(parts)


def calls_so_far() -> SampleUsage:
    """Every model call of the running sample so far (the model's, a live baseline's or an
    opponent's, the judges'), from its transcript: what a judge score records for the cost
    report."""
    fields: Any = {"event": True, "role": True, "model": True, "cache": True, "output": {"usage"}}
    return sample_usage(
        event.model_dump(include=fields)
        for event in transcript().events
        if isinstance(event, ModelEvent)
    )
