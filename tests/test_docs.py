"""The documentation matches the tree: docs/architecture.md names every module of the package and
nothing that does not exist; the README stays a five-minute read whose links resolve; measured
figures live only with their benchmarks (benchmarks/README.md), so a rerun changes no page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import inspect_arenahard

PACKAGE = Path(inspect_arenahard.__file__).parent
REPO = PACKAGE.parents[1]
README = REPO / "README.md"
DOCS = {"architecture": REPO / "docs" / "architecture.md"}
MEASURED = re.compile(
    r"\d[\d.,]*\s?(?:GiB|MiB/s|ms\b|s\b|min\b|prompts/s|records/s)|\d[\d.]*× faster|coverage \d"
)
"""A time, memory, throughput or coverage figure: what a benchmark measures."""


def _map_text(doc: str) -> str:
    return DOCS[doc].read_text(encoding="utf-8")


def _named_paths(text: str) -> set[str]:
    """Backticked ``name.py`` and ``name/`` tokens (a module or a folder)."""
    return set(re.findall(r"`([A-Za-z_][\w/]*(?:\.py|/))`", text))


def _top_level() -> set[str]:
    modules = {p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    packages = {f"{p.name}/" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    return modules | packages


@pytest.mark.parametrize("doc", sorted(DOCS))
def test_every_module_and_subpackage_is_on_the_map(doc: str) -> None:
    named = _named_paths(_map_text(doc))
    assert _top_level() - named == set()


@pytest.mark.parametrize("doc", sorted(DOCS))
def test_every_module_on_the_map_exists(doc: str) -> None:
    missing = []
    for name in _named_paths(_map_text(doc)):
        candidates = [
            PACKAGE / name,
            REPO / name,
            *PACKAGE.glob(f"*/{name}"),
            *REPO.glob(f"*/{name}"),
        ]
        if not any(c.exists() for c in candidates):
            missing.append(name)
    assert missing == []


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
    """The evaluate page's table of ``-T`` arguments is hand-written prose: it must name exactly
    the parameters the ``arenahard`` task takes, so a new or renamed argument fails here."""
    import inspect

    from inspect_arenahard.task import arenahard

    page = (REPO / "docs" / "evaluate.md").read_text(encoding="utf-8")
    table = page.split("## Task arguments", 1)[1].split("\n## ", 1)[0]
    named = {
        n
        for row in re.findall(r"^\| ([^|]+) \|", table, flags=re.M)
        for n in re.findall(r"`(\w+)`", row)
    }
    parameters = inspect.signature(arenahard).parameters.values()
    assert named == {p.name for p in parameters if p.kind is not p.VAR_KEYWORD}
