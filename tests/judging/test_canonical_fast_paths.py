"""The vectorised readings, maps and rewrites agree with their one-step-at-a-time definitions.

``canonical`` reads most texts with one split and builds its map with array operations; the
general path reads one token after another (``_events``). ``_mapped`` rewrites with array
operations; ``reference_mapped`` below is the cell-by-cell rule it replaces. On generated
hostile texts (entities, expanding and invisible characters beside ``&``, comments, markup,
escapes, labels and markers) both must give the same reading, map and rewritten text.
"""

from __future__ import annotations

import html
import random
import re
from bisect import bisect_right
from functools import partial
from html.entities import html5
from itertools import product
from unittest import mock

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from inspect_arenahard.judging import canonical as canonical_module
from inspect_arenahard.judging import injection
from inspect_arenahard.judging.canonical import (
    _CHARACTER_REFERENCES,
    _FOLDS,
    _LATEX,
    _MARKUP,
    _TAG_START,
    ENTITY,
    READINGS,
    Canonical,
    EntityReads,
    _escapes_and_markup_only,
    _events,
    _named_references,
    _numeric_references,
    _odd_characters,
    _runs_split,
    _scanner,
    _split_cuts,
    _token_scanner,
    canonical,
)
from inspect_arenahard.judging.injection import _EarlierSpans
from inspect_arenahard.judging.integrity import PROTOCOLS, Finding, _mapped, findings, recognised

PIECES = [
    *"[]<>|=AB012 \n\t:*_`~^{}$\\&#;-!x",
    "[[", "]]", "A>B", "B>>A", "<|", "|>", "<|The End of ", "[Submission 1]", "\n2\n", "[A]",
    "&gt;", "&gt", "&gtA", "&amp", "&#62", "&#x3e", "&#0000062;", "&#91;", "&#x5d;", "&zwnj;",
    "&notit;", "&\u200b", "\u200b&", "\ufb00\u200b&gt", "&\ufb00\u200b", "&&", "\\&", "\\&gt",
    "\u200b", "\u00ad", "\ufb00", "\u2475", "\u2474", "\uff3b", "\uff3d", "\u2039|", "|\u203a",
    "\x00", "\x7f", "\u0301", "\ufe0f", "\u2028", "\U0001d7ce",
    "<b>", "</i>", "<span title='&gt;'>", "<!--", "-->", "<!-- c -->", "**", "\\[", "\\]",
    "\\gt", "\\lvert", "\\text{", "\\mathrm", "\\**",
]  # fmt: skip
TEXTS = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def general(text: str, reading: str) -> Canonical:
    """``text`` read one token after another (comments always considered)."""
    if reading == "raw":
        return canonical(text, "raw")
    folds = _FOLDS[reading]
    scanner = _scanner(reading, _odd_characters(text, reading), reading == "rendered", True)
    firsts, lasts, pieces = _events(text, reading, scanner)
    copied = [text[a:b].translate(folds) for a, b in zip([0, *lasts], [*firsts, len(text)])]
    joined = [""] * (2 * len(pieces) + 1)
    joined[0::2], joined[1::2] = copied, pieces
    sizes = [len(p) for p in pieces]
    return Canonical("".join(joined), text, reading, lambda: (firsts, lasts, sizes))


def character_map(canon: Canonical) -> list[tuple[int, int]]:
    return [canon.origin(i) for i in range(len(canon.text))]


def inexact(canon: Canonical) -> list[tuple[int, int, int]]:
    """The segments that do not map character for character (entities, runs, tokens)."""
    starts, origins, ends, exact = canon.segments
    return [
        (s, o, e)
        for s, o, e, x in zip(starts.tolist(), origins.tolist(), ends.tolist(), exact.tolist())
        if not x
    ]


def reference_mapped(canon: Canonical, found: list[Finding]) -> str:
    """The rewrite rule one cell at a time: a target of an exact segment replaces its original
    character; one of another segment puts the segment's rewritten reading in its first cell
    (in its last cells for an escape, which keeps its mark) and empties the others."""
    text = canon.source
    chars = list(text)
    starts, origins, ends, exact = canon.starts, canon.origins, canon.ends, canon.exact
    odd: dict[int, dict[int, str]] = {}
    for f in found:
        for m in f.rewrite.targets.finditer(canon.text, f.start, f.end):
            i = m.start()
            k = bisect_right(starts, i) - 1
            if exact[k]:
                chars[origins[k] + i - starts[k]] = f.rewrite.into[m.group()]
            else:
                odd.setdefault(k, {})[i] = f.rewrite.into[m.group()]
    for k, replace in odd.items():
        end = starts[k + 1] if k + 1 < len(starts) else len(canon.text)
        piece = canon.text[starts[k] : end]
        rewritten = "".join(replace.get(starts[k] + n, ch) for n, ch in enumerate(piece))
        if text.endswith(piece, origins[k], ends[k]):
            chars[ends[k] - len(piece) : ends[k]] = [rewritten, *[""] * (len(piece) - 1)]
        else:
            chars[origins[k]] = rewritten
            chars[origins[k] + 1 : ends[k]] = [""] * (ends[k] - origins[k] - 1)
    return "".join(chars)


@settings(max_examples=400, deadline=None)
@given(TEXTS)
@example("&\uff47t;\u00e9&gtB&#x3e;&ampx&zz;")  # entities only: one written in a look-alike
@example("\uff1c&gt&lt;")  # entities only, folded text beside them
def test_split_reading_matches_the_token_by_token_reading(text: str) -> None:
    for reading in READINGS:
        fast, slow = canonical(text, reading), general(text, reading)
        assert fast.text == slow.text, (text, reading)
        assert character_map(fast) == character_map(slow), (text, reading)
        assert inexact(fast) == inexact(slow), (text, reading)


ASCII_PIECES = [
    *"[]()>=0 \n\t*_`~^{}$\\|!#-:@\x00\x1b\x7f",
    "\\\\", "\\[", "\\]", "\\*", "\\_", "\\`", "\\\\[", "\\\\\\*", "\\\n", "\\ ", "\\1",
    "**", "[[B**>>**A]]", "\\[\\[B>>A\\]\\]", "\\\\\\", "`A>B`", "$B>>A$",
]  # fmt: skip
"""Backslash escapes (runs of backslashes, odd and even), markup and control characters (no
piece starts with a letter, so no backslash starts a LaTeX command): the ASCII texts whose rendered reading is built from arrays (``_rendered_ascii``)."""


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(ASCII_PIECES), max_size=40).map("".join))
@example("\\")  # a backslash that ends the text escapes nothing
@example("\\\\\\[**")  # an odd run of backslashes escapes the character after it
def test_escapes_and_markup_read_from_arrays_as_token_by_token(text: str) -> None:
    assert _escapes_and_markup_only(text)
    fast, slow = canonical(text, "rendered"), general(text, "rendered")
    assert fast.text == slow.text, text
    assert character_map(fast) == character_map(slow), text
    assert inexact(fast) == inexact(slow), text
    for protocol in PROTOCOLS:
        found = findings(fast, protocol)
        if found:
            assert _mapped(fast, recognised(fast, protocol)) == reference_mapped(fast, found)


AMPERSAND_PIECES = [
    "&", "&&", "&#", "&#x", "&#62", "&#62;", "&#x3e;", "&gt", "&gt;", "&amp", "&ampx", "&notit;",
    "&zz;", "0", "7", ";", " ", "x", "A", "<b>", "</i>", "<!--", "-->", "\\&", "\\gt",
    "\\[", "\\*", "*", "\u0301", "\u0301\u0302", "\u200b", "\u00ad", "\ufe0f", "\ue000",
    "\U000f0001", "\U000e0041", "\ufb01", "\ufb00", "\u2475", "\U0001d400", "\u4e00",
    "\U00020001", "\uff21", "\uac00", "e\u0301", "\x01",
]  # fmt: skip
"""Entities and their parts beside characters read as nothing (combining, format, tag and
private-use, astral or not) or as several (``ﬁ``, ``⑵``), tags, comments and LaTeX escapes."""


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(AMPERSAND_PIECES), min_size=1, max_size=30),
    st.sampled_from([40, 3000]),
    st.randoms(use_true_random=False),
)
@example(["\ufb01\u0301", "&", "&#62;", "x"], 3000, random.Random(0))
@example(["\ufb01\u0301", "<b>", "\\gt", "\\*", "x"], 3000, random.Random(0))  # no ``&``
def test_runs_beside_an_ampersand_read_as_one_token_after_another(
    pieces: list[str], count: int, rng: random.Random
) -> None:
    """A run of dropped or expanding characters that an ``&`` touches is read a character at a
    time, short texts through the split (runs beside an ``&`` cut apart), long ones at least a
    quarter non-ASCII through folding by arrays around the entities, tags and LaTeX commands."""
    text = "".join(rng.choice(pieces) for _ in range(count))
    for reading in READINGS:
        fast, slow = canonical(text, reading), general(text, reading)
        assert fast.text == slow.text, (text, reading)
        assert all(map(np.array_equal, fast.segments, slow.segments)), (text, reading)


def test_a_long_text_of_runs_beside_entities_is_folded_by_arrays() -> None:
    text = "\ufb01\u0301&#62;\U000f0001&gt\u4e00<b>\\&\ufb00\u200b&" * 500
    with mock.patch.object(
        canonical_module, "_folded_around_tokens", wraps=canonical_module._folded_around_tokens
    ) as folded:
        for reading in READINGS:
            fast, slow = canonical(text, reading), general(text, reading)
            assert fast.text == slow.text and character_map(fast) == character_map(slow)
    assert folded.call_count == 2  # the plain and rendered readings


@settings(max_examples=200, deadline=None)
@given(TEXTS.filter(bool))
def test_odd_characters_of_a_long_text_from_its_codes_as_from_its_set(text: str) -> None:
    long = text * (4096 // len(text) + 1)  # the same characters, read from an array pass
    for reading in ("plain", "rendered"):
        assert _odd_characters(long, reading) == _odd_characters(text, reading), text


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_runs_split_from_codes_as_by_the_plain_scanner(text: str) -> None:
    odd = _odd_characters(text, "plain")
    assert _runs_split(text, odd) == _scanner("plain", odd, False, False).split(text), text


def plain_scanner(odd: str, comments: bool, ampersand: bool) -> re.Pattern[str]:
    """The rendered reading's tokens as one alternation: a comment opening or tag, a LaTeX
    command, a run."""
    opening = f"<(?:!--|{_TAG_START})" if comments else f"<{_TAG_START}"
    run = f"[{re.escape(odd)}{'&' if ampersand else ''}]++"
    return re.compile(f"({opening}|{_LATEX.pattern}|{run})")


@settings(max_examples=400, deadline=None)
@given(TEXTS)
@example("<<b>\\\\<!--\\gt<i \\]**")
def test_class_first_scanner_finds_the_tokens_of_the_alternation(text: str) -> None:
    odd = _odd_characters(text, "rendered")
    for comments in (False, True):
        for ampersand in (False, True):
            expected = plain_scanner(odd, comments, ampersand).split(text)
            assert _scanner("rendered", odd, comments, ampersand).split(text) == expected, text


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_vectorised_rewrite_matches_the_cell_by_cell_rule(text: str) -> None:
    for reading in READINGS:
        canon = canonical(text, reading)
        for protocol in PROTOCOLS:
            found = findings(canon, protocol)
            if found:
                fast = _mapped(canon, recognised(canon, protocol))
                assert fast == reference_mapped(canon, found), (text, protocol)


@settings(max_examples=200, deadline=None)
@given(TEXTS, st.data())
def test_spans_map_many_as_one_at_a_time(text: str, data: st.DataObject) -> None:
    for reading in READINGS:
        canon = canonical(text, reading)
        if not canon.text:
            continue
        n = len(canon.text)
        pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, n))))
        pairs = [(a, max(a + 1, b)) for a, b in pairs]
        lo, hi = canon.spans(np.array([a for a, _ in pairs]), np.array([b for _, b in pairs]))
        assert list(zip(lo.tolist(), hi.tolist())) == [canon.span(a, b) for a, b in pairs]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "\uff21", "\u0391", "&gt;", "\u200bc"]), min_size=1),
    st.integers(1, 4),
)
def test_spellings_sampled_in_chunks_as_read_one_span_at_a_time(
    pieces: list[str], sample: int
) -> None:
    """The first ``sample`` disguised spans stand for all, however the spans are chunked: a
    span written as read counts only before the sample's last disguised one."""
    canon = canonical("".join(pieces), "plain")
    spans = [(k, k + 1) for k in range(len(canon.text))]
    disguised, raw = [], False
    for start, end in spans:
        lo, hi = canon.span(start, end)
        if canon.source[lo:hi] == canon.text[start:end]:
            raw = True
        else:
            disguised.append((start, end))
            if len(disguised) == sample:
                break
    expected = canon.spellings(disguised, sample=len(spans)) - {"raw"} if disguised else set()
    assert canon.spellings(spans, sample) == expected | ({"raw"} if raw else set())


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 12))), max_size=3),
    st.lists(st.tuples(st.integers(0, 30), st.integers(1, 8)), min_size=1),
)
def test_a_span_is_overlapped_when_it_shares_a_character_with_any_earlier_one(
    batches: list[list[tuple[int, int]]], queries: list[tuple[int, int]]
) -> None:
    """Nested and unordered spans, joined a reading at a time: the answer of a brute force."""
    earlier = None
    for batch in batches:
        lo = np.array([a for a, _ in batch], np.int64)
        hi = np.array([a + w for a, w in batch], np.int64)
        earlier = _EarlierSpans.joined(earlier, lo, hi)
    spans = [(a, a + w) for batch in batches for a, w in batch]
    lo = np.array([a for a, _ in queries], np.int64)
    hi = np.array([a + w for a, w in queries], np.int64)
    expected = [any(s < b and e > a for s, e in spans) for a, b in zip(lo.tolist(), hi.tolist())]
    got = earlier.overlapped(lo, hi).tolist() if earlier is not None else [False] * len(queries)
    assert got == expected


ROLE_PIECES = [
    *"<>|/#: \t\nxs", "<|", "|>", "</", "##", "###", "####", "im_start", "system", "System",
    "user", "assistant:", "tool_call", "tool_response", "ipython", "python_tag", "response",
    "<<SYS>>", "[INST]", "Human:", "ſystem", "\u0130", "  ", "\n##\n", "<\n",
]  # fmt: skip


def reference_role_words(text: str) -> list[tuple[int, int]]:
    """Role words found by scanning the whole text, each kept when an opening precedes it."""
    lowered = text.lower()
    words = (
        injection._ROLE_WORD_LOWER.finditer(lowered)
        if len(lowered) == len(text)
        else injection._ROLE_WORD.finditer(text)
    )
    spans = []
    for m in words:
        opening = injection._ROLE_OPEN.search(text, max(0, m.start() - 7), m.start())
        if opening is not None and (m.group(0).endswith(">") == (opening.group(0)[0] == "<")):
            spans.append((opening.start(), m.end()))
    return spans


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(ROLE_PIECES), max_size=30).map("".join))
@example("<\nsystem>")  # an opening before a line break, its word on the next line
@example("x\n##\nuser: and <| assistant|>")
def test_role_words_tried_after_openings_match_a_whole_scan(text: str) -> None:
    sparse = text + "x" * (64 * (text.count("<") + text.count("#")))  # few openings per character
    for written in (text, sparse):
        lowered = written.lower()
        same = len(lowered) == len(written)
        starts, ends = injection._role_markers(written, lowered if same else None)
        words = reference_role_words(written)
        assert list(zip(starts.tolist(), ends.tolist()))[: len(words)] == words, written


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from([*ROLE_PIECES, "[", "<<", "[/", "INST]", "SYS>>", "TOOL_CALLS]"]),
        max_size=12,
    ).map("".join)
)
@example("INST] and a last [")  # a tag's tail at the start: no opening wraps round from the end
@example("SYS>> text <<")
def test_chat_template_tags_are_spans_of_the_text_as_written(text: str) -> None:
    """Every ``[INST]``/``<<SYS>>``-style tag found is its opening directly followed by its tail
    inside the text (a tail at the very start has no opening before it)."""
    starts, ends = injection._role_markers(text, None)
    for start, end in zip(starts.tolist(), ends.tolist()):
        assert 0 <= start < end <= len(text), (text, start, end)
    for tail, openings in injection._ROLE_TAGS:
        expected = {
            (at - len(o), at + len(tail))
            for at in range(len(text))
            if text.startswith(tail, at)
            for o in openings
            if at >= len(o)
            and text.startswith(o, at - len(o))
            and not any(
                at >= len(p) and text.startswith(p, at - len(p))
                for p in openings[: openings.index(o)]
            )
        }
        assert expected <= set(zip(starts.tolist(), ends.tolist())), (text, tail)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ROLE_PIECES), min_size=50, max_size=400).map("".join))
def test_openings_found_in_bulk_match_the_opening_search(text: str) -> None:
    """Many role words at once (dense hostile text): the array search for their openings finds
    the opening ``_ROLE_OPEN.search`` finds before each word."""
    lowered = text.lower()
    words = (
        injection._ROLE_WORD_LOWER.finditer(lowered)
        if len(lowered) == len(text)
        else injection._ROLE_WORD.finditer(text)
    )
    spans = [m.span() for m in words]
    starts = np.array([a for a, _ in spans], np.int64)
    ends = np.array([b for _, b in spans], np.int64)
    found = injection._opened(text, starts, ends)
    assert list(zip(*(a.tolist() for a in found))) == reference_role_words(text), text


def reference_named(entity: str) -> tuple[str, int] | None:
    """A named entity read one prefix at a time: the whole name, else the longest HTML5 name
    it starts with."""
    name = entity[1:]
    if name in html5:
        return html5[name], len(entity)
    for size in range(len(name) - 1, 1, -1):
        if name[:size] in html5:
            return html5[name[:size]], size + 1
    return None


NAME_PIECES = [*sorted(html5)[::7], "amp", "gt", "lt", "not", "Aacute", "a", "x", "0", "e", "le"]
NAMED = st.lists(st.sampled_from(NAME_PIECES), min_size=1, max_size=4).map(
    lambda pieces: "&" + "".join(pieces)
)


@settings(max_examples=300, deadline=None)
@given(st.lists(NAMED, max_size=30))
def test_named_entities_read_in_bulk_read_the_longest_name(candidates: list[str]) -> None:
    candidates = [c for c in candidates if ENTITY.fullmatch(c)]  # what the split gives
    took, keys = _named_references(candidates)
    for candidate, consumed, key in zip(candidates, took, keys):
        read = (html5[key], consumed) if consumed else None
        assert read == reference_named(candidate), candidate


NUMBERS = st.tuples(
    st.booleans(), st.integers(0, 40), st.integers(0, 2**40), st.sampled_from(["", ";"])
).map(lambda t: f"&#{'x' if t[0] else ''}{'0' * t[1]}{t[2]:{'x' if t[0] else 'd'}}{t[3]}")


@settings(max_examples=300, deadline=None)
@given(st.lists(NUMBERS, max_size=30))
def test_numeric_entities_read_in_bulk_as_html_unescape_reads_them(entities: list[str]) -> None:
    assert _numeric_references(entities, _CHARACTER_REFERENCES) == list(
        map(html.unescape, entities)
    )


def test_numbers_of_thousands_of_digits_read_as_their_value_or_beyond_unicode() -> None:
    """``html.unescape`` refuses them (``int`` reads at most 4,300 digits); leading zeros aside,
    they are what their digits say."""
    entities = ["&#" + "0" * 5000 + "62", "&#" + "9" * 5000, "&#x" + "0" * 9000]
    assert _numeric_references(entities, _CHARACTER_REFERENCES) == [">", "\ufffd", "\ufffd"]


BESIDE = ["\u200b", "\u00ad", "\x01", "<b>", "</i>", " ", "*", "\\gt", "\uff21", "\u00e9", "x", ""]
"""What stands between entities: dropped characters, tags, markup, a LaTeX sign, folded and
plain characters."""


def entities_beside(entities: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Texts of up to 60 entities drawn from ``entities``, each with one of ``BESIDE`` after it."""
    pairs = st.lists(st.tuples(entities, st.sampled_from(BESIDE)), max_size=60)
    return pairs.map(lambda drawn: "".join(entity + beside for entity, beside in drawn))


MIXED = entities_beside(st.one_of(NUMBERS, NAMED, st.integers(0, 0x10FFFF).map("&#X{:X};".format)))


@settings(max_examples=300, deadline=None)
@given(MIXED, st.integers(1, 80))
@example("&#1\u200b&#2\u200b&#3 <b>&amp4<b>&amp5\u200b", 1)
def test_distinct_entities_beside_other_cut_characters_read_as_html_unescape(
    text: str, copies: int
) -> None:
    """Short and long (the array passes) texts: the plain reading is ``html.unescape``'s
    reading folded, and both readings map as the token-by-token reading does."""
    text *= copies
    plain = canonical(text, "plain")
    assert plain.text == html.unescape(text).translate(_FOLDS["plain"])
    assert_read_as_token_by_token(text, None)


def assert_read_as_token_by_token(text: str, entities: EntityReads | None) -> None:
    """Both readings of ``text`` (``entities``: one table shared by them, or None for a table
    each) read and map as the token-by-token reading."""
    for reading in ("plain", "rendered"):
        fast, slow = canonical(text, reading, entities), general(text, reading)
        assert fast.text == slow.text, reading
        assert inexact(fast) == inexact(slow), reading


MARKUP_READS = ["&#42;", "&#x2a", "&ast;", "&lowbar;", "&#95", "&#x60;", "&grave;", "&#126",
                "&Hat;", "&#123", "&rcub;", "&dollar;", "&#36", "&#x7E;"]  # fmt: skip
"""Entities that read as a markup character (the rendered reading drops it)."""
MIXED_MARKUP = entities_beside(st.one_of(NUMBERS, NAMED, st.sampled_from(MARKUP_READS)))


@settings(max_examples=200, deadline=None)
@given(MIXED_MARKUP, st.integers(1, 80))
@example("&#42;<b>&#1&ast;&#2 <b>&#x2a", 1)
def test_the_rendered_reading_after_the_plain_one_reads_entities_as_alone(
    text: str, copies: int
) -> None:
    """The rendered reading given the plain reading's entity table (it takes the plain reads
    but those holding a markup character, found by arrays, and reads those again) reads and
    maps as the token-by-token reading, short and long (the array passes)."""
    assert_read_as_token_by_token(text * copies, EntityReads())


TOKEN_PIECES = [
    "&", "&#", "&#x", "&amp", "&amp;", "&gt", "&#62", "&#x3e;", "&a1", ";", "#", "x", "1", "A",
    " ", "\t", "\u200b", "\x00", "<", "<b>", "</i>", "\\", "\\gt", "\\text{", "$", "*", "_",
    "`", "{", "}", "~", "é", "<!--", "-->", "&&", "&#;", "&;", "ab", "\n",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TOKEN_PIECES), max_size=40).map("".join))
def test_the_token_scanner_splits_as_entity_candidates_or_other_tokens(text: str) -> None:
    """The scanner that finds entity candidates and the other tokens in one pass (class-first,
    so the engine skips other characters at C speed) splits a text exactly as the plain
    alternation "an entity candidate, else a token" does."""
    candidate = r"&(?:#[0-9]++;?|#[xX][0-9a-fA-F]++;?|[0-9A-Za-z]{1,32}+;?)"
    for reading in ("plain", "rendered"):
        odd = _odd_characters(text, reading)
        tokens = _scanner(reading, odd, False, False).pattern.pattern[1:-1]
        reference = re.compile(f"({candidate}|{tokens})")
        assert _token_scanner(reading, odd).split(text) == reference.split(text), (reading, text)


ASTRAL = [
    "\U000e0001", "\U000e0020", "\U0001d167", "\U000f0000", "\U0010fffd", "\U0001f100",
    "\U0001d400", "\U00020000", "\U0001f600", "\U000e0100",
]  # fmt: skip
"""Beyond the Basic Multilingual Plane: tags and variation selectors (dropped), a combining
mark, private use, a character that expands, a mathematical letter, an ideograph, an emoji."""
ASTRAL_PIECES = [*ASTRAL, "&", "&#62", "&gt", "<b>", "</i>", "\\gt", "\\text", " ", "a", "\u200b",
                 "\ufb03", "[", "<!--", "-->", "*"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ASTRAL_PIECES), max_size=40).map("".join))
def test_scanners_find_the_tokens_the_whole_class_finds_beyond_the_basic_plane(text: str) -> None:
    """A scanner matches a stand-in text (one character for all the odd ones beyond the Basic
    Multilingual Plane): it finds the tokens the pattern with every odd character in its class
    finds, where that finds them (what they hold is read from the text)."""
    whole = partial(
        mock.patch.object, canonical_module, "_narrowed", lambda odd: (odd, np.zeros(0))
    )
    for reading in ("plain", "rendered"):
        odd = _odd_characters(text, reading)
        for options in product([False, True], repeat=3):
            with whole():
                reference = _scanner.__wrapped__(reading, odd, *options)
                touching = canonical_module._touching.__wrapped__(odd)
            scanner = _scanner(reading, odd, *options)
            assert scanner.split(text) == reference.split(text), (reading, options, text)
            found = [m.span() for m in scanner.finditer(text)]
            assert found == [m.span() for m in reference.finditer(text)], text
        assert canonical_module._touching(odd).search(text) == touching.search(text), text


FOLD_PIECES = [
    "\ufb03", "\u200b", "a", "\x01", "\U0001f100", "\u00e9", "e\u0301", " ", "\n", "\U000f0000",
    "\uff21", "\u2474", "\ud800", "\u3164", "*", "<b>", "\\gt",
]  # fmt: skip
"""Characters that expand, are dropped (alone or in runs), fold or read as themselves."""


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(FOLD_PIECES), min_size=1, max_size=60).map("".join))
def test_a_long_plain_reading_folded_in_array_steps_as_split_into_runs(text: str) -> None:
    """Without an ``&``, a long text's plain reading (every character's fold, the runs of
    characters that do not read as one character cut) is what the split into runs reads."""
    text = text * (4096 // len(text) + 1)
    parts = _runs_split(text, _odd_characters(text, "plain"))
    tokens = parts[1::2]
    parts = [part.translate(_FOLDS["plain"]) for part in parts]
    split = Canonical("".join(parts), text, "plain", partial(_split_cuts, tokens, parts))
    fast = canonical(text, "plain")
    assert fast.text == split.text
    assert all(map(np.array_equal, fast.segments, split.segments))


BARE_NAMES = sorted(name for name in html5 if not name.endswith(";"))


def test_named_candidates_read_by_their_head_as_by_the_longest_name_they_start_with() -> None:
    """Every bare HTML5 name and each of its prefixes, followed by nothing, a letter, a digit
    or another name: read in bulk (a name not in HTML5 decided by its first four characters
    unless a bare name of four or more starts so) as one prefix at a time."""
    stems = sorted({name[:size] for name in BARE_NAMES for size in range(1, len(name) + 1)})
    candidates = [
        f"&{stem}{tail}" for stem in stems for tail in ("", "x", "1", "Z9", "amp", "frac12", ";")
    ]
    candidates = [c for c in candidates if ENTITY.fullmatch(c)]
    took, keys = _named_references(candidates)
    for candidate, consumed, key in zip(candidates, took.tolist(), keys):
        read = (html5[key], consumed) if consumed else None
        assert read == reference_named(candidate), candidate


@settings(max_examples=200, deadline=None)
@given(st.lists(TEXTS, min_size=2, max_size=4), st.lists(st.sampled_from(READINGS), min_size=4))
@example(["<b title='&amp1'>&gt;&amp1", "<i>&gt;&amp1"], ["plain", "rendered", "plain"])
@example(["&#42;<b>&gt;&lowbar;&#x2a&ast", "&#42;<b>&gt;&lowbar;&#x2a&ast"], ["plain", "rendered"])
def test_readings_one_after_another_read_as_each_alone(texts: list[str], order: list) -> None:
    """Readings of several texts one after another in any order, given the entity table the
    reading before kept (made for the readings of one text): each as a reading of that text
    alone (the token-by-token reading)."""
    entities = EntityReads()
    for k, reading in enumerate(order):
        text = texts[k % len(texts)] * 3
        fast, slow = canonical(text, reading, entities), general(text, reading)
        assert fast.text == slow.text, (reading, text)
        assert inexact(fast) == inexact(slow), (reading, text)


def test_the_rendered_fold_is_the_plain_fold_without_markup() -> None:
    """What lets the rendered reading take the plain reading's entity reads: the plain fold keeps
    each markup character as itself, and the rendered fold differs from it only there (every
    code point of the first two planes, and the rest sampled)."""
    plain, rendered = _FOLDS["plain"], _FOLDS["rendered"]
    assert all(plain[ord(mark)] == mark for mark in _MARKUP)
    codes = [*range(0x20000), *range(0x20000, 0x110000, 97)]
    assert [rendered[c] for c in codes] == ["" if chr(c) in _MARKUP else plain[c] for c in codes]
