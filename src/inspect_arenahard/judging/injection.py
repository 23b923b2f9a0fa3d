"""Judge-directed text in an answer: what only a judge or a chat template writes (verdict labels,
delimiters, role markers, words addressed to a judge), found in every reading a judge may make of
the answer (``inspect_arenahard.judging.canonical``) and not already in its prompt. The audit's
``injection`` check (``inspect_arenahard.report.audit_checks``) and the curation filter read it.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, repeat
from typing import Iterator

import numpy as np

from inspect_arenahard.judging.canonical import LONG_TEXT, Canonical, code_points
from inspect_arenahard.judging.folding import distinct_values
from inspect_arenahard.judging.integrity import judge_only, match_spans, readings

# run on canonical text; no pattern has nested or overlapping unbounded quantifiers
_ROLE_PHRASES = (
    (
        (
            "im_start", "im_end", "system", "user", "assistant", "tool", "ipython", "endoftext",
            "eot_id", "eom_id", "start_header_id", "end_header_id", "start_of_turn", "end_of_turn",
            "tool_call", "tool_response", "function_call", "python_tag", "tool_calls",
            "tool_results",
        ),
        r"[ \t]{0,4}\|?>",
    ),
    (("instruction", "system", "response", "user", "assistant"), r"[ \t]*:"),
)  # fmt: skip
_ROLE_INITIALS = "".join(sorted({word[0] for words, _ in _ROLE_PHRASES for word in words}))


def _by_first_letter(words: tuple[str, ...]) -> dict[str, list[str]]:
    """The words' tails after their first letter, by that letter (in the words' order)."""
    tails: dict[str, list[str]] = {}
    for word in words:
        tails.setdefault(word[0], []).append(word[1:])
    return tails


_ROLE_WORDS = "|".join(f"(?:{'|'.join(words)}){rest}" for words, rest in _ROLE_PHRASES)
_ROLE_WORD = re.compile(_ROLE_WORDS, re.IGNORECASE)
_ROLE_WORD_LOWER = re.compile(
    "|".join(
        f"{letter}(?:{'|'.join(tails)}){rest}"
        for words, rest in _ROLE_PHRASES
        for letter, tails in _by_first_letter(words).items()
    )
)
"""Chat role markers and tool-call tags of the common chat templates (ChatML, Llama 3, Gemma,
Phi, Hermes/Qwen tool calls, Alpaca's ``### Response:``), matched from their word (runs of
``<`` cost nothing) in the lowercased text where lowercasing keeps the offsets (a
case-sensitive scan is faster: each alternative starts with its letter, so the regex engine
skips any other character at C speed and tries only the words with the letter it stands on, in
their order); the opening before the word (``<|``, ``<``, ``</``, ``##``) is checked by
``_role_markers``."""
_WORD_AFTER_OPENING = re.compile(
    rf"[<#](?:(?<=<)(?=[/|{_ROLE_INITIALS} \t\n])/?\|?|(?<=^#)#{{1,2}})[ \t]{{0,4}}"
    rf"(?=[{_ROLE_INITIALS}\n])(?:({_ROLE_WORD_LOWER.pattern})|\n)",
    re.MULTILINE,
)
"""An opening ``_ROLE_OPEN`` accepts (``<``, ``</``, ``<|``, ``</|``, or ``##``/``###`` at a line
start, then up to four spaces) and the role word it ends at (group 1, lowercased text), or the
line break it ends at (group 1 empty). It starts with the class of the openings' first
characters (the line start is checked behind ``#``), so the scan passes over any other character
at C speed; the character after ``<`` and the one after the opening are checked first (a ``<``
of a tag or a comparison fails at once); one scan gives every word directly after an opening."""
_WORD_AFTER_ANGLE = re.compile(
    rf"<(?=[/|{_ROLE_INITIALS} \t\n])/?\|?[ \t]{{0,4}}(?=[{_ROLE_INITIALS}\n])"
    rf"(?:({_ROLE_WORD_LOWER.pattern})|\n)"
)
"""``_WORD_AFTER_OPENING`` for a text without ``##`` at a line start (no ``#`` is tried; a
pattern that starts with one character is searched for fastest)."""
_WORD_SPAN = operator.methodcaller("span", 1)
_ROLE_OPEN = re.compile(r"</?\|?[ \t]{0,4}$|^#{2,3}[ \t]{0,4}$", re.MULTILINE)
_ROLE_TAGS = (
    ("INST]", ("[/", "[")),
    ("SYS>>", ("<</", "<<")),
    ("TOOL_CALLS]", ("[",)),
    ("TOOL_RESULTS]", ("[", "[/")),
    ("AVAILABLE_TOOLS]", ("[",)),
)
"""Mistral's ``[INST]``/``[/INST]``, ``[TOOL_CALLS]``… and Llama 2's ``<<SYS>>``: found by their
tail with ``str.find`` (a run of brackets costs nothing); the tails holding ``TOOL`` are looked
for only in a text that holds it (one search instead of three in most texts)."""
_TURN = re.compile(
    "|".join(f"{w[0]}(?<=^{w[0]}){w[1:]}[ \\t]*+:" for w in ("Human", "Assistant", "System"))
    + r"|#(?<=^#)#{0,5}[ \t]*+(?i:final[ \t]++)?(?i:verdict)\b",
    re.MULTILINE,
)
"""A fake turn at a line's start (``Human:``, ``Assistant:``, ``System:``) or a verdict heading
(``## Verdict``). Each branch starts with its first character (the line start is checked behind
it), so the scan passes over any other character at C speed."""
_TURN_AFTER_BREAK = re.compile(
    r"\n(?:(?:Human|Assistant|System)[ \t]*+:|#{1,6}[ \t]*+(?i:final[ \t]++)?(?i:verdict)\b)"
)
"""``_TURN`` from the line break before the turn (a scan for one character, the fastest): a
turn holds no line break, so each match ends before the break that starts the next."""
_TO_JUDGE_PHRASES = (
    (
        ("judge", "evaluator", "grader", "rater", "assessor", "reviewer"),
        r"s?\b[^.\n]{0,80}\b(?:ignore|disregard|must|output|verdict|prefer|choose|select|rate|score|favou?r)",
    ),
    (
        ("ignore", "disregard", "forget"),
        r"\s++(?:all\s++|any\s++)?(?:of\s++)?(?:the\s++|your\s++)?(?:previous|prior|above|earlier|other)\b",
    ),
    (
        ("assistant", "answer", "response", "model", "output"),
        r"[ \t]*+[AB](?:'s|\u2019s)?(?:[ \t]++(?:answer|response|output))?[ \t]++(?:is|was)[ \t]++"
        r"(?:(?:far|much|significantly|slightly|clearly|definitely|vastly|considerably|substantially|way)[ \t]++)?"
        r"(?:better|superior|stronger|preferred|preferable|the[ \t]++(?:better|winner|best|stronger))",
    ),
    (("final", "my"), r"[ \t]++verdict\b"),
)
"""Words addressed to a judge, verdict words in their variants (``Assistant B's answer is far
superior``; emphasis inside is removed by the rendered reading): each phrase is a word starting
a word, then the rest."""


def _first_letter_scan(phrases: tuple[tuple[tuple[str, ...], str], ...]) -> str:
    """``\\b(?:word|…)rest|…`` written to start with the class of the words' first letters (the
    word boundary checked behind the letter), so the scan passes over any other character at C
    speed; then the letter is checked once, and only the phrases whose words start with it are
    tried, in their order (words with other letters never match where it stands)."""
    by_letter: dict[str, list[str]] = {}
    for words, rest in phrases:
        for letter, tails in _by_first_letter(words).items():
            by_letter.setdefault(letter, []).append(f"(?:{'|'.join(tails)}){rest}")
    initials = "".join(sorted(by_letter))
    branches = "|".join(f"(?<={k})(?:{'|'.join(v)})" for k, v in by_letter.items())
    return rf"[{initials}](?<!\w.)(?:{branches})"


_TO_JUDGE = re.compile(_first_letter_scan(_TO_JUDGE_PHRASES), re.IGNORECASE)
"""The judge-directed phrases, case ignored."""
_TO_JUDGE_LOWER = re.compile(_TO_JUDGE.pattern.replace("[AB]", "[ab]"))
"""``_TO_JUDGE`` for lowercased text (a case-sensitive scan is faster); it matches where
``_TO_JUDGE`` does unless the text holds a character that matches a Latin letter only when case
is ignored (``_CASE_EXTRAS``) or lowercases to two."""
_CASE_EXTRAS = "\u0130\u0131\u017f"
"""The characters besides the Kelvin sign (which lowercases to ``k``) that match an ASCII letter
when case is ignored: ``İ`` and ``ı`` (``i``), ``ſ`` (``s``)."""
_FENCE = re.compile(r"^[ \t]*```", re.MULTILINE)
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


Hits = list[tuple[str, np.ndarray, np.ndarray]]
"""What a reading holds: (kind, starts, ends) per recogniser, canonical spans in the order found."""


def _judge_only(canon: Canonical) -> Hits:
    """(kind, starts, ends) of the spans of ``canon`` that a judge or a chat template writes."""
    text = canon.text
    hits: Hits = []
    for kind, found in judge_only(canon):
        starts, ends = found.starts, found.ends
        if kind == "battle_label" and len(starts):
            line_ends = map(_LINE_END.match, repeat(text), ends.tolist())
            ends_line = np.fromiter(map(operator.is_not, line_ends, repeat(None)), bool, len(ends))
            starts, ends = starts[ends_line], ends[ends_line]
        hits.append((kind, starts, ends))
    lowered = text.lower()
    folded = len(lowered) == len(text)  # lowercasing kept every offset
    hits.append(("role_marker", *_role_markers(text, lowered if folded else None)))
    lower_scan = folded and not _case_extras(text)
    phrases = _judge_phrases(lowered) if lower_scan else match_spans(_TO_JUDGE.finditer(text))
    hits.append(("judge_instruction", *phrases))
    return hits


def _judge_phrases(lowered: str) -> tuple[np.ndarray, np.ndarray]:
    """``_TO_JUDGE_LOWER``'s matches in ``lowered``: in a long text, tried only where a phrase's
    word can start (``_phrases_where_words_start``); a short one is scanned whole (the array
    operations cost more there)."""
    if len(lowered) < LONG_TEXT:
        return match_spans(_TO_JUDGE_LOWER.finditer(lowered))
    return _phrases_where_words_start(lowered)


def _phrases_where_words_start(lowered: str) -> tuple[np.ndarray, np.ndarray]:
    """``_TO_JUDGE_LOWER``'s matches in ``lowered``, tried only where a phrase's word can start:
    one of its words whole, a character that may follow it, and no ASCII word character before
    it (array operations on the text's bytes); where that leaves many places, one scan of the
    whole text. A match starts only at such a place, so trying each in order after the last
    match's end finds what the scan finds."""
    places = _phrase_starts(lowered)
    if places is None:
        return match_spans(_TO_JUDGE_LOWER.finditer(lowered))
    tried = map(_TO_JUDGE_LOWER.match, repeat(lowered), places.tolist())
    spans: list[int] = []
    end = 0
    for found in filter(None, tried):  # a match inside the one before is not scanned for
        if found.start() >= end:
            spans += found.span()
            end = spans[-1]
    flat = np.array(spans, np.int64)
    return flat[0::2], flat[1::2]


def _phrase_starts(lowered: str) -> np.ndarray | None:
    """Where a judge phrase may start in ``lowered`` (a superset, ascending): one of its words
    whole, a character that can follow it there, and no ASCII word character before it; or
    None when that is more than one place in 16 (beyond, one scan of the whole text is
    faster)."""
    raw = lowered.encode("ascii", "replace")  # a non-ASCII character as ``?``
    padded = raw + b"\x7f" * _LONGEST_WORD  # what follows the last word: the text's end
    codes = np.frombuffer(padded, np.uint8)
    firsts = []
    for offset in (0, 1):  # the pairs starting at even places, then odd ones
        pairs = np.frombuffer(padded, "<u2", max(0, len(raw) - offset) // 2, offset)
        firsts.append(np.flatnonzero(_PAIR_STARTS.take(pairs)) * 2 + offset)
    places = np.sort(np.concatenate(firsts))
    rows = _PAIR_ROWS[codes[places] + 256 * codes[places + 1].astype(np.int64)]
    kept = _THIRDS[rows, codes[places + 2]]  # drops most places at once
    kept &= (places == 0) | ~_ASCII_WORD[codes[np.maximum(places - 1, 0)]]
    places, rows = places[kept], rows[kept]
    whole = np.zeros(len(places), bool)
    for row, word, follows in _WORD_CHECKS:
        mine = np.flatnonzero(rows == row)
        at = places[mine]
        fits = follows[codes[at + len(word)]]
        for k in range(2, len(word)):
            fits &= codes[at + k] == ord(word[k])
        whole[mine[fits]] = True
    places = places[whole]
    return None if 16 * len(places) > len(raw) else places


_FOLLOWING = (r"[s\W]", r"\s", r"[ \tab]", r"[ \t]")
"""By phrase of ``_TO_JUDGE_PHRASES``, what the character after its word can be (the start
of its rest: a word boundary or the plural ``s``, a space, ``[ \\t]*+[ab]``, a space or tab)."""


def _phrase_tables() -> tuple[np.ndarray, np.ndarray, list[tuple[int, str, np.ndarray]]]:
    """By the first two letters of a phrase's word (``first + 256 * second``, the text's bytes
    read as little-endian pairs): a row, or -1 where no word starts so; by row, the third
    characters that may follow (any, after a two-letter word); and for each word, its row, the
    word, and by byte whether it can follow the word (``_FOLLOWING``). The bytes ``?`` (which
    stands for a non-ASCII character too) and ``\x7f`` (the text's end) may follow any word."""
    rows = np.full(1 << 16, -1, np.int64)
    thirds: list[np.ndarray] = []
    checks = []
    for (words, _), following in zip(_TO_JUDGE_PHRASES, _FOLLOWING, strict=True):
        follows = np.array([re.fullmatch(following, chr(c)) is not None for c in range(256)])
        follows[[ord("?"), 0x7F]] = True
        for word in words:
            key = ord(word[0]) + 256 * ord(word[1])
            if rows[key] < 0:
                rows[key] = len(thirds)
                thirds.append(np.zeros(256, bool))
            if len(word) > 2:
                thirds[rows[key]][ord(word[2])] = True
            else:
                thirds[rows[key]][:] = True
            checks.append((int(rows[key]), word, follows))
    return rows, np.array(thirds), checks


_PAIR_ROWS, _THIRDS, _WORD_CHECKS = _phrase_tables()
_PAIR_STARTS = _PAIR_ROWS >= 0
"""Whether a phrase's word starts with a pair (a table of bytes: read faster than the rows)."""
_LONGEST_WORD = max(len(word) for words, _ in _TO_JUDGE_PHRASES for word in words)
_ASCII_WORD = np.array([chr(c).isalnum() or c == ord("_") for c in range(256)]) & (
    np.arange(256) < 128
)
"""Whether a byte is an ASCII word character (what ``\\w`` matches below U+0080)."""


def _scanned(text: str) -> Iterator[tuple[Canonical, Hits]]:
    """Each reading of ``text`` with its hits; a reading whose text equals one already scanned
    reuses its hits (the recognisers read only the text)."""
    hits: dict[str, Hits] = {}
    for canon in readings(text):
        if canon.text not in hits:
            hits[canon.text] = _judge_only(canon)
        yield canon, hits[canon.text]


def _key(text: str) -> str:
    """A span compared with the prompt's: case and whitespace ignored."""
    return "".join(text.split()).lower()


def injection_findings(prompt: str, answer: str) -> dict[str, set[str]]:
    """Judge-directed text in ``answer`` that its ``prompt`` does not itself contain (the same
    span, case and spacing aside, in any reading): each kind found, with the spellings it was
    written in (``inspect_arenahard.judging.canonical.SPELLINGS``). A span that overlaps one of
    its own kind found in an earlier reading is that finding again and adds no spelling; a span
    of another kind beside or inside it is its own finding."""
    asked = _asked(prompt)
    found: dict[str, set[str]] = {}
    seen: dict[str, _EarlierSpans] = {}  # by kind: the original spans earlier readings found
    for canon, hits in _scanned(answer):
        hits = [hit for hit in hits if len(hit[1])]
        if not hits:
            continue
        first = np.concatenate([starts for _, starts, _ in hits])
        last = np.concatenate([ends for _, _, ends in hits])
        lo, hi = canon.spans(first, last)
        fresh = np.ones(len(first), bool)
        if asked:
            text = canon.text
            fresh &= np.fromiter(
                (_key(text[a:b]) not in asked for a, b in zip(first.tolist(), last.tolist())),
                bool,
                len(first),
            )
        at = 0
        for kind, starts, ends in hits:
            mine = slice(at, at + len(starts))
            at += len(starts)
            earlier = seen.get(kind)
            if earlier is not None:
                fresh[mine] &= ~earlier.overlapped(lo[mine], hi[mine])
            kept = fresh[mine]
            if kept.any():
                spans = np.stack([starts[kept], ends[kept]], axis=1)
                found.setdefault(kind, set()).update(canon.spellings(spans))
            seen[kind] = _EarlierSpans.joined(earlier, lo[mine], hi[mine])
    return found


@lru_cache(maxsize=64)
def _asked(prompt: str) -> frozenset[str]:
    """The judge-directed spans a prompt itself contains (an answer may repeat them): a prompt
    is read once however many answers it has."""
    return frozenset(
        _key(canon.text[start:end])
        for canon, hits in _scanned(prompt)
        for _, starts, ends in hits
        for start, end in zip(starts.tolist(), ends.tolist())
    )


@dataclass(frozen=True)
class _EarlierSpans:
    """Spans found so far, ordered by start, with ``reach``: the largest end among the spans up
    to each. A span ``[lo, hi)`` overlaps one of them exactly when the last one starting before
    ``hi`` reaches past ``lo`` (one search per span, however the spans nest)."""

    starts: np.ndarray
    ends: np.ndarray
    reach: np.ndarray

    @staticmethod
    def joined(earlier: _EarlierSpans | None, lo: np.ndarray, hi: np.ndarray) -> _EarlierSpans:
        """``earlier``'s spans and ``[lo, hi)`` together."""
        if earlier is not None:
            lo, hi = np.concatenate([earlier.starts, lo]), np.concatenate([earlier.ends, hi])
        order = np.argsort(lo, kind="stable")
        ends = hi[order]
        return _EarlierSpans(lo[order], ends, np.maximum.accumulate(ends))

    def overlapped(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Whether each ``[lo, hi)`` shares a character with any of these spans."""
        if not len(self.starts):
            return np.zeros(len(lo), bool)
        before = np.searchsorted(self.starts, hi, "left")  # spans starting before hi
        return (before > 0) & (self.reach[np.maximum(before - 1, 0)] > lo)


def _role_markers(text: str, lowered: str | None) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of role markers (``<|im_start|>``, ``[INST]``, ``### System:``,
    ``<tool_call>``) and of fake turns at a line start (``Human:``, ``Assistant:``,
    ``## Verdict``), in that order; ``lowered``: ``text.lower()`` where that keeps every offset,
    else None."""
    hashed = "\n##" in text or text.startswith("##")  # a ``##`` opening starts a line
    marks = text.count("<") + (text.count("#") if hashed else 0)  # where openings can start
    if not marks:
        words = (_NONE, _NONE)  # a role word needs its opening
    elif lowered is None:
        words = match_spans(_ROLE_WORD.finditer(text))
    elif 8 * marks >= len(text):  # openings everywhere: one scan for the words is cheaper
        words = match_spans(_ROLE_WORD_LOWER.finditer(lowered))
    elif (after_openings := _words_at_openings(lowered, hashed)) is not None:
        words = after_openings
    elif len(text) < LONG_TEXT:
        words = match_spans(_ROLE_WORD_LOWER.finditer(lowered))
    else:
        words = _words_after_openings(lowered)
    starts, ends = _opened(text, *words)
    tags: list[int] = []
    tools = "TOOL" in text
    for tail, openings in _ROLE_TAGS:
        at = text.find(tail) if tools or "TOOL" not in tail else -1
        while at >= 0:
            tag = next(
                (o for o in openings if at >= len(o) and text.startswith(o, at - len(o))), None
            )
            if tag is not None:
                tags += (at - len(tag), at + len(tail))
            at = text.find(tail, at + 1)
    flat = np.array(tags, np.int64)
    turns = _turns(text)
    return (
        np.concatenate([starts, flat[0::2], turns[0]]),
        np.concatenate([ends, flat[1::2], turns[1]]),
    )


def _words_at_openings(lowered: str, hashed: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """The role words of ``lowered`` that start where an opening ends (``_WORD_AFTER_OPENING``),
    or None when an opening ends at a line break (``_ROLE_OPEN`` then also accepts a word
    later on the next line). Without such an opening, these are the words of a scan of the
    whole text that an opening precedes: a role word holds no ``<`` or ``#`` and ends with
    ``>`` or ``:``, so none covers an opening, and an opening that does not end at a break
    ends where its word starts. ``hashed``: whether ``##`` starts a line."""
    scan = _WORD_AFTER_OPENING if hashed else _WORD_AFTER_ANGLE
    scanned = map(_WORD_SPAN, scan.finditer(lowered))
    flat = np.fromiter(chain.from_iterable(scanned), np.int64)
    if len(flat) and flat.min() < 0:  # an opening at a line break (its group unmatched)
        return None
    return flat[0::2], flat[1::2]


def _turns(text: str) -> tuple[np.ndarray, np.ndarray]:
    """``_TURN``'s matches in ``text``: at its start, then each from the break before it."""
    first = _TURN.match(text)
    starts, ends = match_spans(_TURN_AFTER_BREAK.finditer(text))
    if first is not None:
        return np.append(first.start(), starts + 1), np.append(first.end(), ends)
    return starts + 1, ends


def _case_extras(text: str) -> bool:
    """Whether ``text`` holds a ``_CASE_EXTRAS`` character (substring searches: an ASCII text
    is answered at once)."""
    return not text.isascii() and any(ch in text for ch in _CASE_EXTRAS)


def _words_after_openings(lowered: str) -> tuple[np.ndarray, np.ndarray]:
    """``_ROLE_WORD_LOWER``'s matches in ``lowered`` that an opening may precede, tried only
    where one can start: where an opening ends (``_openings``), and after an opening that ends
    at a line break, up to ``_LONGEST_OPENING`` characters from its start; only where a role
    word's first letter stands. Where that leaves many places, one scan of the whole text.

    Tried in order after the last match's end, these find the scan's matches that start there:
    a match holds no ``<``, ``#`` or line break, so one that covers a place is never before an
    opening's end, and one that covers a place after a break starts at a place after it."""
    codes = code_points(lowered)
    at, end, at_break = _openings(codes)
    broken = np.flatnonzero(at_break & (end >= 0))
    later = (end[broken, None] + np.arange(1, _LONGEST_OPENING)).ravel()
    later = later[later <= np.repeat(at[broken] + _LONGEST_OPENING, _LONGEST_OPENING - 1)]
    places = np.concatenate([end[(end >= 0) & ~at_break], later])
    places = places[places < len(codes)]
    places = places[_INITIAL[np.minimum(codes[places], len(_INITIAL) - 1)]]
    if 16 * len(places) > len(lowered):
        return match_spans(_ROLE_WORD_LOWER.finditer(lowered))
    match = _ROLE_WORD_LOWER.match
    spans: list[int] = []
    last = 0
    for place in distinct_values(places).tolist():
        if place >= last and (found := match(lowered, place)) is not None:
            spans += found.span()
            last = spans[-1]
    flat = np.array(spans, np.int64)
    return flat[0::2], flat[1::2]


_INITIAL = np.zeros(0x80, bool)
_INITIAL[list(map(ord, _ROLE_INITIALS))] = True
"""Whether a code point (clipped to U+007F, in none) is a role word's first letter."""
_NONE = np.zeros(0, np.int64)
_LONGEST_OPENING = 7
"""``</|`` and four spaces: ``_ROLE_OPEN`` is searched this far before a role word."""
_CODE = {ch: ord(ch) for ch in "<#/| \t\n>"}


def _opened(text: str, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The role words ``[starts, ends)`` that an opening precedes, each from its opening: where
    ``_ROLE_OPEN.search(text, max(0, start - 7), start)`` matches, an opening with ``<`` for a
    word ending with ``>`` and one with ``##`` for a word ending with ``:``. Every opening is
    read once (``_openings``); then, for every word at once, the openings in its seven places
    are tried from the farthest (the search's leftmost match) on, one matching where it ends at
    the word or at a line break before it. Where words are few, only the places before them are
    read, as one string of blocks (the character before the seven places, the seven, and ``x``
    standing for the word's first letter), so the work follows the words, not the text."""
    if not len(starts):
        return _NONE, _NONE
    block = _LONGEST_OPENING + 2
    if block * len(starts) < len(text):
        padded = "\x00" * _LONGEST_OPENING + "\n" + text  # before the text: a line start
        windows = map(slice, starts.tolist(), (starts + block - 1).tolist())
        codes = code_points("x".join(map(padded.__getitem__, windows)) + "x")
        words = np.arange(len(starts)) * block + block - 1  # where each word stands in them
    else:
        codes, words = code_points(text), starts
    at, end, at_break = _openings(codes)
    first = np.searchsorted(at, words - _LONGEST_OPENING)
    last = np.searchsorted(at, words)
    opening = np.full(len(starts), -1, np.int64)  # where each word's opening starts
    rows = np.flatnonzero(first < last)
    k = first[rows]
    while len(rows):
        word = words[rows]
        matches = (end[k] == word) | (at_break[k] & (end[k] < word))
        opening[rows[matches]] = at[k[matches]]
        k = k + 1
        left = ~matches & (k < last[rows])
        rows, k = rows[left], k[left]
    kept = opening >= 0
    angled = codes[np.maximum(opening, 0)] == _CODE["<"]
    tags = code_points("".join(map(text.__getitem__, (ends - 1).tolist()))) == _CODE[">"]
    kept &= angled == tags
    return (opening - words + starts)[kept], ends[kept]


def _openings(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every place an opening of ``_ROLE_OPEN`` can start (``<``, or ``##`` at a line start),
    where it ends (-1: it cannot be one), and whether a line break follows it. Its characters
    (``/ | # `` space, tab) are never a role word's first letter, so an opening read to its end
    here stops where it would stop before the word (the search's end); and they are distinct,
    so each place has one way to match (no backtracking changes it)."""
    c = _CODE
    padded = np.append(codes, 0)  # the end reads as a character of no opening
    at = np.flatnonzero((codes == c["<"]) | (codes == c["#"]))
    angle = padded[at] == c["<"]
    hashes = ~angle & ((at == 0) | (padded[at - 1] == c["\n"]))  # at - 1 = -1 reads the pad
    end = at + 1  # after ``<`` or the first ``#``
    for wanted, step in (("/", angle), ("|", angle), ("#", hashes), ("#", hashes)):
        end += step & (padded[end] == c[wanted])
    hashes &= end >= at + 2  # two or three ``#`` (after a fourth, the opening cannot end)
    for _ in range(4):
        here = padded[end]
        end += (here == c[" "]) | (here == c["\t"])
    end[~(angle | hashes)] = -1
    return at, end, padded[end] == c["\n"]


def injection_kinds(prompt: str, answer: str) -> set[str]:
    """Kinds of judge-directed text in ``answer`` that its ``prompt`` does not itself contain."""
    return set(injection_findings(prompt, answer))
