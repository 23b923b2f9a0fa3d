"""ScaleEval's agent debate (Chern et al. 2024, section 4.1) on one pair of submissions.

Round 0: every speaker gives reasons and a verdict (``1``, ``2`` or ``0``) on its own. Rounds
1..D-1: every speaker reads all speakers' evaluations so far and keeps or changes its verdict.
The debate stops as soon as every speaker gives the same verdict (consensus). Without consensus
after D rounds the item goes to the human-review queue (``inspect_arenahard.scaleeval.review``).
The rounds run on ``inspect_arenahard.judging.committee.deliberate``. Only the prompts differ from
the committee: each discussion turn is a new conversation holding the whole debate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, Model

from inspect_arenahard.judging.committee import CommitteeResult, LabelSet, Turn, deliberate
from inspect_arenahard.judging.games import JudgeSettings, Reply, ask_verdict
from inspect_arenahard.judging.integrity import Protocol, neutralise
from inspect_arenahard.judging.scaleeval_verdicts import parse_number
from inspect_arenahard.judging.templates import template

SCALEEVAL: Protocol = "scaleeval"

NUMBERS = LabelSet(
    name="scaleeval",
    labels=("1", "2", "0"),
    tie="0",
    parse=parse_number,
    side={"1": "1", "2": "2", "0": "0"},
    mild={"1": "1", "2": "2"},
    retry_labels='"1", "2" or "0"',
    protocol="scaleeval",
)


@dataclass(frozen=True)
class Presented:
    """An item as the judges see it: submissions in the presented order, rendered criteria."""

    question: str
    submission_1: str
    submission_2: str
    criteria: str

    def fields(self) -> dict[str, str]:
        """Prompt fields; question and submissions neutralised (``inspect_arenahard.judging.integrity``)."""
        return {
            **{k: neutralise(v, SCALEEVAL).text for k, v in self.texts().items()},
            "criteria": self.criteria,
        }

    def texts(self) -> dict[str, str]:
        """The texts a submitter controls, as stored."""
        return {
            "question": self.question,
            "submission_1": self.submission_1,
            "submission_2": self.submission_2,
        }

    def neutralised(self) -> dict[str, dict[str, int]]:
        """Spans neutralised per text, for the item's score metadata."""
        return {k: neutralise(v, SCALEEVAL).record() for k, v in self.texts().items()}


def initial_messages(item: Presented) -> list[ChatMessage]:
    """The initial-evaluation prompt (debate round 0, and the single judge under evaluation)."""
    prompt = template("scaleeval_initial").format(
        user_prompt=template("scaleeval_instruction"), **item.fields()
    )
    return [ChatMessageUser(content=prompt)]


def evaluations(history: Sequence[Sequence[Turn]]) -> str:
    """Every speaker's initial evaluation, then every discussion round, as the paper lays out.

    Replies are neutralised: a speaker echoing the debate cannot end on another's lone number."""
    entries = [
        template("scaleeval_initial_entry").format(
            speaker=seat, evaluation=neutralise(turn.reasoning, SCALEEVAL).text
        )
        for seat, turn in enumerate(history[0], start=1)
    ]
    for r, turns in enumerate(history[1:], start=1):
        entries += [
            template("scaleeval_discussion_entry").format(
                speaker=seat, round=r, discussion=neutralise(turn.reasoning, SCALEEVAL).text
            )
            for seat, turn in enumerate(turns, start=1)
        ]
    return "\n\n".join(entries)


def discussion_messages(item: Presented, seat: int, history: list[list[Turn]]) -> list[ChatMessage]:
    """A discussion turn for speaker ``seat + 1``: the reminder, the data and the whole debate."""
    return [
        ChatMessageSystem(content=template("scaleeval_speaker").format(speaker=seat + 1)),
        ChatMessageUser(
            content=template("scaleeval_discussion").format(
                evaluations=evaluations(history), **item.fields()
            )
        ),
    ]


async def debate(
    speakers: Sequence[Model],
    item: Presented,
    max_rounds: int,
    settings: JudgeSettings,
) -> CommitteeResult:
    """Debate ``item`` for at most ``max_rounds`` rounds (round 0 included); stops at consensus."""
    if max_rounds < 1:
        raise ValueError(f"max_rounds must be at least 1, got {max_rounds}")
    return await deliberate(
        speakers,
        lambda seat: initial_messages(item),
        lambda seat, history: discussion_messages(item, seat, history),
        NUMBERS,
        max_rounds - 1,
        stop_on_consensus=True,
        settings=settings,
    )


async def evaluate(judge: Model, item: Presented, settings: JudgeSettings) -> Reply:
    """One verdict of a single judge with the initial-evaluation prompt."""
    return await ask_verdict(
        judge, initial_messages(item), parse_number, NUMBERS.retry_labels, settings
    )
