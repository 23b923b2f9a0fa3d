"""Neutralising, parsing and auditing take time linear in the text, on any input.

Hostile texts are built from a short generated fragment repeated to 200,000 characters: chains
of labels sharing their letters (``A>B>A``, with or without spaces or brackets), long runs of
whitespace or brackets, headings and verdict lines that never close. The target is 0.2 s CPU per
MB; a test allows 2 s per MB (ten times the target, for a loaded machine), where the quadratic
scans these tests were written against took minutes.
"""

from __future__ import annotations

import gc
import time
from typing import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspect_arenahard.judging.committee import parse_battle
from inspect_arenahard.judging.integrity import PROTOCOLS, neutralise
from inspect_arenahard.judging.scaleeval_verdicts import parse_number
from inspect_arenahard.judging.verdicts import verdict_labels
from inspect_arenahard.report.audit_checks import injection_findings

SIZE = 200_000
BUDGET = 2.0 * SIZE / 1_000_000
"""CPU seconds allowed per call: ten times the 0.2 s/MB target."""
FRAGMENTS = [
    *"AB<>=[] \t\n|",
    "A>B", "B>>A", "A<<B", "A=B", "A > B", ">", "[[", "]]", "[ ", " ]", "\u3000", "\xa0",
    "[Submission", "[question", "Speaker 2", "final", "answer", "Answer:", "2", "**", "<|", "|>",
    "[Tie", "ignore the", "judge ", "Human:", "<|im_start|>", "[INST]", "&gt;", "&#62", "\u200b",
    "<!--", "-->", "<b>", "**", "\\gt", "\\[", "&#0000", "&gt", "Criteria Satisfied:", "[1, 2]",
]  # fmt: skip
CHAINS = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=12).map("".join)


def cpu(fn: Callable[[], object]) -> float:
    """CPU seconds of ``fn``, with the cycle collector paused (in a long test session it would
    otherwise walk every earlier test's objects and charge that time to ``fn``)."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        fn()
        return time.process_time() - start
    finally:
        gc.enable()


def repeated(fragment: str) -> str:
    return (fragment * (SIZE // len(fragment) + 1))[:SIZE]


WORST = [
    "A>B>",
    "A > B > ",
    "A>>B>>",
    "[A>B]>",
    "[[A>B]]",
    "[B>A>A]",
    "[",
    "[ ",
    "<|",
    " ",
    "[Submission",
    "final answer",
]


def test_known_worst_inputs_are_linear() -> None:
    """The chains and runs that were quadratic (65 s for 40 KB of ``A>B>``)."""
    for fragment in WORST:
        text = repeated(fragment)
        for protocol in PROTOCOLS:
            assert cpu(lambda: neutralise(text, protocol)) < BUDGET, (fragment, protocol)
        assert cpu(lambda: injection_findings("", text)) < BUDGET, fragment


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CHAINS)
def test_generated_chains_are_linear(fragment: str) -> None:
    text = repeated(fragment)
    for protocol in PROTOCOLS:
        assert cpu(lambda: neutralise(text, protocol)) < BUDGET, (fragment, protocol)
    assert cpu(lambda: injection_findings(text[:1000], text)) < BUDGET, fragment


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CHAINS)
def test_parsers_are_linear(fragment: str) -> None:
    text = repeated(fragment)
    assert cpu(lambda: verdict_labels(text, True)) < BUDGET, fragment
    assert cpu(lambda: parse_battle(text)) < BUDGET, fragment
    assert cpu(lambda: parse_number(text)) < BUDGET, fragment


@settings(max_examples=200, deadline=None)
@given(CHAINS, st.integers(min_value=1, max_value=30))
def test_neutralised_chains_parse_as_nothing(fragment: str, times: int) -> None:
    text = fragment * times
    assert not verdict_labels(neutralise(text, "pairwise").text, True), text
    assert parse_battle(neutralise(text, "battle").text) is None, text
    assert parse_number(neutralise(text, "scaleeval").text) is None, text
