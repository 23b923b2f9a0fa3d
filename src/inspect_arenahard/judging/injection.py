"""Judge-directed text in an answer: what only a judge or a chat template writes (verdict labels,
delimiters, role markers, words addressed to a judge), found in every reading a judge may make of
the answer (``inspect_arenahard.judging.canonical``) and not already in its prompt. The audit's
``injection`` check (``inspect_arenahard.report.audit_checks``) and the curation filter read it.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Iterator

from inspect_arenahard.judging.canonical import Canonical
from inspect_arenahard.judging.integrity import judge_only, readings

# run on canonical text; no pattern has nested or overlapping unbounded quantifiers
_ROLE_WORDS = (
    r"(?:im_start|im_end|system|user|assistant|tool|ipython|endoftext|eot_id|eom_id|start_header_id"
    r"|end_header_id|start_of_turn|end_of_turn|tool_call|tool_response|function_call|python_tag"
    r"|tool_calls|tool_results)[ \t]{0,4}\|?>"
    r"|(?:instruction|system|response|user|assistant)[ \t]*:"
)
_ROLE_WORD = re.compile(_ROLE_WORDS, re.IGNORECASE)
_ROLE_WORD_LOWER = re.compile(_ROLE_WORDS)
"""Chat role markers and tool-call tags of the common chat templates (ChatML, Llama 3, Gemma,
Phi, Hermes/Qwen tool calls, Alpaca's ``### Response:``), matched from their word (runs of
``<`` cost nothing) in the lowercased text where lowercasing keeps the offsets (a
case-sensitive scan is several times faster); the opening before the word (``<|``, ``<``,
``</``, ``##``) is checked by ``_role_markers``."""
_ROLE_OPEN = re.compile(r"</?\|?[ \t]{0,4}$|^#{2,3}[ \t]{0,4}$", re.MULTILINE)
_ROLE_TAGS = (
    ("INST]", ("[/", "[")),
    ("SYS>>", ("<</", "<<")),
    ("TOOL_CALLS]", ("[",)),
    ("TOOL_RESULTS]", ("[", "[/")),
    ("AVAILABLE_TOOLS]", ("[",)),
)
"""Mistral's ``[INST]``/``[/INST]``, ``[TOOL_CALLS]``… and Llama 2's ``<<SYS>>``: found by their
tail with ``str.find`` (a run of brackets costs nothing)."""
_TURN = re.compile(
    r"^(?:Human|Assistant|System)[ \t]*+:|^#{1,6}[ \t]*+(?i:final[ \t]++)?(?i:verdict)\b",
    re.MULTILINE,
)
"""A fake turn at a line's start (``Human:``, ``Assistant:``, ``System:``) or a verdict heading
(``## Verdict``)."""
_SIDE = r"(?:assistant|answer|response|model|output)[ \t]*+[AB](?:'s|\u2019s)?(?:[ \t]++(?:answer|response|output))?"
_TO_JUDGE = re.compile(
    r"\b(?:judge|evaluator|grader|rater|assessor|reviewer)s?\b[^.\n]{0,80}\b(?:ignore|disregard|must|output|verdict|prefer|choose|select|rate|score|favou?r)"
    r"|\b(?:ignore|disregard|forget)\s++(?:all\s++|any\s++)?(?:of\s++)?(?:the\s++|your\s++)?(?:previous|prior|above|earlier|other)\b"
    rf"|\b{_SIDE}[ \t]++(?:is|was)[ \t]++(?:(?:far|much|significantly|slightly|clearly|definitely|vastly|considerably|substantially|way)[ \t]++)?(?:better|superior|stronger|preferred|preferable|the[ \t]++(?:better|winner|best|stronger))"
    r"|\b(?:final|my)[ \t]++verdict\b",
    re.IGNORECASE,
)
"""Words addressed to a judge, verdict words in their variants (``Assistant B's answer is far
superior``; emphasis inside is removed by the rendered reading)."""
_LINE_END = re.compile(r"[ \t*_.!)\]]*+(?:\n|\Z)")
"""A battle label counts when it ends its line, as a verdict does (``the winner is [B]``);
options such as ``[A] red and [B] blue`` are honest text."""


INJECTION_KINDS: tuple[str, ...] = (
    "verdict_label",
    "delimiter",
    "battle_label",
    "scaleeval_heading",
    "scaleeval_verdict",
    "role_marker",
    "judge_instruction",
)
"""What the ``injection`` check counts (the evidence's kinds)."""


def _judge_only(canon: Canonical) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of every span of ``canon`` that a judge or a chat template writes."""
    text = canon.text
    for kind, f in judge_only(canon):
        if kind == "battle_label" and not _LINE_END.match(text, f.end):
            continue
        yield kind, f.start, f.end
    for start, end in _role_markers(text):
        yield "role_marker", start, end
    for m in _TO_JUDGE.finditer(text):
        yield "judge_instruction", m.start(), m.end()


def _key(text: str) -> str:
    """A span compared with the prompt's: case and whitespace ignored."""
    return "".join(text.split()).lower()


def injection_findings(prompt: str, answer: str) -> dict[str, set[str]]:
    """Judge-directed text in ``answer`` that its ``prompt`` does not itself contain (the same
    span, case and spacing aside, in any reading): each kind found, with the spellings it was
    written in (``inspect_arenahard.judging.canonical.SPELLINGS``)."""
    asked = {
        _key(canon.text[start:end])
        for canon in readings(prompt)
        for _, start, end in _judge_only(canon)
    }
    found: dict[str, set[str]] = {}
    seen: list[tuple[int, int]] = []  # original spans found in an earlier reading
    for canon in readings(answer):
        spans: dict[str, list[tuple[int, int]]] = {}
        here: list[tuple[int, int]] = []
        for kind, start, end in _judge_only(canon):
            lo, hi = canon.span(start, end)
            here.append((lo, hi))
            if _key(canon.text[start:end]) in asked or _overlaps(seen, lo, hi):
                continue
            spans.setdefault(kind, []).append((start, end))
        for kind, where in spans.items():
            found.setdefault(kind, set()).update(canon.spellings(where))
        seen = sorted(seen + here)
    return found


def _overlaps(spans: list[tuple[int, int]], lo: int, hi: int) -> bool:
    """Whether ``[lo, hi)`` meets one of the sorted ``spans`` (found in an earlier reading)."""
    k = bisect_right(spans, (lo, hi)) if spans else 0
    return (k > 0 and spans[k - 1][1] > lo) or (k < len(spans) and spans[k][0] < hi)


def _role_markers(text: str) -> Iterator[tuple[int, int]]:
    """Spans of role markers (``<|im_start|>``, ``[INST]``, ``### System:``, ``<tool_call>``)
    and of fake turns at a line start (``Human:``, ``Assistant:``, ``## Verdict``)."""
    lowered = text.lower()
    words = (
        _ROLE_WORD_LOWER.finditer(lowered)
        if len(lowered) == len(text)
        else _ROLE_WORD.finditer(text)
    )
    for m in words:
        opening = _ROLE_OPEN.search(text, max(0, m.start() - 7), m.start())
        if opening is not None and (m.group(0).endswith(">") == (opening.group(0)[0] == "<")):
            yield opening.start(), m.end()
    for tail, openings in _ROLE_TAGS:
        at = text.find(tail)
        while at >= 0:
            tag = next((o for o in openings if text.startswith(o, at - len(o))), None)
            if tag is not None:
                yield at - len(tag), at + len(tail)
            at = text.find(tail, at + 1)
    for m in _TURN.finditer(text):
        yield m.start(), m.end()


def injection_kinds(prompt: str, answer: str) -> set[str]:
    """Kinds of judge-directed text in ``answer`` that its ``prompt`` does not itself contain."""
    return set(injection_findings(prompt, answer))
