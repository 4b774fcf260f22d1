"""The host's shape holds: no import circle, no module over 500 lines, no loop function over 60.

The modules of ``agentkit.host`` are read with :mod:`ast` (never imported):

* **imports**: every ``import``/``from ... import`` of an ``agentkit.host``
  module, at module level *and* inside functions, *and* under
  ``if TYPE_CHECKING:``. A type-only import creates no runtime cycle, but it
  still ties the two modules together for a reader and a type checker; the
  graph counts it, so a lower module names what it needs by protocol or by
  the few fields it takes, never by importing the module above it. Imports
  through ``importlib.import_module`` (the package root's lazy exports) are
  not imports of a module and are not followed.
* **sizes**: physical lines per module; statement lines per function of the
  loop modules (``_agent``, ``_loop``, ``_run``, and the batch, ``_batch``), from ``def`` to its last line.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

MAX_MODULE_LINES = 500
MAX_LOOP_FUNCTION_LINES = 60
LOOP_MODULES = ("agentkit.host._agent", "agentkit.host._loop", "agentkit.host._run", "agentkit.host._batch")


def _host_modules() -> dict[str, Path]:
    spec = importlib.util.find_spec("agentkit.host")
    assert spec is not None and spec.submodule_search_locations
    root = Path(next(iter(spec.submodule_search_locations)))
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = ["agentkit", "host", *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _imported(name: str, path: Path, modules: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """The ``agentkit.host`` modules ``name`` imports, with the line of each import (every kind: see above)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in modules:
                    yield submodule, node.lineno
                elif target in modules:
                    yield target, node.lineno


def import_graph() -> dict[str, dict[str, int]]:
    """``{module: {imported module: line of the first import}}`` over ``agentkit.host``."""
    modules = _host_modules()
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        edges: dict[str, int] = {}
        for target, line in _imported(name, path, modules):
            if target != name:
                edges.setdefault(target, line)
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """One import circle (its modules in order, the first repeated at the end), or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, {})):
            if state.get(target) == 1:
                return [*path[path.index(target):], target]
            if target not in state and (found := visit(target)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def describe(cycle: list[str], graph: dict[str, dict[str, int]]) -> str:
    return "\n".join(f"  {a} -> {b} (l.{graph[a][b]})" for a, b in itertools.pairwise(cycle))


def test_the_host_import_graph_has_no_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 50, "the walk found the host's modules"
    cycle = find_cycle(graph)
    assert cycle is None, "agentkit.host modules import each other in a circle:\n" + describe(cycle, graph)


def test_the_cycle_finder_finds_a_circle_and_names_its_imports() -> None:
    graph = {"a": {"b": 3}, "b": {"c": 7}, "c": {"a": 1}, "d": {"a": 2}}
    cycle = find_cycle(graph)
    assert cycle == ["a", "b", "c", "a"]
    assert describe(cycle, graph) == "  a -> b (l.3)\n  b -> c (l.7)\n  c -> a (l.1)"
    assert find_cycle({"a": {"b": 1}, "b": {}}) is None


def test_no_module_below_the_loop_imports_it() -> None:
    graph = import_graph()
    above = {"agentkit.host", "agentkit.host._agent", "agentkit.host._subagents", "agentkit.host._loop"}
    importers = sorted(name for name, edges in graph.items() if "agentkit.host._loop" in edges
                       and name not in above and not name.startswith(("agentkit.host.cli", "agentkit.host.rpc")))
    assert importers == [], f"modules below the loop import it: {importers}"


def test_no_host_module_is_over_500_lines() -> None:
    sizes = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in _host_modules().items()}
    over = {name: lines for name, lines in sizes.items() if lines > MAX_MODULE_LINES}
    assert over == {}, f"host modules over {MAX_MODULE_LINES} lines (split them by concern): {over}"


def _functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, int, int]]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            yield f"{prefix}{node.name}", node.lineno, node.end_lineno - node.lineno + 1
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")


@pytest.mark.parametrize("module", LOOP_MODULES)
def test_no_loop_function_is_over_60_lines(module: str) -> None:
    path = _host_modules()[module]
    long = [f"{name} (l.{line}, {size} lines)" for name, line, size in _functions(ast.parse(path.read_text("utf-8")))
            if size > MAX_LOOP_FUNCTION_LINES]
    assert long == [], f"functions of {module} over {MAX_LOOP_FUNCTION_LINES} lines: {long}"
