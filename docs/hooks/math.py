"""MkDocs hook: formulas rendered when the site is built, as MathML that browsers draw natively.

``pymdownx.arithmatex`` (generic mode) marks ``$…$`` and ``$$…$$`` in the Markdown; this hook
turns each marked TeX formula into MathML with ``latex2mathml``, so the pages need no script
and fetch nothing to show their formulas. A formula that does not convert fails the build.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

from latex2mathml.converter import convert

_MARKED = re.compile(
    r'<span class="arithmatex">\\\((?P<inline>[^<]*?)\\\)</span>'
    r'|<div class="arithmatex">\\\[(?P<block>[^<]*?)\\\]</div>'
)


def _mathml(match: re.Match[str]) -> str:
    inline, block = match.group("inline"), match.group("block")
    tex = unescape(inline if inline is not None else block).strip()
    try:
        rendered = convert(tex, display="inline" if inline is not None else "block")
    except Exception as ex:  # latex2mathml raises several types for TeX it cannot read
        raise ValueError(f"formula does not convert to MathML: {tex!r} ({ex})") from None
    return (
        f'<span class="formula">{rendered}</span>'
        if inline is not None
        else f'<div class="formula">{rendered}</div>'
    )


def on_page_content(html: str, **_: Any) -> str:
    """Every arithmatex-marked formula of the page, as MathML."""
    return _MARKED.sub(_mathml, html)
