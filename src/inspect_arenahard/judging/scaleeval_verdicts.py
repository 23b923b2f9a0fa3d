"""ScaleEval's verdict grammar: a reply ends with ``1``, ``2`` or ``0`` alone on a line.

Pure functions (no Inspect imports): the debate parses replies with :func:`parse_number`, and
:mod:`inspect_arenahard.judging.integrity` uses :func:`lone_number` to find lines in submissions that
the parser would read as a verdict.
"""

from __future__ import annotations

import re

_PREFIX = re.compile(
    r"^(?:final\s+)?(?:answer|verdict|choice|decision|option)\s*[:=\-]?\s*", re.IGNORECASE
)
_DECORATION = "\"'`*_.:()[] \t"


def lone_number(line: str) -> str | None:
    """``1``, ``2`` or ``0`` when the line is only that number (quotes, bold, brackets, a
    trailing period or an ``Answer:`` prefix allowed)."""
    core = _PREFIX.sub("", line.strip().strip(_DECORATION)).strip(_DECORATION)
    return core if core in ("0", "1", "2") else None


def parse_number(text: str) -> str | None:
    """The verdict of a ScaleEval reply, which ends with the number repeated on its own line.

    The last non-blank line decides when it is a lone number. Otherwise the lone-number lines
    decide if they all agree (a reply that adds a remark after its verdict); different lone
    numbers, or none at all, give no verdict. Numbers inside sentences never count.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    last = lone_number(lines[-1])
    if last is not None:
        return last
    found = {n for n in map(lone_number, lines) if n is not None}
    return found.pop() if len(found) == 1 else None
