"""Per-answer style features used by style control.

The definitions reproduce the metadata that arena-hard-auto stores next to every answer, so that
features computed here and features imported from its files are interchangeable: the token count
of the full answer (cl100k_base in v0.1's ``conv_metadata``, o200k_base in v2.0's ``metadata``),
and markdown counts taken after fenced code blocks are removed (a ``#`` comment inside code is
not a header).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, TypedDict

_FENCED_CODE_BODY = re.compile(r"```([^`]*)```")
_HEADERS = {f"h{n}": re.compile(rf"^#{{{n}}}\s", re.MULTILINE) for n in range(1, 7)}
_ORDERED_ITEM = re.compile(r"^\s*\d+\.\s", re.MULTILINE)
_UNORDERED_ITEM = re.compile(r"^\s*[-*+]\s", re.MULTILINE)
_BOLD = {"**": re.compile(r"\*\*[^*\n]+\*\*"), "__": re.compile(r"__[^_\n]+__")}


class StyleFeatures(TypedDict):
    """Style metadata of one answer, in arena-hard-auto's ``conv_metadata`` shape."""

    token_len: int
    header_count: dict[str, int]
    list_count: dict[str, int]
    bold_count: dict[str, int]


@lru_cache(maxsize=4)
def _encoding(name: str) -> Any:
    import bpe_openai

    return bpe_openai.get_encoding(name)


def count_tokens(text: str, encoding: str = "cl100k_base") -> int:
    """Exact tiktoken-compatible token count, offline (special tokens count as text)."""
    return len(_encoding(encoding).encode(text, disallowed_special=()))


def strip_code_blocks(text: str) -> str:
    """Remove the bodies of fenced code blocks so they are not counted as markdown.

    For parity with the stored ``conv_metadata`` the bodies (found once, in the original text)
    are deleted one after another from the progressively edited text, every occurrence at a
    time. When an earlier body is a prefix of a later one, the later one is then no longer found
    and its markdown-looking lines are counted; arena-hard-auto's stored figures include those.
    """
    for body in _FENCED_CODE_BODY.findall(text):
        text = text.replace(body, "")
    return text


def markdown_counts(text: str) -> dict[str, dict[str, int]]:
    """Header, list-item and bold counts of ``text`` outside fenced code blocks."""
    prose = strip_code_blocks(text)
    return {
        "header_count": {h: len(rx.findall(prose)) for h, rx in _HEADERS.items()},
        "list_count": {
            "ordered": len(_ORDERED_ITEM.findall(prose)),
            "unordered": len(_UNORDERED_ITEM.findall(prose)),
        },
        "bold_count": {mark: len(rx.findall(prose)) for mark, rx in _BOLD.items()},
    }


def style_features(text: str, encoding: str = "cl100k_base") -> StyleFeatures:
    """All style features of one answer, tokens counted with ``encoding``."""
    counts = markdown_counts(text)
    return StyleFeatures(
        token_len=count_tokens(text, encoding),
        header_count=counts["header_count"],
        list_count=counts["list_count"],
        bold_count=counts["bold_count"],
    )
