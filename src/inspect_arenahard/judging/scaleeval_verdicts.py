"""ScaleEval's verdict grammar: a reply ends with ``1``, ``2`` or ``0`` alone on a line.

Pure functions (no Inspect imports). The grammar is written once, here, as patterns: the debate
parses replies with ``parse_number``, and ``inspect_arenahard.judging.integrity`` finds
the lines and headings a submission could forge with ``LONE_NUMBER``, ``NAMED_NUMBER_LINE``
and ``HEADING``, so the parser, the neutraliser and the audit cannot disagree about whitespace,
case or spelling. Every pattern is possessive (nothing is scanned twice).

A bare digit (``2``, ``**2**``) is a verdict only as a reply's last non-blank line, where the
paper's prompt asks for it ("repeat just the number again by itself on a new line"); anywhere
else it is a list item or program output. A line that names its verdict (``Answer: 2``,
``**Final verdict: 1**``) is a verdict wherever it stands.
"""

from __future__ import annotations

import re

LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Where ``str.splitlines`` (the parser's line split) breaks a line."""
SPACES = (
    "\t\x1f \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u202f\u205f\u3000"
)
"""Every Unicode whitespace character that does not break a line (what ``\\s`` matches),
written out rather than found by walking all of Unicode at import (60 ms); a test walks it."""
_TRAILING = "\"'`*_.()[]" + SPACES
"""What may follow a verdict number on its line; not a colon (``Option 1:`` heads a section)."""
_DECORATION = re.escape(_TRAILING + ":")
_WORDS = "(?:answer|verdict|choice|decision|option)"
_SPACE = f"[{re.escape(SPACES)}]"
_NAME = rf"(?:final{_SPACE}++)?{_WORDS}{_SPACE}*+[:=\-]?[{_DECORATION}]*+"
_NUMBER = rf"([012])[{re.escape(_TRAILING)}]*+"
_LONE = rf"[{_DECORATION}]*+(?:{_NAME})?{_NUMBER}"
_NAMED = rf"[{_DECORATION}]*+{_NAME}{_NUMBER}"
LONE_NUMBER = re.compile(_LONE, re.IGNORECASE)
"""A line that is only a verdict number: quotes, bold, brackets, any spaces, a trailing period
(no colon) or an ``Answer:`` prefix allowed (``fullmatch`` on one line): what a reply's last
line may be."""
NAMED_NUMBER = re.compile(_NAMED, re.IGNORECASE)
"""A ``LONE_NUMBER`` line that names its verdict (``Answer: 1``, ``**Final verdict: 2**``): a
verdict on any line of a reply."""
NAMED_NUMBER_LINE = re.compile(rf"(?m)^{_NAMED}$", re.IGNORECASE)
"""``NAMED_NUMBER`` on every line of a text whose line breaks are ``\\n``."""
_HEADING_WORDS = (
    r"\s*+(?:Question|Submission(?:\s*+\d++)?|Criteria|User|Speaker\s*+\d++[^\]\n]{0,80}+)\s*+\]"
)
HEADING = re.compile(rf"\[{_HEADING_WORDS}|(?m:^)[^\S\n]*+[*_#>]*+\[(?i:{_HEADING_WORDS})")
"""A heading of ScaleEval's prompts (``[Question]``, ``[Submission 1]``, ``[Speaker 2's …]``):
as the template writes it anywhere, and in any case at a line's start (``As a [user]`` and
``d[user]`` are no headings)."""


def lone_number(line: str) -> str | None:
    """``1``, ``2`` or ``0`` when the line is only that number, named or bare (``LONE_NUMBER``)."""
    match = LONE_NUMBER.fullmatch(line)
    return match.group(1) if match else None


def named_number(line: str) -> str | None:
    """``1``, ``2`` or ``0`` when the line names its verdict (``NAMED_NUMBER``)."""
    match = NAMED_NUMBER.fullmatch(line)
    return match.group(1) if match else None


def parse_number(text: str) -> str | None:
    """The verdict of a ScaleEval reply, which ends with the number repeated on its own line.

    The last non-blank line decides when it is a lone number, bare or named. Otherwise the
    lines that name their verdict decide if they all agree (a reply that adds a remark after
    ``Answer: 1``); different named numbers, or none, give no verdict. A bare digit before the
    last line (a list item, program output, a quoted submission) and numbers inside sentences
    never count.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    last = lone_number(lines[-1])
    if last is not None:
        return last
    found = {n for n in map(named_number, lines) if n is not None}
    return found.pop() if len(found) == 1 else None
