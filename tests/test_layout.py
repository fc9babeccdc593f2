"""The package's import graph, read from the source (ast): no cycle, at most MAX_LAYERS layers.

Every import counts, lazy ones inside functions too: a cycle through a lazy import is still a
cycle. A module's layer is 1 + the highest layer of the modules it imports (a module that imports
nothing of the package is layer 1), so the layer count is the longest chain of imports.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "autograder"
MAX_LAYERS = 8


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """module -> the package's modules it imports (a package's __init__ counts as a module)."""
    files = {module_name(p, package): p for p in package.rglob("*.py")}

    def known(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imported: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                imported |= {known(alias.name) for alias in node.names if alias.name.split(".")[0] == package.name}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                if base.split(".")[0] != package.name:
                    continue
                for alias in node.names:  # `from pkg import module` imports the module
                    full = f"{base}.{alias.name}"
                    imported.add(full if full in files else known(base))
        graph[name] = {m for m in imported if m and m != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle as a list of modules (first == last), or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = 1
        path.append(module)
        for imported in sorted(graph[module]):
            if state.get(imported) == 1:
                return [*path[path.index(imported):], imported]
            if imported not in state and (cycle := visit(imported)):
                return cycle
        path.pop()
        state[module] = 2
        return []

    for module in sorted(graph):
        if module not in state and (cycle := visit(module)):
            return cycle
    return []


def layers(graph: dict[str, set[str]]) -> dict[str, int]:
    """Each module's layer (the graph must be acyclic)."""
    layer: dict[str, int] = {}

    def of(module: str) -> int:
        if module not in layer:
            layer[module] = 1 + max((of(m) for m in graph[module]), default=0)
        return layer[module]

    for module in graph:
        of(module)
    return layer


def deepest_chain(graph: dict[str, set[str]], layer: dict[str, int]) -> list[str]:
    """The longest chain of imports, from the top module down."""
    module = max(layer, key=lambda m: (layer[m], m))
    chain = [module]
    while graph[module]:
        module = max(graph[module], key=lambda m: (layer[m], m))
        chain.append(module)
    return chain


def test_the_graph_reader_sees_lazy_relative_and_from_package_imports(tmp_path):
    package = tmp_path / "autograder"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from autograder.sub import b\n")
    (package / "sub" / "b.py").write_text("from . import c\n")
    (package / "sub" / "c.py").write_text("import autograder.a\n")
    graph = import_graph(package)
    assert graph["autograder.a"] == {"autograder.sub.b"}
    assert graph["autograder.sub.b"] == {"autograder.sub.c"}
    assert graph["autograder.sub.c"] == {"autograder.a"}
    assert find_cycle(graph) == ["autograder.a", "autograder.sub.b", "autograder.sub.c", "autograder.a"]


def test_the_package_has_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_the_package_is_at_most_eight_layers_deep():
    graph = import_graph()
    assert not find_cycle(graph)
    layer = layers(graph)
    chain = deepest_chain(graph, layer)
    assert len(chain) == max(layer.values())
    assert len(chain) <= MAX_LAYERS, f"{len(chain)} layers: " + " -> ".join(chain)
