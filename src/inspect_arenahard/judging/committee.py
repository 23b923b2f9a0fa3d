"""Committee discussion (Auto-Arena): judges give verdicts, read each other's reasons, revise.

Protocol (Zhao et al. 2024, 'Auto Arena of LLMs', committee discussions; prompts in Appendix
A.1.3): in round 0 every judge gives reasons and a verdict on its own. In rounds 1..R every judge
reads the other judges' latest replies and verdicts and keeps or changes its own. The final
verdict is the majority of the last round (``majority`` states the tie rule). A round in
which every judge gives the same verdict ends the discussion early (``stop_on_consensus``).

``deliberate`` runs the protocol for any prompts and labels. It serves:

* ``committee_verdicts``: one verdict on a transcript, e.g. an Auto-Arena peer battle
  (``[A]``/``[B]``/``[Tie]``);
* ``committee_games``: the two position-swapped games of an Arena-Hard sample inside
  ``pairwise_judge`` (``-T scorer=committee``, or the task's ``committee_judge`` scorer);
* the ScaleEval debate (``inspect_arenahard.scaleeval.debate``), with its own prompts.

``discussion_agreement`` measures how discussion changes agreement: mean pairwise Cohen's
κ and agreement probability before and after discussion.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Awaitable, Callable, Iterable, Mapping, Sequence

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, Model
from inspect_ai.scorer import Metric, SampleScore, metric
from inspect_ai.util import collect

from inspect_arenahard.judging.games import (
    Game,
    JudgeSettings,
    Matchup,
    ask_verdict,
    label_list,
    role_models,
)
from inspect_arenahard.judging.integrity import Protocol, neutralise
from inspect_arenahard.judging.templates import config, template
from inspect_arenahard.judging.verdicts import BATTLE_LABEL, parse_verdict
from inspect_arenahard.stats.agreement import judge_agreement
from inspect_arenahard.stats.verdict_points import LABELS

COMMITTEE = "committee"
"""Judge name of the committee's games in the ``pairwise_judge`` contract, and its model role."""


@dataclass(frozen=True)
class LabelSet:
    """The verdict labels a committee uses and how to read, count and request them."""

    name: str
    labels: tuple[str, ...]
    tie: str
    parse: Callable[[str], str | None]
    side: Mapping[str, str]
    """Which answer each label favours (the tie label favours itself)."""
    mild: Mapping[str, str]
    """The weakest label on each side: the verdict when judges split on strength only."""
    retry_labels: str
    """The labels as the judge must write them (follow-up turn)."""
    verdict_format: str = ""
    """How to write the verdict, completing the discussion prompt."""
    system: str | None = None
    """Template a committee opens with when the caller gives no system prompt."""
    protocol: Protocol = "pairwise"
    """Whose labels and delimiters a quoted peer reply is neutralised for."""


def parse_battle(text: str) -> str | None:
    """The last ``[A]``/``[B]``/``[Tie]`` in ``text`` (the verdict comes after the reasons,
    which may quote other judges' verdicts); None when there is none."""
    found = BATTLE_LABEL.findall(text)
    if not found:
        return None
    last: str = found[-1]
    return "Tie" if last.upper() == "TIE" else last


@lru_cache(maxsize=None)
def named_labels(name: str, single_brackets: bool = False) -> LabelSet:
    """``battle`` (``A``/``B``/``Tie``, Auto-Arena) or ``arenahard`` (the five-point labels)."""
    settings = config("committee")
    if name == "battle":
        return LabelSet(
            name="battle",
            labels=("A", "B", "Tie"),
            tie="Tie",
            parse=parse_battle,
            side={"A": "A", "B": "B", "Tie": "Tie"},
            mild={"A": "A", "B": "B"},
            retry_labels="[A], [B], [Tie]",
            verdict_format=settings["battle"]["verdict_format"],
            system=settings["battle"]["system"],
            protocol="battle",
        )
    if name == "arenahard":
        return LabelSet(
            name="arenahard",
            labels=LABELS,
            tie="A=B",
            parse=lambda text: parse_verdict(text, single_brackets),
            side={label: label if label == "A=B" else label[0] for label in LABELS},
            mild={"A": "A>B", "B": "B>A"},
            retry_labels=label_list(),
            verdict_format=settings["arenahard"]["verdict_format"],
            system=settings["arenahard"]["system"],
        )
    raise ValueError(f"unknown committee label set {name!r}; expected 'battle' or 'arenahard'")


def majority(labels: Iterable[str | None], labels_used: LabelSet) -> str | None:
    """Majority verdict of the parsed ``labels``; None when none parsed.

    First the side (A, B or tie) with the most votes wins. If two sides have the same count,
    the verdict is the tie label. Within the winning side the most common label wins, and if
    strengths are tied the weaker label wins (``A>>B`` + ``A>B`` → ``A>B``). With the
    three-label battle set this is a plain plurality vote where ties give ``Tie``.
    """
    votes = [label for label in labels if label is not None]
    if not votes:
        return None
    side = _unique_top(Counter(labels_used.side[v] for v in votes))
    if side is None or side == labels_used.tie:
        return labels_used.tie
    strength = _unique_top(Counter(v for v in votes if labels_used.side[v] == side))
    return strength if strength is not None else labels_used.mild[side]


def _unique_top(counts: Counter[str]) -> str | None:
    [(first, n), *rest] = counts.most_common()
    return None if rest and rest[0][1] == n else first


@dataclass
class Turn:
    """One judge's reply in one round."""

    judge: str
    round: int
    label: str | None
    attempts: int
    reasoning: str
    messages: list[ChatMessage] = field(repr=False, default_factory=list)

    def record(self) -> dict[str, Any]:
        """JSON-safe form for the score metadata (no reasoning; that goes to the explanation)."""
        return {
            "judge": self.judge,
            "label": self.label,
            "parsed": self.label is not None,
            "attempts": self.attempts,
        }


def unanimous(turns: Sequence[Turn]) -> bool:
    """Every judge gave a verdict and all verdicts are the same."""
    labels = {t.label for t in turns}
    return len(labels) == 1 and None not in labels


@dataclass
class CommitteeResult:
    """Every judge's verdict in every round, and the final majority verdict."""

    label_set: str
    judges: list[str]
    rounds: list[list[Turn]]
    """``rounds[r][j]``: judge ``j`` in round ``r`` (round 0 is the independent verdict)."""
    final: str | None

    @property
    def initial_labels(self) -> list[str | None]:
        """Each judge's label before any discussion (None: unparsed)."""
        return [t.label for t in self.rounds[0]]

    @property
    def final_labels(self) -> list[str | None]:
        """Each judge's label after the last discussion round (None: unparsed)."""
        return [t.label for t in self.rounds[-1]]

    @property
    def unanimous_before(self) -> bool:
        """Whether the judges agreed before discussing."""
        return unanimous(self.rounds[0])

    @property
    def unanimous_after(self) -> bool:
        """Whether the judges agreed after the last round."""
        return unanimous(self.rounds[-1])

    @property
    def calls(self) -> int:
        """Judge generations made, follow-up turns included."""
        return sum(t.attempts for turns in self.rounds for t in turns)

    def metadata(self) -> dict[str, Any]:
        """Compact record for score metadata (no reasoning; that goes to the explanation)."""
        return {
            "label_set": self.label_set,
            "judges": self.judges,
            "rounds": [[t.record() for t in turns] for turns in self.rounds],
            "final": self.final,
            "unanimous_before": self.unanimous_before,
            "unanimous_after": self.unanimous_after,
        }

    def transcript(self) -> str:
        """Every round's replies, for ``inspect view``."""
        parts = []
        for r, turns in enumerate(self.rounds):
            parts.append(
                f"#### round {r}" + (" (independent verdicts)" if r == 0 else " (discussion)")
            )
            for seat, turn in enumerate(turns, start=1):
                parts.append(
                    f"**Judge {seat} ({turn.judge})** → {turn.label or 'no verdict'}\n\n{turn.reasoning}"
                )
        parts.append(f"**Majority verdict:** {self.final or 'none (no judge gave a verdict)'}")
        return "\n\n".join(parts)


Opening = Callable[[int], list[ChatMessage]]
"""Judge seat (0-based) → its round-0 conversation."""
FollowUp = Callable[[int, list[list[Turn]]], list[ChatMessage]]
"""(judge seat, rounds so far) → its conversation for the next round."""


def judge_names(judges: Sequence[Model]) -> list[str]:
    """Model names, with ``#2``, ``#3`` … on repeats (the same model sampled several times)."""
    seen: Counter[str] = Counter()
    names = []
    for judge in judges:
        name = str(judge)
        seen[name] += 1
        names.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return names


async def deliberate(
    judges: Sequence[Model],
    opening: Opening,
    follow_up: FollowUp,
    labels: LabelSet,
    rounds: int,
    stop_on_consensus: bool,
    settings: JudgeSettings,
) -> CommitteeResult:
    """Round 0 from ``opening``, then up to ``rounds`` discussion rounds from ``follow_up``.

    The judges of a round answer concurrently. A judge that gives no label is asked again
    (``settings.retries`` follow-up turns, as in the pairwise judge) and otherwise counts as no verdict.
    """
    if len(judges) < 2:
        raise ValueError(f"a committee needs at least 2 judges, got {len(judges)}")
    if rounds < 0:
        raise ValueError(f"rounds must be >= 0, got {rounds}")
    names = judge_names(judges)
    history: list[list[Turn]] = []

    async def turn(seat: int, r: int, messages: list[ChatMessage]) -> Turn:
        reply = await ask_verdict(
            judges[seat], messages, labels.parse, labels.retry_labels, settings
        )
        return Turn(names[seat], r, reply.label, reply.attempts, reply.text, reply.messages)

    for r in range(rounds + 1):
        prompts = [
            opening(seat) if r == 0 else follow_up(seat, history) for seat in range(len(judges))
        ]
        history.append(
            await collect(*(turn(seat, r, prompt) for seat, prompt in enumerate(prompts)))
        )
        if stop_on_consensus and unanimous(history[-1]):
            break
    return CommitteeResult(
        labels.name, names, history, majority((t.label for t in history[-1]), labels)
    )


def discussion(labels: LabelSet) -> FollowUp:
    """Auto-Arena's discussion turn: the judge's own conversation plus the other judges' replies."""

    def follow_up(seat: int, history: list[list[Turn]]) -> list[ChatMessage]:
        # peers' replies quote answers and carry the peers' own labels: neutralised, so this
        # judge's reply can only parse to the label it writes (peers' verdicts are listed plainly)
        last = history[-1]
        peers = "\n\n".join(
            template("committee_peer").format(
                number=other + 1,
                response=neutralise(t.reasoning, labels.protocol).text,
                verdict=t.label or "no verdict",
            )
            for other, t in enumerate(last)
            if other != seat
        )
        prompt = template("committee_discussion").format(
            verdict_format=labels.verdict_format, responses=peers
        )
        return [*last[seat].messages, ChatMessageUser(content=prompt)]

    return follow_up


async def committee_verdicts(
    judges: Sequence[Model],
    transcript_prompt: str,
    label_set: str | LabelSet = "battle",
    rounds: int = 1,
    *,
    system: str | None = None,
    stop_on_consensus: bool = True,
    settings: JudgeSettings | None = None,
) -> CommitteeResult:
    """A committee's verdict on one transcript (e.g. a peer battle between assistants A and B).

    Args:
        judges: The committee (at least 2; the same model may appear more than once).
        transcript_prompt: User turn every judge sees in round 0 (the battle transcript).
        label_set: ``battle`` (``[A]``/``[B]``/``[Tie]``), ``arenahard`` (five-point labels) or
            a ``LabelSet``.
        rounds: Discussion rounds after the independent verdicts.
        system: System prompt text; default the label set's template (for battles, Auto-Arena's
            committee judge prompt).
        stop_on_consensus: End the discussion as soon as all judges agree.
        settings: Judge generation config, follow-up turns for a missing label and cache
            (default: temperature 0, one follow-up, cached).
    """
    labels = label_set if isinstance(label_set, LabelSet) else named_labels(label_set)
    if system is None and labels.system is None:
        raise ValueError(f"label set {labels.name!r} has no default system prompt: pass system=")
    system_text = system if system is not None else template(labels.system or "")

    def opening(seat: int) -> list[ChatMessage]:
        return [ChatMessageSystem(content=system_text), ChatMessageUser(content=transcript_prompt)]

    return await deliberate(
        judges,
        opening,
        discussion(labels),
        labels,
        rounds,
        stop_on_consensus,
        settings or JudgeSettings(),
    )


async def committee_games(
    matchup: Matchup,
    rounds: int,
    settings: JudgeSettings,
    single_brackets: bool,
) -> tuple[list[Game], dict[str, Any]]:
    """Both position-swapped games of an Arena-Hard sample, each decided by the committee.

    Returns the two games in the ``pairwise_judge`` contract (judge ``committee``, the majority
    label; ``attempts`` counts the committee's generations) and the score's ``committee`` section
    (``inspect_arenahard.stats.game_record.GameScore.committee``): every judge's verdict per
    round per game and the unanimity flags.
    """
    judges = role_models(COMMITTEE, at_least=2)
    labels = named_labels("arenahard", single_brackets)
    games = (1, 2)

    def run(game: int) -> Awaitable[CommitteeResult]:
        return deliberate(
            judges,
            lambda seat: matchup.messages(game)[1],
            discussion(labels),
            labels,
            rounds,
            stop_on_consensus=True,
            settings=settings,
        )

    results: list[CommitteeResult] = await collect(*(run(game) for game in games))
    records = []
    for game, result in zip(games, results):
        position = matchup.messages(game)[0]
        records.append(
            Game(
                judge=COMMITTEE,
                game=game,
                model_position=position,
                label=result.final,
                parsed=result.final is not None,
                attempts=result.calls,
                reasoning=result.transcript(),
            )
        )
    section = {
        "judges": results[0].judges,
        "discussion_rounds": rounds,
        "games": [
            {"game": g.game, "model_position": g.model_position, **r.metadata()}
            for g, r in zip(records, results)
        ],
        "unanimous_before": all(r.unanimous_before for r in results),
        "unanimous_after": all(r.unanimous_after for r in results),
    }
    return records, section


def discussion_agreement(items: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Agreement between committee judges before and after discussion.

    ``items``: ``CommitteeResult.metadata`` dicts, one per judged item. Before = round 0,
    after = the last round run. Judges without a verdict on an item leave it out of their pairs.
    Returns mean pairwise agreement probability and Cohen's κ (nan when undefined), the share of
    unanimous items, and the item count.
    """
    before: dict[str, dict[int, str]] = {}
    after: dict[str, dict[int, str]] = {}
    unanimous_before = unanimous_after = n = 0
    for k, item in enumerate(items):
        n += 1
        unanimous_before += bool(item["unanimous_before"])
        unanimous_after += bool(item["unanimous_after"])
        for labels_by_judge, turns in ((before, item["rounds"][0]), (after, item["rounds"][-1])):
            for t in turns:
                labels_by_judge.setdefault(t["judge"], {})
                if t["label"] is not None:
                    labels_by_judge[t["judge"]][k] = t["label"]
    result = {"items": float(n)}
    for when, labels_by_judge, unanimous_count in (
        ("before", before, unanimous_before),
        ("after", after, unanimous_after),
    ):
        summary = judge_agreement(labels_by_judge)
        kappas = [p.kappa for p in summary.pairs if p.n_items and not math.isnan(p.kappa)]
        result[f"agreement_{when}"] = summary.mean_agreement
        result[f"kappa_{when}"] = sum(kappas) / len(kappas) if kappas else math.nan
        result[f"unanimous_{when}"] = unanimous_count / n if n else math.nan
    return result


@metric
def committee_agreement() -> Metric:
    """Judge agreement before/after discussion over every committee game of the scored samples."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        items = [
            game
            for s in scores
            for game in ((s.score.metadata or {}).get(COMMITTEE) or {}).get("games", [])
        ]
        values = discussion_agreement(items)
        return {k: None if math.isnan(v) else v for k, v in values.items()}

    return compute
