"""``autoarena_battle``: the model under test debates an opponent; a committee decides.

The solver plays the three-round peer battle of ``inspect_arenahard.arena.protocol`` between
``--model`` and the ``opponent`` role, with A/B sides drawn per question from ``seed``. The
transcript becomes the sample's conversation (``<think>`` parts as reasoning blocks, for
``inspect view``). The scorer shows the committee (role ``committee``) the transcript without
``<think>``, plus a reference answer for reasoning, math and coding questions when the
``reference`` role is bound, and runs the committee discussion
(``inspect_arenahard.judging.committee.committee_verdicts``, labels ``[A]``/``[B]``/``[Tie]``).

Score contract: the ``pairwise_judge`` game records (see the ``arenahard`` task's scorer) with
one game per battle: judge ``committee``, the model's position, label ``A>B``/``A=B``/``B>A``;
``model`` is the ``--model`` player and ``baseline`` its opponent, so
``inspect_arenahard.logs.reader.read_games`` and ``arenahard leaderboard`` rank battles
model-vs-model. ``committee`` holds every member's verdict per round (the
``committee_agreement`` metric) and ``battle`` the sides and any cut or incomplete turns.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Awaitable, Sequence, cast

from anyio import to_thread
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Content,
    ContentReasoning,
    ContentText,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

from inspect_arenahard.arena.domains import (
    Domain,
    action_group,
    domain,
    parse_domains,
    token_encoding,
    token_limit,
    word_limit,
)
from inspect_arenahard.arena.protocol import (
    PROTOCOL,
    Speaker,
    Step,
    TurnText,
    apply_rules,
    generation_order,
    unseen,
)
from inspect_arenahard.arena.questions import load_battle_questions, select_battle_questions
from inspect_arenahard.errors import task_errors
from inspect_arenahard.judging.answer_audit import PromptIndex, answer_audit
from inspect_arenahard.judging.committee import COMMITTEE, committee_agreement, committee_verdicts
from inspect_arenahard.judging.games import (
    REFERENCE_ANSWER,
    Game,
    JudgeSettings,
    calls_so_far,
    role_bound,
    role_models,
)
from inspect_arenahard.judging.integrity import Protocol, neutralise
from inspect_arenahard.judging.templates import template
from inspect_arenahard.stats.game_record import SCORE_RECORDS, SCORE_RECORDS_VERSION, GameScore
from inspect_arenahard.stats.verdict_points import Position, outcome_for

OPPONENT = "opponent"
REFERENCE = "reference"
BATTLE = "battle"
VERDICT_LABELS = {"A": "A>B", "B": "B>A", "Tie": "A=B"}
"""Committee verdict → the five-point label of the game record (battles have no strong verdicts)."""


@dataclass(frozen=True)
class Turn:
    """One played turn: the step, who spoke, and the text after the length rule."""

    step: Step
    model: str
    text: TurnText

    def record(self) -> dict[str, Any]:
        """JSON-safe form for the score metadata's turn list (what ``inspect view`` shows)."""
        t = self.text
        return {
            "turn": self.step.index + 1, "round": self.step.round, "speaker": self.step.speaker,
            "model": self.model, "actions": list(self.step.actions), "visible": t.visible, "thinking": t.thinking,
            "tokens": t.tokens, "limit": t.limit, "truncated": t.truncated, "missing": list(t.missing),
        }  # fmt: skip


def _action_guide(actions: Sequence[str], words: int) -> str:
    return template("autoarena_action_guide").format(
        include=action_group(actions).include, words=words
    )


def model_position(seed: int, sample_id: Any) -> Position:
    """The --model player's side in this battle: a fair coin seeded by ``seed`` and the question."""
    return "A" if random.Random(f"{seed}:{sample_id}").random() < 0.5 else "B"


async def play_battle(
    sides: dict[Speaker, Model], question: str, dom: Domain, encoding: str, config: GenerateConfig
) -> list[Turn]:
    """Every turn of ``PROTOCOL``, in table order; each side keeps its own conversation."""
    conversations: dict[Speaker, list[ChatMessage]] = {
        s: [ChatMessageSystem(content=template("autoarena_debater_system"))] for s in ("A", "B")
    }
    delivered: dict[Speaker, set[int]] = {"A": set(), "B": set()}
    played: dict[int, Turn] = {}

    async def take(step: Step) -> None:
        words = word_limit(step.actions, dom)
        guide = _action_guide(step.actions, words)
        if step.answers_question:
            prompt = template("autoarena_debater_opening").format(
                action_guide=guide, question=question
            )
        else:
            shown = unseen(step, delivered[step.speaker])
            delivered[step.speaker].update(s.index for s in shown)
            response = "\n\n".join(played[s.index].text.visible for s in shown)
            prompt = template("autoarena_debater_opponent").format(
                action_guide=guide, opponent_response=response
            )
        conversation = conversations[step.speaker]
        conversation.append(ChatMessageUser(content=prompt))
        output = await sides[step.speaker].generate(conversation, config=config)
        text = apply_rules(output.completion, step.actions, token_limit(words), encoding)
        conversation.append(ChatMessageAssistant(content=text.raw, model=str(sides[step.speaker])))
        played[step.index] = Turn(step, str(sides[step.speaker]), text)

    first, second, *rest = generation_order()
    await collect(take(first), take(second))
    for step in rest:
        await take(step)
    return [played[step.index] for step in PROTOCOL]


def transcript_messages(question: str, turns: Sequence[Turn]) -> list[ChatMessage]:
    """The battle as a conversation for ``inspect view``: the question, then one message per turn."""
    messages: list[ChatMessage] = [ChatMessageUser(content=question)]
    for turn in turns:
        header = f"**Round {turn.step.round} · Assistant {turn.step.speaker} ({turn.model}) · {', '.join(turn.step.actions)}**"
        if turn.text.truncated:
            header += f" *(cut to {turn.text.limit} tokens from {turn.text.tokens})*"
        content: list[Content] = (
            [ContentReasoning(reasoning=turn.text.thinking)] if turn.text.thinking else []
        )
        content.append(ContentText(text=f"{header}\n\n{turn.text.visible}"))
        messages.append(
            ChatMessageAssistant(content=content, model=turn.model, metadata=turn.record())
        )
    return messages


@solver
def peer_battle(
    seed: int = 0, encoding: str | None = None, max_tokens: int | None = None
) -> Solver:
    """Play the battle between ``--model`` and the ``opponent`` role (and fetch a reference).

    Args:
        seed: Seeds each question's A/B sides.
        encoding: Tokenizer for the length limits (default: the config's, cl100k_base).
        max_tokens: Generation limit per turn (default: none; turns are cut to their limit anyway).
    """
    config = GenerateConfig(max_tokens=max_tokens)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if not role_bound(OPPONENT):
            raise ValueError("no opponent: bind one with --model-role opponent=<model>")
        model, opponent = get_model(), get_model(role=OPPONENT, required=True)
        if str(model) == str(opponent):
            raise ValueError(
                f"the model and its opponent are the same ({model}): nothing to compare"
            )
        dom = domain(state.metadata["domain"])
        position = model_position(seed, state.sample_id)
        sides: dict[Speaker, Model] = (
            {"A": model, "B": opponent} if position == "A" else {"A": opponent, "B": model}
        )
        question = state.input_text
        jobs: list[Awaitable[object]] = [
            play_battle(sides, question, dom, encoding or token_encoding(), config)
        ]
        reference_model = (
            get_model(role=REFERENCE, required=True)
            if dom.reference and role_bound(REFERENCE)
            else None
        )
        if reference_model is not None:
            jobs.append(reference_model.generate([ChatMessageUser(content=question)]))
        results = await collect(*jobs)  # mixed results: typed list[object], cast below
        turns = cast(list[Turn], results[0])
        state.messages = transcript_messages(question, turns)
        state.output = ModelOutput.from_content(
            str(model), next(t.text.visible for t in turns if t.model == str(model))
        )
        state.metadata[REFERENCE_ANSWER] = (
            cast(ModelOutput, results[1]).completion if reference_model is not None else None
        )
        state.metadata[BATTLE] = {
            "model": str(model),
            "opponent": str(opponent),
            "model_position": position,
            "positions": {side: str(m) for side, m in sides.items()},
            "reference_model": None if reference_model is None else str(reference_model),
            "turns": [t.record() for t in turns],
        }
        return state

    return solve


JUDGED_AS: Protocol = "battle"
"""The protocol whose labels and delimiters battle texts are neutralised for."""


def judge_prompt(question: str, turns: Sequence[dict[str, Any]], reference: str | None) -> str:
    """The committee's user turn: the question, an optional reference, and the visible turns,
    each neutralised (``inspect_arenahard.judging.integrity``) so no turn can end the transcript or
    show a verdict the committee's parser would read."""
    transcript = "\n\n".join(
        template("autoarena_judge_turn").format(
            round=t["round"],
            speaker=t["speaker"],
            actions=", ".join(t["actions"]),
            text=neutralise(t["visible"], JUDGED_AS).text,
        )
        for t in turns
    )
    block = (
        f"\n{template('autoarena_judge_reference').format(reference=neutralise(reference, JUDGED_AS).text)}\n"
        if reference
        else ""
    )
    return template("autoarena_judge_user").format(
        question=neutralise(question, JUDGED_AS).text, reference=block, transcript=transcript
    )


def neutralised_spans(
    question: str, turns: Sequence[dict[str, Any]], reference: str | None
) -> dict[str, dict[str, int]]:
    """What ``judge_prompt`` neutralised: per side (``A``, ``B``: all its turns), question
    and reference."""
    texts = {"question": question, "reference": reference or ""}
    for side in ("A", "B"):
        texts[side] = "\n\n".join(t["visible"] for t in turns if t["speaker"] == side)
    return {name: neutralise(text, JUDGED_AS).record() for name, text in texts.items()}


@scorer(metrics=[mean(), stderr()])
def autoarena_committee(
    rounds: int = 1,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    retries: int = 1,
    cache: bool | CachePolicy = True,
    prompts: PromptIndex | None = None,
) -> Scorer:
    """The ``committee`` role's verdict on the battle: 1 win, 0.5 tie, 0 loss for ``--model``.

    Args:
        rounds: Discussion rounds after the independent verdicts (the paper: 1).
        temperature: Judge temperature.
        max_tokens: Judge output limit.
        retries: Follow-up turns asking a judge for a missing ``[A]``/``[B]``/``[Tie]``.
        cache: Inspect model cache for the judges' first replies.
        prompts: The battle's questions, for the model's answer's audit record (its
            ``ignores-prompt`` input); ``autoarena_battle`` passes its own.
    """
    settings = JudgeSettings(
        config=GenerateConfig(temperature=temperature, max_tokens=max_tokens),
        retries=retries,
        cache=cache,
    )

    async def score(state: TaskState, target: Target) -> Score:
        battle = state.metadata[BATTLE]
        prompt = await to_thread.run_sync(  # a hostile turn may be long: off the event loop
            judge_prompt, state.input_text, battle["turns"], state.metadata.get(REFERENCE_ANSWER)
        )
        result = await committee_verdicts(
            role_models(COMMITTEE, at_least=2), prompt, "battle", rounds, settings=settings
        )
        position: Position = battle["model_position"]
        label = VERDICT_LABELS.get(result.final or "")
        game = Game(
            judge=COMMITTEE,
            game=1,
            model_position=position,
            label=label,
            parsed=label is not None,
            attempts=result.calls,
            reasoning=result.transcript(),
        )
        turns = battle["turns"]
        spans = await to_thread.run_sync(
            neutralised_spans, state.input_text, turns, state.metadata.get(REFERENCE_ANSWER)
        )
        audit = await to_thread.run_sync(
            answer_audit,
            state.input_text,
            state.output.completion,
            None,
            state.output.stop_reason,
            prompts,
        )
        metadata = GameScore(
            model=battle["model"],
            baseline=battle["opponent"],
            category=state.metadata["domain"],
            games=(game.scored(),),
            committee={
                "judges": result.judges,
                "discussion_rounds": rounds,
                "games": [{"game": 1, "model_position": position, **result.metadata()}],
                "unanimous_before": result.unanimous_before,
                "unanimous_after": result.unanimous_after,
            },
            neutralised=spans,
            battle={
                "positions": battle["positions"],
                "reference_model": battle["reference_model"],
                "truncated_turns": [t["turn"] for t in turns if t["truncated"]],
                "incomplete_turns": [t["turn"] for t in turns if t["missing"]],
            },
            audit=audit,
            usage=calls_so_far(),
        ).metadata()
        verdict = f"[{result.final}]" if result.final else "no verdict"
        explanation = f"Model {battle['model']} is Assistant {position}; committee verdict {verdict}.\n\n{result.transcript()}"
        if label is None:
            return Score.unscored(
                reason="no committee verdict",
                answer=verdict,
                explanation=explanation,
                metadata=metadata,
            )
        return Score(
            value=outcome_for(label, position)[0],
            answer=verdict,
            explanation=explanation,
            metadata=metadata,
        )

    return score


@task
@task_errors
def autoarena_battle(
    questions: str,
    battles: int | None = None,
    seed: int = 0,
    domains: str | list[str] | None = None,
    committee_rounds: int = 1,
    judge_temperature: float = 0.0,
    judge_max_tokens: int | None = None,
    judge_retries: int = 1,
    max_tokens: int | None = None,
    cache: bool = True,
) -> Task:
    """Auto-Arena peer battles: ``--model`` vs the ``opponent`` role, judged by the ``committee``.

    Args:
        questions: JSONL of ``{id, question, domain}`` rows or an ``autoarena_questions`` log.
        battles: Questions to battle on, spread evenly over domains (paper: 40); default all.
        seed: Seeds the question choice and each battle's A/B sides.
        domains: Keep only these domains (``all``, or comma-separated keys).
        committee_rounds: Committee discussion rounds (the paper: 1).
        judge_temperature: Committee temperature.
        judge_max_tokens: Committee output limit.
        judge_retries: Follow-up turns asking a judge for a missing verdict.
        max_tokens: Generation limit per debater turn (turns are cut to their limit anyway).
        cache: Cache the committee's first replies so re-runs cost no judge calls.
    """
    pool = load_battle_questions(questions)
    if domains is not None:
        wanted = {d.key for d in parse_domains(domains)}
        pool = [q for q in pool if q.domain in wanted]
        if not pool:
            raise ValueError(f"{questions}: no questions in domains {', '.join(sorted(wanted))}")
    chosen = select_battle_questions(pool, battles, seed)
    samples = [Sample(id=q.id, input=q.question, metadata={"domain": q.domain}) for q in chosen]
    return Task(
        dataset=MemoryDataset(samples, name="autoarena-battle"),
        solver=peer_battle(seed=seed, max_tokens=max_tokens),
        scorer=autoarena_committee(
            rounds=committee_rounds,
            temperature=judge_temperature,
            max_tokens=judge_max_tokens,
            retries=judge_retries,
            cache=CachePolicy(expiry=None) if cache else False,
            prompts=PromptIndex([q.question for q in chosen]),
        ),
        metrics=[mean(), stderr(), committee_agreement()],
        metadata={SCORE_RECORDS: SCORE_RECORDS_VERSION},
    )
