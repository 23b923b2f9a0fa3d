"""Sphinx roles (``:func:`x` ``, ``:mod:`~a.b` ``) in docstrings: find them, or rewrite them as
Markdown code, which is how the Google-style API reference renders them.

    python tests/helpers/docstring_roles.py [--fix] [PATH ...]   # default: src

Prints ``file:line: role`` for each one found (exit status 1 if any); ``--fix`` rewrites them in
place: ``:func:`~a.b.c` `` becomes ``c`` in double backticks, ``:mod:`.x` `` becomes ``x``,
``:class:`a.B` `` becomes ``a.B``. Only docstrings (and the strings documenting attributes)
are touched.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|data|attr|exc|obj|const):`([^`\n]+)`")


def _as_code(match: re.Match[str]) -> str:
    target = match.group(1).strip()
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    return f"``{target.lstrip('.')}``"


def docstring_lines(source: str) -> set[int]:
    """Line numbers (1-based) covered by a docstring: a string standing alone as a statement,
    which is a module's, class's or function's docstring or the one written under an attribute."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def python_files(paths: list[str]) -> Iterator[Path]:
    for path in map(Path, paths):
        yield from sorted(path.rglob("*.py")) if path.is_dir() else [path]


def find(paths: list[str]) -> list[str]:
    """``file:line: role`` of every role in a docstring under ``paths``."""
    found = []
    for path in python_files(paths):
        source = path.read_text(encoding="utf-8")
        inside = docstring_lines(source)
        for number, line in enumerate(source.splitlines(), 1):
            if number in inside:
                found += [f"{path}:{number}: {m.group(0)}" for m in ROLE.finditer(line)]
    return found


def fix(paths: list[str]) -> int:
    """Rewrite the roles in docstrings under ``paths``; returns how many were rewritten."""
    count = 0
    for path in python_files(paths):
        source = path.read_text(encoding="utf-8")
        inside = docstring_lines(source)
        lines = source.splitlines(keepends=True)
        for i, line in enumerate(lines):
            if i + 1 in inside:
                lines[i], n = ROLE.subn(_as_code, line)
                count += n
        if "".join(lines) != source:
            path.write_text("".join(lines), encoding="utf-8")
    return count


if __name__ == "__main__":
    args = sys.argv[1:]
    rewrite = "--fix" in args
    targets = [a for a in args if a != "--fix"] or ["src"]
    if rewrite:
        print(f"rewrote {fix(targets)} roles")
    remaining = find(targets)
    print("\n".join(remaining))
    sys.exit(1 if remaining else 0)
