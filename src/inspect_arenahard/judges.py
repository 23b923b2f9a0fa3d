"""The ``pairwise_judge`` scorer: every judge plays two position-swapped games per sample.

Game 1 puts the baseline in position A and the model in B; game 2 swaps them. Games of all
judges bound to the ``judge`` role (a list is an ensemble) run concurrently. A judge whose reply
has no single verdict label is asked, in the same conversation, to finish with one (``retries``
times); a game that stays unparsed is recorded as unparsed — never as a tie. Answers reach the
judge only through :func:`inspect_arenahard.integrity.neutralise`, so the only label the parser can find is one the judge wrote itself.

Score contract (read by :mod:`inspect_arenahard.logs`; keep it small):

* ``value``: the model's Arena-Hard points against the baseline over all parsed games (win 1,
  tie 0.5, loss 0; strong verdicts weigh ``strong_weight``), or unscored when none parsed.
* ``metadata``: ``model``, ``baseline``, ``category``, ``strong_weight``, ``games`` (one dict
  per game: ``judge``, ``game``, ``model_position``, ``label``, ``parsed``, ``attempts``),
  ``style`` (``model``/``baseline`` features from :mod:`inspect_arenahard.style`) and
  ``neutralised`` (per text shown to the judge — ``question``, ``model``, ``baseline``,
  ``reference`` — the spans :mod:`inspect_arenahard.integrity` neutralised).
* ``explanation``: every game's full judge reasoning, for ``inspect view``.

With ``committee_rounds`` set, each game is decided by a committee discussion instead
(:mod:`inspect_arenahard.committee`): ``games`` holds the committee's majority label per game
(judge ``committee``) and ``metadata["committee"]`` every member's verdict in every round.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable

from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    get_model,
    model_roles,
)
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState
from inspect_ai.util import collect

from inspect_arenahard.integrity import neutralise_all
from inspect_arenahard.solve import BASELINE_ANSWER, BASELINE_MODEL, REFERENCE_ANSWER
from inspect_arenahard.style import style_features
from inspect_arenahard.templates import template
from inspect_arenahard.verdicts import LABELS, STRONG_WEIGHT, Position, parse_verdict, weighted_points


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


def judge_models(default: str | None) -> list[Model]:
    """Models bound to the ``judge`` role (several = an ensemble), else the version's default."""
    bound = model_roles().get("judge")
    if bound is None:
        if default is None:
            raise ValueError("no judge: bind one with --model-role judge=<model>")
        return [get_model(default)]
    return list(bound) if isinstance(bound, list) else [bound]


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
        a, b = (self.baseline_answer, self.model_answer) if game == 1 else (self.model_answer, self.baseline_answer)
        return model_position, [
            ChatMessageSystem(content=self.system),
            ChatMessageUser(content=judge_prompt(self.question, a, b, self.reference)),
        ]


@dataclass
class Reply:
    """A judge's answer to one request: the label, every reply text and the whole conversation."""

    label: str | None
    attempts: int
    replies: list[str]
    messages: list[ChatMessage]

    @property
    def text(self) -> str:
        return "\n\n[follow-up]\n".join(self.replies)


async def ask_verdict(
    judge: Model,
    messages: list[ChatMessage],
    parse: Callable[[str], str | None],
    labels: str,
    config: GenerateConfig,
    retries: int,
    cache: bool | CachePolicy,
) -> Reply:
    """Ask ``judge`` until ``parse`` finds a label, with up to ``retries`` follow-up turns.

    Shared by every judging protocol (pairwise games, committees, debates) so that a missing
    label is handled the same way everywhere. ``labels`` lists the accepted labels for the
    follow-up turn.
    """
    messages = list(messages)
    output = await judge.generate(messages, config=config, cache=cache)
    replies = [output.completion]
    label = parse(output.completion)
    while label is None and len(replies) <= retries:
        # follow-ups are never cached: a re-run must ask again rather than replay a failure
        messages += [output.message, ChatMessageUser(content=template("judge_retry").format(labels=labels))]
        output = await judge.generate(messages, config=config, cache=False)
        replies.append(output.completion)
        label = parse(output.completion)
    return Reply(label=label, attempts=len(replies), replies=replies, messages=[*messages, output.message])


async def play_game(
    judge: Model,
    game: int,
    matchup: Matchup,
    config: GenerateConfig,
    retries: int,
    single_brackets: bool,
    cache: bool | CachePolicy,
) -> Game:
    """Ask ``judge`` for one verdict; game 1 shows the baseline as A, game 2 as B."""
    model_position, messages = matchup.messages(game)
    reply = await ask_verdict(
        judge, messages, lambda text: parse_verdict(text, single_brackets), label_list(), config, retries, cache
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


def label_list() -> str:
    """The five labels as the judge must write them, for follow-up turns."""
    return ", ".join(f"[[{label}]]" for label in LABELS)


def score_games(games: list[Game], strong_weight: float) -> float | None:
    """Weighted win-rate of the model over parsed games; None when no game parsed."""
    points = weight = 0.0
    for game in games:
        if game.label is not None:
            p, w = weighted_points(game.label, game.model_position, strong_weight)
            points += p
            weight += w
    return points / weight if weight else None


def explain(games: list[Game]) -> str:
    parts = []
    for g in games:
        verdict = f"[[{g.label}]]" if g.label else "unparsed"
        parts.append(
            f"### {g.judge} · game {g.game} (model is Assistant {g.model_position}) → {verdict}\n\n{g.reasoning}"
        )
    return "\n\n".join(parts)


@scorer(metrics=[mean(), stderr()])
def pairwise_judge(
    default_judge: str | None = "openai/gpt-4.1",
    template_name: str = "judge_system",
    template_by_category: dict[str, str] | None = None,
    temperature: float = 0.0,
    max_tokens: int = 16000,
    retries: int = 1,
    single_brackets: bool = False,
    strong_weight: float = STRONG_WEIGHT,
    cache: bool | CachePolicy = True,
    token_encoding: str = "cl100k_base",
    committee_rounds: int | None = None,
) -> Scorer:
    """Arena-Hard pairwise judging against the baseline, in both orders, for every judge.

    Args:
        default_judge: Judge used when the ``judge`` role is not bound.
        template_name: Judge system prompt in ``scorers/templates``.
        template_by_category: Per-category system prompt overrides (v2.0 creative writing).
        temperature: Judge temperature (role models do not inherit ``--temperature``).
        max_tokens: Judge output limit (role models do not inherit ``--max-tokens``).
        retries: Follow-up turns asking for a verdict label when none parsed.
        single_brackets: Accept ``[A>B]`` when no ``[[A>B]]`` is present (v2.0).
        strong_weight: Weight of a significant (``>>``) verdict.
        cache: Inspect model cache for first judge replies (re-runs cost no judge calls).
        token_encoding: Tokenizer for the answers' style features (as the version stores them).
        committee_rounds: When set, the models bound to the ``committee`` role deliberate each
            game with this many discussion rounds (:mod:`inspect_arenahard.committee`) and
            the committee's majority label is the game's verdict (judge ``committee``).
    """
    config = GenerateConfig(temperature=temperature, max_tokens=max_tokens)
    by_category = template_by_category or {}

    async def score(state: TaskState, target: Target) -> Score:
        baseline_answer = state.metadata.get(BASELINE_ANSWER)
        if baseline_answer is None:
            raise ValueError(
                f"sample {state.sample_id}: no baseline answer (stored answers missing and the "
                "'baseline' model role is not bound)"
            )
        model_answer = state.output.completion
        category = state.metadata.get("category")
        system = template(by_category.get(category or "", template_name))
        shown, neutralised = neutralise_all(
            {
                "question": state.input_text,
                "model": model_answer,
                "baseline": baseline_answer,
                "reference": state.metadata.get(REFERENCE_ANSWER),
            }
        )
        matchup = Matchup(system, shown["question"] or "", shown["model"] or "", shown["baseline"] or "", shown["reference"])
        committee: dict[str, Any] = {}
        if committee_rounds is None:
            games: list[Game] = await collect(
                *(
                    play_game(judge, game, matchup, config, retries, single_brackets, cache)
                    for judge in judge_models(default_judge)
                    for game in (1, 2)
                )
            )
        else:
            from inspect_arenahard.committee import committee_games  # the committee builds on this module

            games, committee = await committee_games(matchup, committee_rounds, config, retries, single_brackets, cache)
        metadata: dict[str, Any] = {
            "model": str(state.model),
            "baseline": state.metadata.get(BASELINE_MODEL),
            "category": category,
            "strong_weight": strong_weight,
            "games": [{k: v for k, v in asdict(g).items() if k != "reasoning"} for g in games],
            "style": {
                "model": style_features(model_answer, token_encoding),
                "baseline": style_features(baseline_answer, token_encoding),
            },
            "neutralised": neutralised,
            **committee,
        }
        labels = ", ".join(f"g{g.game}:{g.label or 'unparsed'}" for g in games)
        value = score_games(games, strong_weight)
        if value is None:
            return Score.unscored(
                reason="no judge verdict parsed", answer=labels, explanation=explain(games), metadata=metadata
            )
        return Score(value=value, answer=labels, explanation=explain(games), metadata=metadata)

    return score
