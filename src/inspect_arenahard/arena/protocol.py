"""The Lincoln–Douglas peer battle of Auto-Arena as data, and the text rules of a turn.

``PROTOCOL`` lists the turns in the order the judges read them (Zhao et al. 2024, Figure 2):

===== ===== ======= ==========================================================
turn  round speaker actions
===== ===== ======= ==========================================================
1     1     A       respond (to the question)
2     1     B       criticize, raise
3     1     A       respond (to B's follow-up)
4     2     B       respond (to the question)
5     2     A       criticize, raise
6     2     B       respond (to A's follow-up)
7     3     A       criticize, raise
8     3     B       respond, criticize, raise
9     3     A       respond (to B's follow-up)
===== ===== ======= ==========================================================

Both sides get three ``respond``, two ``criticize`` and two ``raise`` actions and the same
word budget (A: five single turns; B: three single turns and one double turn). The two answers
to the question (turns 1 and 4) are generated first, each from a conversation holding only the
question, so B answers without having seen A's answer. Before each later turn a side is shown
the opponent's turns it has not seen that come earlier in the table (``<think>`` removed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Sequence

from inspect_arenahard.judging.style_features import count_tokens

Speaker = Literal["A", "B"]
ACTIONS: tuple[str, ...] = ("respond", "criticize", "raise")
THINK = "think"


@dataclass(frozen=True)
class Step:
    """One turn of the battle."""

    index: int
    round: int
    speaker: Speaker
    actions: tuple[str, ...]

    @property
    def answers_question(self) -> bool:
        """The side's first ``respond``: its answer to the question, made before seeing the opponent."""
        return self == answer_turn(self.speaker)


_ORDER: tuple[tuple[int, Speaker, tuple[str, ...]], ...] = (
    (1, "A", ("respond",)),
    (1, "B", ("criticize", "raise")),
    (1, "A", ("respond",)),
    (2, "B", ("respond",)),
    (2, "A", ("criticize", "raise")),
    (2, "B", ("respond",)),
    (3, "A", ("criticize", "raise")),
    (3, "B", ("respond", "criticize", "raise")),
    (3, "A", ("respond",)),
)
PROTOCOL: tuple[Step, ...] = tuple(Step(i, r, s, a) for i, (r, s, a) in enumerate(_ORDER))


def answer_turn(speaker: Speaker) -> Step:
    """The side's answer to the question (turn 1 for A, turn 4 for B)."""
    return next(step for step in PROTOCOL if step.speaker == speaker and "respond" in step.actions)


def generation_order() -> list[Step]:
    """Both answers to the question first (they see nothing of the opponent), then table order."""
    openings = [answer_turn("A"), answer_turn("B")]
    return openings + [s for s in PROTOCOL if s not in openings]


def unseen(step: Step, delivered: set[int]) -> list[Step]:
    """The opponent's turns before ``step`` in table order that its speaker has not been shown."""
    return [
        s for s in PROTOCOL[: step.index] if s.speaker != step.speaker and s.index not in delivered
    ]


_TAGS = "|".join((THINK, *ACTIONS))
_OPEN = re.compile(rf"<\s*({_TAGS})\s*>", re.IGNORECASE)
_THINK_BLOCK = re.compile(
    rf"<\s*think\s*>.*?(?:<\s*/\s*think\s*>|(?=<\s*(?:{'|'.join(ACTIONS)})\s*>)|\Z)",
    re.IGNORECASE | re.S,
)


def actions_present(text: str) -> set[str]:
    """Action tags opened in ``text`` (``<think>`` included)."""
    return {m.group(1).lower() for m in _OPEN.finditer(text)}


def strip_think(text: str) -> str:
    """``text`` without its ``<think>`` parts (an unclosed one ends at the next action tag or
    the end): what the opponent and the judges see."""
    return _THINK_BLOCK.sub("", text).strip()


def thoughts(text: str) -> str:
    """The ``<think>`` parts of ``text``, joined (for the log only)."""
    return "\n\n".join(m.group(0).strip() for m in _THINK_BLOCK.finditer(text))


_WORD = re.compile(r"\S+")


def cut_to_tokens(text: str, limit: int, encoding: str) -> tuple[str, int]:
    """(``text`` cut at a word boundary to at most ``limit`` tokens, its full token count).

    The longest prefix ending after a whole word that fits is kept (binary search over words).
    """
    total = count_tokens(text, encoding)
    if total <= limit:
        return text, total
    ends = [m.end() for m in _WORD.finditer(text)]
    lo, hi = 0, len(ends)  # invariant: the first `lo` words fit, the first `hi + 1` do not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count_tokens(text[: ends[mid - 1]], encoding) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return (text[: ends[lo - 1]] if lo else ""), total


@dataclass(frozen=True)
class TurnText:
    """A turn after the length rule: what was kept, what others see, and what was wrong."""

    raw: str
    visible: str
    thinking: str
    tokens: int
    limit: int
    truncated: bool
    missing: tuple[str, ...]
    """Required actions with no tag in the kept text."""


def apply_rules(text: str, actions: Sequence[str], limit: int, encoding: str) -> TurnText:
    """Cut ``text`` to ``limit`` tokens (think included, as the action guide says), then hide
    ``<think>``."""
    kept, tokens = cut_to_tokens(text, limit, encoding)
    present = actions_present(kept)
    return TurnText(
        raw=kept,
        visible=strip_think(kept),
        thinking=thoughts(kept),
        tokens=tokens,
        limit=limit,
        truncated=tokens > limit,
        missing=tuple(a for a in actions if a not in present),
    )
