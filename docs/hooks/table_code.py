"""MkDocs hook: code with a ``|`` inside a Markdown table shows without the backslash.

A table cell must escape a pipe (`` `game\\|pair` ``) or the row splits there; GitHub drops the
backslash inside code, Python-Markdown keeps it. This hook adds a preprocessor, run after the
snippets are included, that writes such code spans as ``<code>`` elements with the pipe as an
entity, so every page (and every included file) reads as it does on GitHub.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

_ROW = re.compile(r"^\s*\|")
_CODE = re.compile(r"`([^`\n]*\\\|[^`\n]*)`")


def _as_html(match: re.Match[str]) -> str:
    code = match.group(1).replace("\\|", "|")
    return "<code>" + escape(code, quote=False).replace("|", "&#124;") + "</code>"


class _TableCode(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        return [_CODE.sub(_as_html, line) if _ROW.match(line) else line for line in lines]


class TableCodeExtension(Extension):
    """Registers the preprocessor below ``pymdownx.snippets`` (priority 32)."""

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Markdown's API)
        """Called by Markdown when the extension is loaded."""
        md.preprocessors.register(_TableCode(md), "table_code", 31)


def on_config(config: Any, **_: Any) -> Any:
    """Adds the extension to the site's Markdown extensions."""
    config.markdown_extensions.append(TableCodeExtension())
    return config
