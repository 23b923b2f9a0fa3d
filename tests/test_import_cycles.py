"""No import cycles inside the package: every module's imports form a directed acyclic graph.

The graph is built with ``ast`` from the source, not by importing it, and counts every import
statement wherever it is — at module level and inside functions — because a lazy import that
closes a cycle hides the cycle from the interpreter but not from the design. Imports under
``if TYPE_CHECKING:`` count too: they never run, but a type that two modules need from each other
is a circle in the design all the same (it belongs in a third, lower module).
``from pkg import name`` is an edge to ``pkg.name`` when that is a module, otherwise to ``pkg``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import inspect_arenahard

PACKAGE = inspect_arenahard.__name__
ROOT = Path(inspect_arenahard.__file__).parent


def module_files(root: Path) -> dict[str, Path]:
    """Dotted module name → source file, for every module of the package."""
    modules = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement in ``tree``: module level, in functions, under ``TYPE_CHECKING``."""
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module → the package modules it imports (relative imports resolved)."""
    modules = module_files(root)

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str | None] = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets |= {owner(a.name) for a in node.names if a.name.split(".")[0] == PACKAGE}
                continue
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            if base.split(".")[0] != PACKAGE:
                continue
            targets |= {
                f"{base}.{a.name}" if f"{base}.{a.name}" in modules else owner(base)
                for a in node.names
            }
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_lazy_and_relative_imports_are_edges(tmp_path: Path) -> None:
    src = tmp_path / PACKAGE
    (src / "sub").mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "sub" / "__init__.py").write_text("")
    (src / "sub" / "a.py").write_text("from . import b\n")
    (src / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from inspect_arenahard.c import C\n"
        "def f():\n    from inspect_arenahard.sub.a import x\n"
    )
    (src / "c.py").write_text("import inspect_arenahard.sub.b\n")
    graph = import_graph(src)
    assert graph[f"{PACKAGE}.sub.a"] == {f"{PACKAGE}.sub.b"}
    # lazy and type-only imports are edges too
    assert graph[f"{PACKAGE}.sub.b"] == {f"{PACKAGE}.c", f"{PACKAGE}.sub.a"}
    assert graph[f"{PACKAGE}.c"] == {f"{PACKAGE}.sub.b"}
    assert cycles(graph) == [[f"{PACKAGE}.c", f"{PACKAGE}.sub.a", f"{PACKAGE}.sub.b"]]


def test_no_import_cycles_in_the_package() -> None:
    graph = import_graph()
    assert graph[f"{PACKAGE}.evaluate.scorers"]  # the graph is real
    assert cycles(graph) == []


def reachable(graph: dict[str, set[str]], starts: set[str]) -> set[str]:
    """Every module that importing ``starts`` can import, directly or through others."""
    seen, stack = set(starts), list(starts)
    while stack:
        for child in graph[stack.pop()] - seen:
            seen.add(child)
            stack.append(child)
    return seen


STAGES: dict[str, int] = {
    "errors": 0,
    "typed_options": 0,
    "stats": 0,
    "files": 1,
    "judging": 2,
    "evaluate": 3,
    "logs": 4,
    "report": 5,
    "curate": 6,
    "arena": 6,
    "scaleeval": 6,
    "cli": 7,
    "_registry": 8,
    "__main__": 8,
    "": 8,
}
"""The package's rooms, lowest first. A room imports only rooms of a lower rank (and itself):
statistics are pure and import nothing of ours; files are shared plumbing; the judging kernel
(grammars, neutralisation, templates, the judge call, committees) serves every stage that asks a
model for a verdict; the ``arenahard`` task writes logs, the log layer reads them, reports present what the logs hold; curation, Auto-Arena and
ScaleEval are products built on those; the command line sits on top, and only the package root,
Inspect's entry point (which export and register everything) and ``python -m``'s entry stand
above it."""


def stage(module: str) -> str:
    """The room of a dotted module name: its folder, or the root module's own name."""
    parts = module.split(".")[1:]
    return parts[0] if parts else ""


def test_every_room_has_a_rank() -> None:
    assert {stage(m) for m in import_graph()} == set(STAGES)


def test_rooms_import_only_lower_rooms() -> None:
    """No arrow runs from a lower stage to a higher one or between rooms of one rank (``stats``
    and the root leaves import nothing of ours but themselves)."""
    graph = import_graph()
    wrong = sorted(
        f"{m} -> {t}"
        for m, targets in graph.items()
        for t in targets
        if stage(m) != stage(t) and STAGES[stage(t)] >= STAGES[stage(m)]
    )
    assert wrong == []


def test_products_judge_through_the_kernel_not_the_task() -> None:
    """Auto-Arena, ScaleEval and curation ask for verdicts through ``judging/``; the
    ``arenahard`` task's room (dataset, solvers, scorer, adaptive runs) is not theirs to import."""
    graph = import_graph()
    wrong = sorted(
        f"{m} -> {t}"
        for m, targets in graph.items()
        if stage(m) in {"arena", "scaleeval", "curate"}
        for t in targets
        if stage(t) == "evaluate"
    )
    assert wrong == []


def test_statistics_import_nothing_of_ours() -> None:
    graph = import_graph()
    stats = {m for m in graph if stage(m) == "stats"}
    assert f"{PACKAGE}.stats.battles" in stats
    assert reachable(graph, stats) == stats


def test_the_layering_rule_finds_an_upward_arrow(tmp_path: Path) -> None:
    src = tmp_path / PACKAGE
    for folder in ("stats", "report"):
        (src / folder).mkdir(parents=True)
        (src / folder / "__init__.py").write_text("")
    (src / "__init__.py").write_text("")
    (src / "stats" / "fit.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from inspect_arenahard.report.table import T\n"
    )
    (src / "report" / "table.py").write_text("from inspect_arenahard.stats.fit import f\n")
    graph = import_graph(src)
    upward = [
        (m, t)
        for m, ts in graph.items()
        for t in ts
        if STAGES[stage(t)] >= STAGES[stage(m)] and stage(m) != stage(t)
    ]
    assert upward == [(f"{PACKAGE}.stats.fit", f"{PACKAGE}.report.table")]
