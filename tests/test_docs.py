"""The documentation matches the tree: docs/architecture.md names every module of the package (a
room's modules one by one; a product folder such as ``curate/`` may be named whole) and the README
names every room, neither naming one that does not exist; the README stays a five-minute read
whose links resolve; measured figures live only with their benchmarks (benchmarks/README.md), so a
rerun changes no page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import inspect_arenahard

PACKAGE = Path(inspect_arenahard.__file__).parent
REPO = PACKAGE.parents[1]
ARCHITECTURE = REPO / "docs" / "architecture.md"
README = REPO / "README.md"
MEASURED = re.compile(
    r"\d[\d.,]*\s?(?:GiB|MiB/s|ms\b|s\b|min\b|prompts/s|records/s)|\d[\d.]*× faster|coverage \d"
)
"""A time, memory, throughput or coverage figure: what a benchmark measures."""
ROOMS_BY_MODULE = ("stats", "files", "evaluate", "logs", "report")
"""Rooms whose every module the architecture page names; other folders may be named whole."""


def named_paths(text: str) -> set[str]:
    """Backticked ``name.py`` and ``name/`` tokens (a module or a folder), with their folders."""
    return set(re.findall(r"`([A-Za-z_][\w/]*(?:\.py|/))`", text))


def package_modules() -> list[str]:
    """Every module file of the package, relative to it (``stats/bt.py``), ``__init__`` aside."""
    return sorted(
        p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if p.name != "__init__.py"
    )


def rooms() -> set[str]:
    """The package's top level: its root modules and its folders."""
    modules = {p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    return modules | {f"{p.name}/" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}


def on_the_map(module: str, named: set[str]) -> bool:
    if module in named:
        return True
    folder = module.rpartition("/")[0]
    return bool(folder) and folder not in ROOMS_BY_MODULE and f"{folder}/" in named


def exists(name: str) -> bool:
    candidates = [PACKAGE / name, REPO / name, *PACKAGE.glob(f"*/{name}"), *REPO.glob(f"*/{name}")]
    return any(c.exists() for c in candidates)


def test_the_architecture_page_names_every_module() -> None:
    named = named_paths(ARCHITECTURE.read_text(encoding="utf-8"))
    assert [m for m in package_modules() if not on_the_map(m, named)] == []


def test_the_readme_names_every_room() -> None:
    assert rooms() - named_paths(README.read_text(encoding="utf-8")) == set()


def test_every_module_or_folder_on_the_architecture_page_exists() -> None:
    named = named_paths(ARCHITECTURE.read_text(encoding="utf-8"))
    assert sorted(n for n in named if not exists(n)) == []


def test_every_module_the_readme_names_exists() -> None:
    """Modules only: the README also names data folders (``model_answer/``) that are not ours."""
    named = named_paths(README.read_text(encoding="utf-8"))
    assert sorted(n for n in named if n.endswith(".py") and not exists(n)) == []


def test_the_map_check_sees_a_missing_module() -> None:
    named = {"stats/bt.py", "curate/"}
    assert on_the_map("stats/bt.py", named) and on_the_map("curate/embed.py", named)
    assert not on_the_map("stats/sandwich.py", {"stats/"})
    assert not exists("stats/no_such_module.py")


def _root(stem: str) -> str:
    for ending in ("ing", "es", "s", "e"):
        if stem.endswith(ending) and len(stem) - len(ending) >= 4:
            return stem[: -len(ending)]
    return stem


def near_homonyms(modules: list[str]) -> list[tuple[str, str]]:
    """Pairs of modules whose names differ only by a suffix (``judges``/``judging``,
    ``audit``/``audit_checks``): a reader cannot tell from the tree which holds what. The
    ``cli/`` modules are named after their subcommands and left out."""
    stems = sorted({Path(m).stem for m in modules if not m.startswith("cli/")})
    return [
        (a, b)
        for i, a in enumerate(stems)
        for b in stems[i + 1 :]
        if b.startswith(f"{a}_") or a.startswith(f"{b}_") or _root(a) == _root(b)
    ]


def test_no_two_modules_differ_only_by_a_suffix() -> None:
    assert near_homonyms(package_modules()) == []


def test_the_homonym_check_sees_one() -> None:
    assert near_homonyms(["judges.py", "judging.py", "bt.py"]) == [("judges", "judging")]
    assert near_homonyms(["report/audit.py", "report/audit_checks.py"]) == [
        ("audit", "audit_checks")
    ]
    assert (
        near_homonyms(["stats/bt.py", "stats/battles.py", "cli/audit.py", "report/audit_x.py"])
        == []
    )


def test_readme_is_a_five_minute_read() -> None:
    assert len(README.read_bytes()) <= 12 * 1024


def test_readme_links_resolve() -> None:
    targets = re.findall(r"\]\(((?!https?://|#)[^)\s]+)\)", README.read_text(encoding="utf-8"))
    assert targets
    assert [t for t in targets if not (REPO / t.split("#")[0]).exists()] == []


def _pages() -> list[Path]:
    pages = [README, *sorted((REPO / "docs").rglob("*.md"))]
    return [p for p in pages if p.name != "benchmarks.md"]  # that page shows benchmarks/README.md


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_measured_figures_live_with_their_benchmarks(page: Path) -> None:
    figures = [m.group(0) for m in MEASURED.finditer(page.read_text(encoding="utf-8"))]
    assert figures == [], f"{page.name}: move measured figures to benchmarks/README.md"


def test_the_measured_figure_pattern_finds_figures() -> None:
    text = (REPO / "benchmarks" / "README.md").read_text(encoding="utf-8")
    assert len(MEASURED.findall(text)) > 20
    assert not MEASURED.search("64 MiB chunks, 1,000 rounds, NMI ≥ 0.8, a 5-point gap")


def test_the_task_argument_table_lists_every_argument_of_the_task() -> None:
    """The evaluate page's table of ``-T`` arguments is the one the declaration generates
    (``evaluate/arguments.py``), and it names exactly the parameters Inspect sees, so a new
    or renamed argument fails here until the page is regenerated."""
    import inspect

    from inspect_arenahard.evaluate.arguments import markdown_table
    from inspect_arenahard.evaluate.task import arenahard

    page = (REPO / "docs" / "evaluate.md").read_text(encoding="utf-8")
    table = page.split("## Task arguments", 1)[1].split("\n## ", 1)[0]
    assert markdown_table() in table, (
        "regenerate: python -c 'from inspect_arenahard.evaluate.arguments import "
        "markdown_table; print(markdown_table())'"
    )
    named = {
        n
        for row in re.findall(r"^\| ([^|]+) \|", table, flags=re.M)
        for n in re.findall(r"`(\w+)`", row)
    }
    parameters = inspect.signature(arenahard).parameters.values()
    assert named == {p.name for p in parameters if p.kind is not p.VAR_KEYWORD}
