"""The documentation speaks to users: no internal history on any page or in the docstrings the API
reference renders, examples that import what they call, one docstring style; and the built site
(``mkdocs build --strict``) renders its formulas, code and API tables and fits a 1280-pixel window."""

from __future__ import annotations

import ast
import builtins
import dataclasses
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import inspect_arenahard
from tests.helpers.browser import layout_at
from tests.helpers.docstring_roles import find as find_roles
from tests.helpers.docstring_roles import fix as fix_roles

PACKAGE = Path(inspect_arenahard.__file__).parent
REPO = PACKAGE.parents[1]
HISTORY = re.compile(
    r"\bissue #?\d+|\(#\d+\)|\bthe issue'?s?\b|\bgoals? (?:\d+|≤)|\bthe brief\b|\bCI box\b"
    r"|\b(?:other|several|\d+|six|five|four) sessions\b",
    re.IGNORECASE,
)
"""How the project's own work history leaks into pages: issue numbers, numbered goals, the
brief, the machine the project was built on."""
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
SITE_PAGES = ("intervals", "leaderboards", "reference/cli")
"""Pages checked in a browser: formulas, tables with code, and the widest generated usage lines."""


def pages() -> list[Path]:
    """Every Markdown file the site shows, the two it includes from elsewhere among them."""
    return [
        REPO / "README.md",
        REPO / "CHANGELOG.md",
        REPO / "benchmarks" / "README.md",
        *sorted((REPO / "docs").rglob("*.md")),
    ]


def docstrings() -> Iterator[tuple[str, int, str]]:
    """(file, line, text) of every module, class and function docstring under src/: what the
    API reference renders."""
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body
                if (
                    body
                    and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant)
                ):
                    text = body[0].value.value
                    if isinstance(text, str):
                        yield path.relative_to(REPO).as_posix(), body[0].lineno, text


def history_in(text: str) -> list[tuple[int, str]]:
    """(line offset, phrase) of each history phrase in ``text``."""
    return [(text[: m.start()].count("\n"), m.group(0)) for m in HISTORY.finditer(text)]


def test_no_page_speaks_the_projects_internal_history() -> None:
    found = [
        f"{page.relative_to(REPO)}:{line + 1}: {phrase}"
        for page in pages()
        for line, phrase in history_in(page.read_text(encoding="utf-8"))
    ]
    found += [
        f"{path}:{start + line}: {phrase}"
        for path, start, text in docstrings()
        for line, phrase in history_in(text)
    ]
    assert found == []


def test_the_history_pattern_finds_the_phrases() -> None:
    leaks = [
        "Arena scale (issue #29)", "(#23)", "goal 4 … Not met", "the brief allowed ≤ 50K",
        "the issue's goal of ≤ 1.6×", "the project's shared CI box", "shared with six other sessions",
    ]  # fmt: skip
    assert all(history_in(leak) for leak in leaks)
    assert not history_in("the judge's goal is a fair verdict; 2 CPU cores; see the changelog")


def uncalled_names(code: str) -> list[str]:
    """Names the code calls that it neither imports nor defines (builtins aside)."""
    tree = ast.parse(code)
    bound = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
    called = {
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    return sorted(called - bound)


def test_every_python_example_imports_what_it_calls() -> None:
    examples = [
        (f"{page.relative_to(REPO)}:{page.read_text()[: m.start()].count(chr(10)) + 1}", m.group(1))
        for page in pages()
        for m in PYTHON_BLOCK.finditer(page.read_text(encoding="utf-8"))
    ]
    examples += [
        (f"{path}:{line}", m.group(1))
        for path, line, text in docstrings()
        for m in PYTHON_BLOCK.finditer(text + "\n")
    ]
    assert any("dataframes.py" in where for where, _ in examples)
    assert [(where, names) for where, code in examples if (names := uncalled_names(code))] == []


def test_the_import_check_sees_a_missing_import() -> None:
    code = "from inspect_arenahard import games_df\nboard = leaderboard_df('logs/', RankingOptions())\n"
    assert uncalled_names(code) == ["RankingOptions", "leaderboard_df"]


def test_docstrings_write_code_as_markdown_not_as_sphinx_literal_blocks() -> None:
    """The reference renders Google-style docstrings as Markdown: ``text::`` followed by an
    indented block shows a literal ``::``; code goes in a fenced block."""
    found = [
        f"{path}:{start + text[: m.start()].count(chr(10))}"
        for path, start, text in docstrings()
        for m in re.finditer(r"\S::\n\n ", text)
    ]
    assert found == []


def test_docstrings_name_code_in_backticks_not_sphinx_roles() -> None:
    """``:func:`x` `` shows literally in the Markdown reference; each one found is named by
    file:line (``python tests/helpers/docstring_roles.py --fix`` rewrites them)."""
    assert find_roles([str(PACKAGE)]) == []


def test_the_role_check_sees_roles_and_leaves_code_alone(tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text(
        '"""See :func:`~a.b.rank` and :mod:`.battles`."""\n\nPATTERN = ":mod:`x`"\n'
        '"""Its attribute docstring names :class:`a.B`."""\n'
    )
    assert [f.split(": ", 1)[1] for f in find_roles([str(module)])] == [
        ":func:`~a.b.rank`", ":mod:`.battles`", ":class:`a.B`"
    ]  # fmt: skip
    assert fix_roles([str(module)]) == 3 and find_roles([str(module)]) == []
    assert module.read_text().splitlines()[0] == '"""See ``rank`` and ``battles``."""'
    assert 'PATTERN = ":mod:`x`"' in module.read_text()  # code is not a docstring


def test_every_ranking_option_has_help_the_reference_shows() -> None:
    """The API reference documents options' fields from their ``help`` (docs/hooks/field_help.py)."""
    from inspect_arenahard.stats.ranking import RankingOptions

    assert all(f.metadata.get("help") for f in dataclasses.fields(RankingOptions))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as CI builds it: strict, so a warning fails."""
    out = tmp_path_factory.mktemp("site")
    env = os.environ | {"NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return out


@pytest.mark.slow
def test_the_site_renders_formulas_code_and_api_tables(site: Path) -> None:
    from inspect_arenahard.stats.ranking import RankingOptions

    intervals = (site / "intervals" / "index.html").read_text(encoding="utf-8")
    assert intervals.count("<math") >= 8 and "\\(" not in intervals and "Σ_" not in intervals
    for page in ("leaderboards", "integrity"):
        html = (site / page / "index.html").read_text(encoding="utf-8")
        code = re.findall(r"<code>(.*?)</code>", html, re.S)
        assert [c for c in code if "\\|" in c] == [], page
    assert (
        "<code>--unparsed game&#124;pair</code>"
        in (site / "leaderboards" / "index.html").read_text()
    )
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert api.count('<span class="doc-section-title">Parameters:</span>') >= 10  # Args as tables
    where = f"{RankingOptions.__module__}.RankingOptions"
    for f in dataclasses.fields(RankingOptions):
        assert f'id="{where}.{f.name}"' in api, f.name


@pytest.mark.slow
@pytest.mark.parametrize("page", SITE_PAGES)
def test_nothing_is_clipped_at_1280_pixels(site: Path, page: str, tmp_path: Path) -> None:
    layout = layout_at(site / page / "index.html", tmp_path / "profile")
    assert layout["scrollWidth"] <= layout["clientWidth"] == 1280
    assert layout["clipped"] == []
