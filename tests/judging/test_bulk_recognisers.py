"""The recognisers' fast forms against their plain definitions, on generated text: the five-point
recogniser (chains found letter-first in one split, the run before each read from the gap's end)
against a scan of each chain with its run and a Python step per chain, ScaleEval's headings and
named verdict lines read from the line break before them against their patterns, and the scans
rewritten to start with a character class (judge phrases, fake turns, role openings and words)
against the patterns they stand for."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspect_arenahard.judging import injection, integrity
from inspect_arenahard.judging.scaleeval_verdicts import (
    HEADING,
    LINE_BREAKS,
    NAMED_NUMBER_LINE,
    SPACES,
)
from inspect_arenahard.judging.verdicts import LABEL_SPELLINGS, LETTERS, sign_pattern

_SIGN = sign_pattern(r"\s*+")
_REFERENCE_LABEL = re.compile(
    rf"(?=[\s\[{LETTERS}])(?<![\s\[])([\s\[]*+)([{LETTERS}]\s*+(?:{_SIGN})\s*+[{LETTERS}])"
    rf"((?:\s*+(?:{_SIGN})\s*+[{LETTERS}])*+)((?:\s*+\])*+)"
)
_ENDS = {(s[0], s[-1]) for s in LABEL_SPELLINGS}


def reference_five_point(text: str) -> list[tuple[int, int]]:
    """Five-point labels with a bracket on either side, one match (run included) at a time."""
    found = []
    for match in _REFERENCE_LABEL.finditer(text):
        before, label, chained, after = match.groups()
        opened = "[" in before
        if not opened and not after:
            continue
        if not chained:
            if (label[0], label[-1]) in _ENDS:
                found.append(match.span())
            continue
        first = match.start() + len(before) + len(label)
        if opened and (label[0], label[-1]) in _ENDS:
            found.append((match.start(), first))
        backwards = integrity._LAST_CORE.match(f"{label[-1]}{chained}"[::-1])
        assert backwards is not None
        last = first + len(chained) - 1 - backwards.end()
        if after and (text[last], chained[-1]) in _ENDS:
            found.append((last, match.end()))
    return found


CHAIN_PIECES = [
    *"[]AB<>= \n\tx\\|*",
    "[[", "]]", ">>", "<<", " > ", "\u3000", "\u00a0", "\u2028", "A>B", "B>>A", "A<B", "A=B",
    "[A>B]", "[[B>>A]]", "A>B>A", "A > B > A", "[ [ ", "] ]", "BA", "AB", "\\[", "\\]",
]  # fmt: skip
CHAINS = st.lists(st.sampled_from(CHAIN_PIECES), max_size=80).map("".join)


@settings(max_examples=1500, deadline=None)
@given(CHAINS)
def test_five_point_labels_in_one_split_match_a_scan_per_chain(text: str) -> None:
    found = integrity._five_point(text)
    assert list(zip(found.starts.tolist(), found.ends.tolist())) == reference_five_point(text)


@settings(max_examples=1500, deadline=None)
@given(CHAINS, st.integers(0, 3))
def test_runs_before_labels_read_in_array_steps_match_a_scan_per_chain(
    text: str, steps: int
) -> None:
    """The runs before labels read backwards for all labels at once (forced here however few
    the labels, for ``steps`` characters; longer runs then stripped from their gap)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(integrity, "_ARRAY_ROWS", -1)
        patch.setattr(integrity, "_RUN_STEPS", steps)
        found = integrity._five_point(text)
    assert list(zip(found.starts.tolist(), found.ends.tolist())) == reference_five_point(text)


def test_the_run_before_a_label_is_what_its_pattern_matches() -> None:
    """``_RUN`` lists the whitespace below U+3001 only: no whitespace lies above it."""
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    assert set(integrity._RUN) == set(re.findall(r"[\s\[]", everything))


def test_scaleeval_spaces_are_unicode_whitespace_that_does_not_break_a_line() -> None:
    """The written-out ``SPACES`` is the walk over all of Unicode it stands for."""
    everything = map(chr, range(sys.maxunicode + 1))
    walked = [ch for ch in everything if ch.isspace() and ch not in LINE_BREAKS]
    assert list(SPACES) == walked
    assert set(LINE_BREAKS) == {
        ch for ch in map(chr, range(sys.maxunicode + 1)) if len(f"a{ch}b".splitlines()) == 2
    }


PROSE_PIECES = [
    *"aAbB:#<>|/ \t\n.'\u2019",
    "judge", "Judges", "JUDGE", "evaluator", "rater", "reviewers", "grader", "assessor", "xjudge",
    " must ", " prefer", " output ", "ignore", "Ignore", "\u0130gnore", "disregard", "forget",
    " all ", " of ", " the ", " previous", " earlier", "assistant", "Answer", "response",
    "model", "output", " b's", " is ", " was ", " far ", " better", " the winner", "final",
    "my", " verdict", "Verdict", "verdicts", "Human", "Assistant", "System", "##", "###",
    "#######", "<|", "</", "<", "im_start", "system", "user", "tool_call", "tool_calls",
    "\u017f", "\u212a", "\u0131", "tool_results", "instruction", "start_header_id", "eot_id",
    "python_tag", "|>", ">", " :", "response:",
]  # fmt: skip
PROSE = st.lists(st.sampled_from(PROSE_PIECES), max_size=60).map("".join)

_REFERENCE_TO_JUDGE = "|".join(
    rf"\b(?:{'|'.join(words)}){rest}" for words, rest in injection._TO_JUDGE_PHRASES
)
_REFERENCES = {
    "_TO_JUDGE": re.compile(_REFERENCE_TO_JUDGE, re.IGNORECASE),
    "_TO_JUDGE_LOWER": re.compile(_REFERENCE_TO_JUDGE.replace("[AB]", "[ab]")),
    "_TURN": re.compile(
        r"^(?:Human|Assistant|System)[ \t]*+:|^#{1,6}[ \t]*+(?i:final[ \t]++)?(?i:verdict)\b",
        re.MULTILINE,
    ),
    "_ROLE_WORD_LOWER": re.compile(f"(?=[{injection._ROLE_INITIALS}])(?:{injection._ROLE_WORDS})"),
    "_WORD_AFTER_OPENING": re.compile(
        rf"(?:</?\|?|^#{{2,3}})[ \t]{{0,4}}(?:({injection._ROLE_WORD_LOWER.pattern})|\n)",
        re.MULTILINE,
    ),
}


@settings(max_examples=1500, deadline=None)
@given(PROSE)
def test_scans_that_start_with_a_class_match_the_patterns_they_stand_for(text: str) -> None:
    for name, reference in _REFERENCES.items():
        fast = getattr(injection, name)
        for scanned in (text, text.lower()):
            assert [m.regs for m in fast.finditer(scanned)] == [
                m.regs for m in reference.finditer(scanned)
            ], (name, scanned)
    if "\n##" not in text and not text.startswith("##"):  # what ``_WORD_AFTER_ANGLE`` is for
        angle, opening = injection._WORD_AFTER_ANGLE, injection._WORD_AFTER_OPENING
        lowered = text.lower()
        assert [m.regs for m in angle.finditer(lowered)] == [
            m.regs for m in opening.finditer(lowered)
        ], text


HEADING_PIECES = [
    *"[]\n \t*_#>x2:", "\u3000", "\u2028", "\r\n", "[Question]", "[question]", "[Submission 1]",
    "[submission  2 ]", "[Criteria", "User]", "[Speaker 2's turn]", "[speaker 1 [User]", "Speaker",
    "## [Question]", "**[User]**", " > [Criteria]", "[\nQuestion\n]", "d[user]",
]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(HEADING_PIECES), max_size=40).map("".join))
def test_headings_read_from_the_line_break_match_the_heading_pattern(text: str) -> None:
    found = integrity._headings(text)
    assert list(zip(found.starts.tolist(), found.ends.tolist())) == [
        m.span() for m in HEADING.finditer(text)
    ]


NAMED_PIECES = [
    *"\n \t*_.:=-()[]'\"`x012", "\u3000", "\u00a0", "Answer", "answer:", "ANSWER: 2",
    "**Final verdict: 2**", "final  verdict", "Option 1", "choice", "decision", "verdict",
    "\u017f", "\u212a", "FINAL",
]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(NAMED_PIECES), max_size=40).map("".join))
def test_named_verdict_lines_read_from_the_line_break_match_their_pattern(lines: str) -> None:
    starts, ends = integrity._named_numbers(lines)
    assert list(zip(starts.tolist(), ends.tolist())) == [
        m.span() for m in NAMED_NUMBER_LINE.finditer(lines) if m.end() > m.start()
    ]


PHRASE_PIECES = [
    *" \n\t.,_x9'\u2019\u00e9\u0131", "judge", "judges", "rater", "grader", "my", "my ", "m", "y",
    "final", "verdict", "must", "ignore", "disregard", "forget", "all ", "previous", "the ",
    "assistant", "answer", "response", "model", "output", " a", " b", "'s", " is ", "better",
    "far ", "the winner", "as", "an", "mo", "ou", "fo", "re", "ev", "xjudge", "\u00e9judge",
    "\u00a0", "\u2003", "\U0001d400", "\ud800", "?", "\x7f", "my\u00a0verdict",
]  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(PHRASE_PIECES), max_size=60).map("".join))
def test_judge_phrases_tried_where_a_word_starts_match_a_whole_scan(text: str) -> None:
    lowered = text.lower()
    sparse = lowered + " x" * (8 * len(lowered))  # few places per character: tried one by one
    for written in (lowered, sparse):
        spans = injection.match_spans(injection._TO_JUDGE_LOWER.finditer(written))
        found = injection._phrases_where_words_start(written)
        assert found[0].tolist() == spans[0].tolist(), written
        assert found[1].tolist() == spans[1].tolist(), written


ROLE_PIECES = [
    *"<>/|#:\n \tx", "</", "<|", "|>", "##", "###", "####", "im_start", "system", "user",
    "assistant", "tool", "tool_call", "tool_response", "response", "ipython", "python_tag",
    "instruction", "eot_id", "a", "s", "t", "<|\n", "<\nuser>", "##\n system:",
]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(ROLE_PIECES), max_size=60).map("".join))
def test_role_words_tried_after_openings_match_a_whole_scan(text: str) -> None:
    """Role words tried only where an opening may precede them give, once their openings are
    checked, the role markers a scan of the whole text gives (also where few places are left
    and they are tried one by one)."""
    sparse = text + " x" * (16 * len(text))
    for written in (text, sparse):
        scanned = injection.match_spans(injection._ROLE_WORD_LOWER.finditer(written))
        tried = injection._words_after_openings(written)
        expected = injection._opened(written, *scanned)
        found = injection._opened(written, *tried)
        assert found[0].tolist() == expected[0].tolist(), written
        assert found[1].tolist() == expected[1].tolist(), written


@settings(max_examples=1500, deadline=None)
@given(PROSE)
def test_fake_turns_found_from_line_breaks_match_the_turn_pattern(text: str) -> None:
    for written in (text, "\n" + text, text.upper(), text.replace("v", "\u0131")):
        starts, ends = injection._turns(written)
        assert list(zip(starts.tolist(), ends.tolist())) == [
            m.span() for m in _REFERENCES["_TURN"].finditer(written)
        ], written


def test_every_word_naming_a_verdict_holds_a_letter_the_quick_check_looks_for() -> None:
    """``_may_name_a_verdict`` skips a text with no ``e``/``o``: each verdict word has one."""
    from inspect_arenahard.judging import scaleeval_verdicts

    words = scaleeval_verdicts._WORDS.removeprefix("(?:").removesuffix(")").split("|")
    assert len(words) == 5
    for word in words:
        assert set(word) & set(integrity._NAMING_LETTERS), word
    assert integrity._judge_named_numbers("&#1;\nANSWER: 1\n").starts.tolist() == [5]
    assert not len(integrity._judge_named_numbers("&#1;\nANSWR: 1\n").starts)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.sampled_from([*NAMED_PIECES, "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028"]),
        max_size=30,
    ).map("".join)
)
def test_lines_split_where_the_parser_splits(text: str) -> None:
    """``_lines`` gives the text with every other line break as ``\\n``, also where the quick
    ASCII check returns the text as it is."""
    expected = "".join("\n" if ch in LINE_BREAKS else ch for ch in text)
    assert integrity._lines(text) == expected
