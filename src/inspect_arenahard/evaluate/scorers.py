"""The ``pairwise_judge`` scorer: every judge plays two position-swapped games per sample.

Game 1 puts the baseline in position A and the model in B; game 2 swaps them. Games of all
judges bound to the ``judge`` role (a list is an ensemble) run concurrently. A judge whose reply
has no single verdict label is asked, in the same conversation, to finish with one (``retries``
times); a game that stays unparsed is recorded as unparsed — never as a tie. Answers reach the
judge only through ``inspect_arenahard.judging.integrity.neutralise``, so the only label the parser can find is one the judge wrote itself.

Score contract (read by ``inspect_arenahard.logs.reader``):

* ``value``: the model's Arena-Hard points against the baseline over all parsed games (win 1,
  tie 0.5, loss 0; strong verdicts weigh ``strong_weight``), or unscored when none parsed.
* ``metadata``: a ``inspect_arenahard.stats.game_record.GameScore`` (its fields are the
  keys): ``model``, ``baseline``, ``category``, ``strong_weight``, ``games`` (one
  ``ScoredGame`` per game), ``style``,
  ``neutralisation`` (``inspect_arenahard.judging.integrity.NEUTRALISE_VERSION``) and
  ``neutralised`` (per text shown to the judge — ``question``, ``model``, ``baseline``,
  ``reference`` — the spans ``inspect_arenahard.judging.integrity`` neutralised) and ``audit``
  (what the audit needs of the answer: ``inspect_arenahard.stats.game_record.AnswerAudit``);
  ``usage``: the sample's model calls per role and serving model
  (``inspect_arenahard.stats.sample_usage.SampleUsage``), for the cost report.
* ``explanation``: every game's full judge reasoning, for ``inspect view``.
* A canary (``inspect_arenahard.evaluate.canaries``) is unscored (no metric counts it); its
  ``GameScore`` has ``canary`` true and ``model`` the canary pair's model; its games were asked
  without Inspect's cache.
* A sample that adaptive judging skipped (``inspect_arenahard.evaluate.adaptive``) is unscored,
  its ``GameScore`` has no games and says why in ``skipped``.

With ``committee_rounds`` set, each game is decided by a committee discussion instead
(``inspect_arenahard.judging.committee``): ``games`` holds the committee's majority label per game
(judge ``committee``) and ``committee`` every member's verdict in every round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from anyio import to_thread
from inspect_ai.model import CachePolicy, GenerateConfig, Model, get_model
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState
from inspect_ai.util import collect

from inspect_arenahard.evaluate.adaptive import judged, skipped_score
from inspect_arenahard.evaluate.canaries import CANARY_MODEL
from inspect_arenahard.evaluate.solvers import BASELINE_ANSWER, BASELINE_MODEL
from inspect_arenahard.evaluate.version_config import JudgeDefaults, VersionConfig
from inspect_arenahard.judging.answer_audit import PromptIndex, answer_audit
from inspect_arenahard.judging.committee import committee_games
from inspect_arenahard.judging.games import (
    REFERENCE_ANSWER,
    Game,
    JudgeSettings,
    Matchup,
    calls_so_far,
    explain,
    play_game,
    role_models,
)
from inspect_arenahard.judging.integrity import NEUTRALISE_VERSION, neutralise_all
from inspect_arenahard.judging.style_features import style_features
from inspect_arenahard.judging.templates import template
from inspect_arenahard.stats.game_record import GameScore, is_canary
from inspect_arenahard.stats.verdict_points import (
    STRONG_WEIGHT,
    check_strong_weight,
    weighted_points,
)


def judge_models(default: str | None) -> list[Model]:
    """Models bound to the ``judge`` role (several = an ensemble), else the version's default."""
    bound = role_models("judge")
    if bound:
        return bound
    if default is None:
        raise ValueError("no judge: bind one with --model-role judge=<model>")
    return [get_model(default)]


def _parsed(game: Mapping[str, Any]) -> bool:
    return bool(game.get("label")) and bool(game.get("parsed", True))


def headline_score(
    scores: Iterable[tuple[object, Mapping[str, Any]]], unparsed: str = "game"
) -> float | None:
    """The score ``arenahard leaderboard`` gives one run's model, in percent against the baseline
    (None: no game counts), from ``(sample id, score metadata)`` pairs.

    It follows the leaderboard's rules: points pooled over the parsed games with strong verdicts
    weighted (for one model against its baseline, Bradley–Terry's fitted win-rate and the mean
    score are both this ratio); under the ``pair`` rule (v2.0's official code) a judge's two games
    of a prompt count only when both parsed; and when categories have different baselines
    (v2.0), each category's score is weighted by its prompts with a parsed game, as the
    leaderboard's combined score is (``inspect_arenahard.stats.combined``).
    """
    points: dict[Any, float] = {}
    weight: dict[Any, float] = {}
    prompts: dict[Any, set[object]] = {}
    baselines: set[Any] = set()
    for sample_id, metadata in scores:
        category = metadata.get("category")
        strong = metadata.get("strong_weight", STRONG_WEIGHT)
        games = [g for g in metadata.get("games") or [] if isinstance(g, dict)]
        counted = [g for g in games if _parsed(g)]
        if counted:
            prompts.setdefault(category, set()).add(sample_id)
            baselines.add(metadata.get("baseline"))
        if unparsed == "pair":
            spoiled = {g.get("judge") for g in games if not _parsed(g)}
            counted = [g for g in counted if g.get("judge") not in spoiled]
        for game in counted:
            p, w = weighted_points(game["label"], game["model_position"], strong)
            points[category] = points.get(category, 0.0) + p
            weight[category] = weight.get(category, 0.0) + w
    if not sum(weight.values()):
        return None
    if len(prompts) <= 1 or len(baselines) <= 1:
        return 100 * sum(points.values()) / sum(weight.values())
    if any(not weight.get(c) for c in prompts):
        return None  # a category whose every judgment was left out: no combined score
    total = sum(len(ids) for ids in prompts.values())
    return sum(100 * points[c] / weight[c] * len(ids) / total for c, ids in prompts.items())


@metric
def games_vs_baseline(unparsed: str = "game") -> Metric:
    """The model's score against the baseline in percent, as ``arenahard leaderboard`` gives it
    for this run under the version's official rules (``headline_score``; ``unparsed``:
    ``game`` for v0.1, ``pair`` for v2.0). Shown first in the log header so that it and the
    leaderboard cannot disagree. ``mean`` beside it is the mean of per-sample scores (0–1), a
    different quantity on small runs."""

    def compute(scores: list[SampleScore]) -> float:
        value = headline_score(
            (
                (s.sample_id, s.score.metadata or {})
                for s in scores
                if not is_canary(s.score.metadata)
            ),
            unparsed,
        )
        return float("nan") if value is None else value

    return compute


@dataclass(frozen=True)
class PairwiseJudging:
    """How the pairwise judge judges: which judge, which prompt, how it is asked and how a
    verdict counts. A benchmark version sets it and task arguments override it
    (``inspect_arenahard.evaluate.task.pairwise_judging``). Each field is the ``pairwise_judge``
    argument of the same name and meaning, so a run's log records them as the scorer's options,
    where the log reader finds the verdict-changing ones."""

    default_judge: str | None = JudgeDefaults.model
    template_name: str = JudgeDefaults.template
    template_by_category: dict[str, str] | None = None
    temperature: float = JudgeDefaults.temperature
    max_tokens: int = JudgeDefaults.max_tokens
    retries: int = 1
    single_brackets: bool = JudgeDefaults.single_brackets
    strong_weight: int = STRONG_WEIGHT
    cache: bool | CachePolicy = True
    token_encoding: str = VersionConfig.token_encoding

    def __post_init__(self) -> None:
        check_strong_weight(self.strong_weight)

    def scorer_arguments(self) -> dict[str, Any]:
        """The fields as ``pairwise_judge``'s keyword arguments (what Inspect logs)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def judge_scorer(
    judging: PairwiseJudging,
    committee_rounds: int | None = None,
    batch: bool = False,
    prompts: PromptIndex | None = None,
) -> Scorer:
    """The ``pairwise_judge`` scorer judging as ``judging`` says (``committee_rounds``,
    ``batch`` and ``prompts`` as ``pairwise_judge`` takes them)."""
    return pairwise_judge(
        **judging.scorer_arguments(),
        committee_rounds=committee_rounds,
        batch=batch,
        prompts=prompts,
    )


@scorer(metrics=[games_vs_baseline(), mean(), stderr()])
def pairwise_judge(
    default_judge: str | None = JudgeDefaults.model,
    template_name: str = JudgeDefaults.template,
    template_by_category: dict[str, str] | None = None,
    temperature: float = JudgeDefaults.temperature,
    max_tokens: int = JudgeDefaults.max_tokens,
    retries: int = 1,
    single_brackets: bool = JudgeDefaults.single_brackets,
    strong_weight: int = STRONG_WEIGHT,
    cache: bool | CachePolicy = True,
    token_encoding: str = VersionConfig.token_encoding,
    committee_rounds: int | None = None,
    neutralise_answers: bool = True,
    batch: bool = False,
    prompts: PromptIndex | None = None,
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
        strong_weight: Battles a significant (``>>``) verdict counts for (a whole number, at
            least 1).
        cache: Inspect model cache for first judge replies (re-runs cost no judge calls).
        token_encoding: Tokenizer for the answers' style features (as the version stores them).
        committee_rounds: When set, the models bound to the ``committee`` role deliberate each
            game with this many discussion rounds (``inspect_arenahard.judging.committee``) and
            the committee's majority label is the game's verdict (judge ``committee``).
        neutralise_answers: False shows the texts to the judge as written: only for
            ``arenahard_probes``' ``-raw`` probes, which measure what neutralising saves.
        batch: Send judge calls through the providers' batch APIs (Inspect's batch mode):
            about half the price, results within hours rather than seconds.
        prompts: The benchmark's prompts, for the answer's audit record (its ``ignores-prompt``
            input); the ``arenahard`` task passes its dataset's.
    """
    strong_weight = check_strong_weight(strong_weight)
    settings = JudgeSettings(
        config=GenerateConfig(
            temperature=temperature, max_tokens=max_tokens, batch=True if batch else None
        ),
        retries=retries,
        cache=cache,
    )
    uncached = replace(settings, cache=False)  # a cached canary could not show drift
    by_category = template_by_category or {}

    async def score(state: TaskState, target: Target) -> Score:
        skipped = skipped_score(state)  # adaptive judging: a prompt the run no longer needs
        if skipped is not None:
            return skipped
        baseline_answer = state.metadata.get(BASELINE_ANSWER)
        if baseline_answer is None:
            raise ValueError(
                f"sample {state.sample_id}: no baseline answer (stored answers missing and the "
                "'baseline' model role is not bound)"
            )
        model_answer = state.output.completion
        category = state.metadata.get("category")
        system = template(by_category.get(category or "", template_name))
        texts = {
            "question": state.input_text,
            "model": model_answer,
            "baseline": baseline_answer,
            "reference": state.metadata.get(REFERENCE_ANSWER),
        }
        # linear in the answers' length, but a hostile answer may be megabytes: off the event loop
        if neutralise_answers:
            shown, neutralised = await to_thread.run_sync(neutralise_all, texts)
        else:
            shown, neutralised = dict(texts), {}
        audit = await to_thread.run_sync(
            answer_audit,
            state.input_text,
            model_answer,
            baseline_answer,
            state.output.stop_reason,
            prompts,
        )
        matchup = Matchup(
            system,
            shown["question"] or "",
            shown["model"] or "",
            shown["baseline"] or "",
            shown["reference"],
        )
        canary = is_canary(state.metadata)
        asked = uncached if canary else settings
        committee: dict[str, Any] | None = None
        if committee_rounds is None:
            games: list[Game] = await collect(
                *(
                    play_game(judge, game, matchup, asked, single_brackets)
                    for judge in judge_models(default_judge)
                    for game in (1, 2)
                )
            )
        else:
            games, committee = await committee_games(
                matchup, committee_rounds, asked, single_brackets
            )
        game_score = GameScore(
            usage=calls_so_far(),
            model=state.metadata[CANARY_MODEL] if canary else str(state.model),
            baseline=state.metadata.get(BASELINE_MODEL),
            category=category,
            games=tuple(g.scored() for g in games),
            strong_weight=strong_weight,
            style={
                "model": style_features(model_answer, token_encoding),
                "baseline": style_features(baseline_answer, token_encoding),
            },
            neutralisation=NEUTRALISE_VERSION,
            neutralised=neutralised,
            committee=committee,
            canary=canary,
            audit=audit,
        )
        metadata = game_score.metadata()
        labels = ", ".join(f"g{g.game}:{g.label or 'unparsed'}" for g in games)
        if canary:
            return Score.unscored(
                reason="canary game: never ranked",
                answer=labels,
                explanation=explain(games),
                metadata=metadata,
            )
        value = game_score.points()
        judged(state, value)
        if value is None:
            return Score.unscored(
                reason="no judge verdict parsed",
                answer=labels,
                explanation=explain(games),
                metadata=metadata,
            )
        return Score(value=value, answer=labels, explanation=explain(games), metadata=metadata)

    return score


def committee_judge(rounds: int = 1, **kwargs: Any) -> Scorer:
    """``pairwise_judge`` with each game decided by the ``committee`` role's discussion.

    It is the pairwise judge (same score name and contract, so ``arenahard leaderboard`` and
    ``inspect_arenahard.logs.reader.read_games`` read committee runs unchanged); ``kwargs`` are
    ``pairwise_judge``'s arguments. Pair it with the
    ``inspect_arenahard.judging.committee.committee_agreement`` metric.
    """
    return pairwise_judge(committee_rounds=rounds, **kwargs)
