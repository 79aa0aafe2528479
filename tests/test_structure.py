"""The code's structure, read from its import graph (ast, nothing imported): no import cycle in household/, pools/,
planner/ or flows/, no module uses another's private names, and no import runs upward across packages
(shared/DESIGN.md's layering)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Layers, bottom up: household and pools are both at the bottom and know nothing of each other.
MAY_IMPORT: dict[str, frozenset[str]] = {
    "household": frozenset(),
    "pools": frozenset(),
    "planner": frozenset({"household", "pools"}),
    "flows": frozenset({"household", "pools", "planner"}),
    "testing": frozenset({"household", "pools", "planner", "flows"}),  # test infrastructure, on top of it all
}

# Upward imports that existed when this test was written, (importing module, imported module). Each is a defect
# to remove, not a permission: delete its entry when the import goes. A new upward import fails the test.
KNOWN_UPWARD: frozenset[tuple[str, str]] = frozenset()


def _modules(package: str) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file of a package."""
    out = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imported(path: Path, module: str, known: set[str]) -> set[str]:
    """Modules a file imports anywhere (top level, in functions, under TYPE_CHECKING); `from a import b` names
    a.b when that is a module in `known`, else a."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.add(sub if sub in known else base)
    return out


def _graph(packages: tuple[str, ...]) -> dict[str, set[str]]:
    """Module -> the modules of `packages` it imports anywhere (a package's own __init__ edge left out)."""
    mods = {m: p for pkg in packages for m, p in _modules(pkg).items()}
    known = set(mods)
    return {m: {t for t in _imported(p, m, known) if t in known and t != m and t not in packages}
            for m, p in mods.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of the graph as a path (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own_names(tree: ast.AST) -> set[str]:
    """Private names a module defines itself: functions, classes, variables, attributes it assigns, slots."""
    own: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            own.add(node.attr)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__"
                                                for t in node.targets):
            own.update(c.value for c in ast.walk(node.value)
                       if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return {n for n in own if _is_private(n)}


def _private_uses(path: Path) -> list[str]:
    """Uses of private names the file does not define: imported ones, attributes, getattr/setattr strings."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    own = _own_names(tree)
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            bad += [f"line {node.lineno}: imports {a.name} from {node.module}" for a in node.names
                    if _is_private(a.name)]
        elif isinstance(node, ast.Attribute) and _is_private(node.attr) and node.attr not in own:
            bad.append(f"line {node.lineno}: uses .{node.attr}")
        elif isinstance(node, ast.Call) and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and _is_private(node.args[1].value) \
                and isinstance(node.func, (ast.Name, ast.Attribute)) \
                and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                    "getattr", "setattr", "hasattr", "delattr", "__setattr__", "__getattribute__"):
            bad.append(f"line {node.lineno}: reaches {node.args[1].value!r} by name")
    return bad


def test_no_import_cycle():
    # Every import counts, in functions and under TYPE_CHECKING too: a cycle hidden in a function is still one.
    cycle = _cycle(_graph(("household", "pools", "planner", "flows")))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_cycle_finder_sees_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_household_uses_no_other_modules_private_names():
    bad = {str(p.relative_to(ROOT)): uses for p in _modules("household").values() if (uses := _private_uses(p))}
    assert not bad, f"private names used across household/ modules: {bad}"


def test_no_upward_import_across_packages():
    mods = {m: p for pkg in MAY_IMPORT for m, p in _modules(pkg).items()}
    known = set(mods)
    upward = set()
    for module, path in mods.items():
        pkg = module.split(".")[0]
        for target in _imported(path, module, known):
            top = target.split(".")[0]
            if top in MAY_IMPORT and top != pkg and top not in MAY_IMPORT[pkg]:
                upward.add((module, target))
    new = sorted(upward - KNOWN_UPWARD)
    assert not new, "imports against the layering household/pools <- planner <- flows (shared/DESIGN.md): " + \
        ", ".join(f"{a} imports {b}" for a, b in new)
