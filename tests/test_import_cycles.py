"""No import cycles inside the package: every module's imports form a directed acyclic graph.

The graph is built with ``ast`` from the source, not by importing it, and counts every import
statement wherever it is — at module level and inside functions — because a lazy import that
closes a cycle hides the cycle from the interpreter but not from the design. Only imports under
``if TYPE_CHECKING:`` are left out: they never run and exist for annotations only.
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


def _type_checking_only(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement in ``tree`` except those under ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif _type_checking_only(node):
            stack.extend(getattr(node, "orelse", []))
        else:
            stack.extend(ast.iter_child_nodes(node))
    return found


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
    assert graph[f"{PACKAGE}.sub.b"] == {
        f"{PACKAGE}.sub.a"
    }  # lazy import counted, TYPE_CHECKING not
    assert graph[f"{PACKAGE}.c"] == {f"{PACKAGE}.sub.b"}
    assert cycles(graph) == [[f"{PACKAGE}.sub.a", f"{PACKAGE}.sub.b"]]


def test_no_import_cycles_in_the_package() -> None:
    graph = import_graph()
    assert f"{PACKAGE}.judging" in graph and graph[f"{PACKAGE}.judges"]  # the graph is real
    assert cycles(graph) == []


def reachable(graph: dict[str, set[str]], starts: set[str]) -> set[str]:
    """Every module that importing ``starts`` can import, directly or through others."""
    seen, stack = set(starts), list(starts)
    while stack:
        for child in graph[stack.pop()] - seen:
            seen.add(child)
            stack.append(child)
    return seen


def test_statistics_do_not_reach_the_data_loaders() -> None:
    """``stats`` reads battle files through the dependency-free JSONL reader, not ``data`` (whose
    loaders download from the hub), and the reader depends on nothing but the error type and the
    file opener (local or store URL), which depends on nothing of the package."""
    graph = import_graph()
    stats = {m for m in graph if m.startswith(f"{PACKAGE}.stats.")}
    assert f"{PACKAGE}.stats.battles" in stats
    assert f"{PACKAGE}.data" not in reachable(graph, stats)
    assert graph[f"{PACKAGE}.jsonl"] == {f"{PACKAGE}.errors", f"{PACKAGE}.storage"}
    assert graph[f"{PACKAGE}.storage"] == set()
