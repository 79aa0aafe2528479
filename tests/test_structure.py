"""The code's structure, read from its import graph (ast, nothing imported): no import cycle in household/, pools/,
llm/, planner/ or flows/, no module uses another's private names, no import runs upward across packages
(shared/DESIGN.md's layering; llm/ at the bottom, importing nothing of the project; benchmarks/ on top, a package that
leaves sys.path alone), and inside planner/ and household/ each sub-package imports only what PLANNER_MAY_IMPORT and
HOUSEHOLD_MAY_IMPORT (and its __init__ docstring) allow."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Layers, bottom up: household, pools and llm (the LLM client and its server) are all at the bottom and know nothing
# of each other.
MAY_IMPORT: dict[str, frozenset[str]] = {
    "household": frozenset(),
    "pools": frozenset(),
    "llm": frozenset(),
    "planner": frozenset({"household", "pools", "llm"}),
    "flows": frozenset({"household", "pools", "llm", "planner"}),
    "testing": frozenset({"household", "pools", "llm", "planner", "flows"}),  # test infrastructure, on top of it all
    # run as `python -m benchmarks.X`
    "benchmarks": frozenset({"household", "pools", "llm", "planner", "flows", "testing"}),
}
# The project's packages as a docstring's "May import:" line names them.
PACKAGE_NAME = re.compile(r"\b(" + "|".join(p for p in MAY_IMPORT if p != "benchmarks") + r")\b")

# Upward imports that existed when this test was written, (importing module, imported module). Each is a defect
# to remove, not a permission: delete its entry when the import goes. A new upward import fails the test.
KNOWN_UPWARD: frozenset[tuple[str, str]] = frozenset()

# Inside planner/: unit (a sub-package, or the top-level modules config and variants) -> the other units, and the
# packages below planner/ (household, pools, llm), it may import. Read from the imports; the same list is each
# sub-package's "May import:" line (planner/<sub>/__init__.py). Bottom up: prompts and scaffold import nothing of
# planner; retrieval and adapter on prompts; follow on retrieval and scaffold; config on scaffold, variants; search
# on those; views
# and loop on search; probe on loop; relabel on loop and probe. A new import across units fails the test until it is
# added here and to the docstring.
PLANNER_MAY_IMPORT: dict[str, frozenset[str]] = {
    "prompts": frozenset({"pools"}),
    "scaffold": frozenset({"household"}),
    "variants": frozenset(),
    "agents": frozenset({"variants"}),  # what each variant's rows are named (README, docs/results.md, the report)
    "config": frozenset({"scaffold", "variants"}),
    "retrieval": frozenset({"prompts", "llm", "household", "pools"}),
    "adapter": frozenset({"prompts", "llm", "household", "pools"}),
    "follow": frozenset({"retrieval", "scaffold", "household", "pools"}),
    "search": frozenset({"prompts", "retrieval", "adapter", "follow", "scaffold", "config", "variants", "llm",
                         "household", "pools"}),
    "loop": frozenset({"prompts", "retrieval", "search", "scaffold", "config", "variants", "household", "pools"}),
    "relabel": frozenset({"prompts", "retrieval", "loop", "probe", "scaffold", "config", "variants", "llm",
                          "household", "pools"}),
    "probe": frozenset({"adapter", "follow", "retrieval", "search", "loop", "scaffold", "config", "household",
                        "pools"}),
    "views": frozenset({"prompts", "search", "pools"}),
}

# Inside household/: unit (a sub-package, or the top-level module backends) -> the other units it may import. Bottom
# up: world (the world itself, no expert in it), expert (the expert and what needs it: a task's settled scene, Env,
# the cost-to-go), alfworld (ALFWorld's games, its backend, the crosscheck), backends (EpisodeEnv and open_env, the
# factory that picks ours or ALFWorld's by world.backend). The same list is each unit's "May import:" line
# (household/<sub>/__init__.py, household/backends.py).
HOUSEHOLD_MAY_IMPORT: dict[str, frozenset[str]] = {
    "world": frozenset(),
    "expert": frozenset({"world"}),
    "alfworld": frozenset({"world", "expert"}),
    "backends": frozenset({"world", "expert", "alfworld"}),
}


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
    cycle = _cycle(_graph(("household", "pools", "llm", "planner", "flows")))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_cycle_finder_sees_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_household_uses_no_other_modules_private_names():
    bad = {str(p.relative_to(ROOT)): uses for p in _modules("household").values() if (uses := _private_uses(p))}
    assert not bad, f"private names used across household/ modules: {bad}"


def _upward(packages: tuple[str, ...]) -> set[tuple[str, str]]:
    """(module, imported module) of the packages' imports across packages that MAY_IMPORT does not allow."""
    known = {m for pkg in MAY_IMPORT for m in _modules(pkg)}
    upward = set()
    for pkg in packages:
        for module, path in _modules(pkg).items():
            for target in _imported(path, module, known):
                top = target.split(".")[0]
                if top in MAY_IMPORT and top != pkg and top not in MAY_IMPORT[pkg]:
                    upward.add((module, target))
    return upward


def test_no_upward_import_across_packages():
    new = sorted(_upward(tuple(MAY_IMPORT)) - KNOWN_UPWARD)
    assert not new, "imports against the layering household/pools/llm <- planner <- flows (shared/DESIGN.md): " + \
        ", ".join(f"{a} imports {b}" for a, b in new)


def _may_import_line(package: str) -> set[str]:
    """The project's packages named after "May import:" in a package's __init__ docstring."""
    doc = ast.get_docstring(ast.parse((ROOT / package / "__init__.py").read_text(encoding="utf-8"))) or ""
    assert "May import:" in doc, f"{package}/__init__.py: its docstring has no 'May import:' line"
    return set(PACKAGE_NAME.findall(doc.split("May import:", 1)[-1]))


def test_llm_is_the_bottom_layer():
    # The LLM client, its cache, settings, server and test endpoint know nothing of the world, the records, the
    # planner or the flows: every layer above may use it, and it is read (and tested) alone.
    assert MAY_IMPORT["llm"] == frozenset()
    assert not any("llm" in MAY_IMPORT[p] for p in ("household", "pools")), "household/ and pools/ sit beside llm/"
    assert all("llm" in MAY_IMPORT[p] for p in ("planner", "flows", "testing", "benchmarks"))
    assert _may_import_line("llm") == set(), "llm/__init__.py's 'May import:' line names a package of the project"
    bad = sorted(_upward(("llm",)))
    assert not bad, "llm/ imports the project: " + ", ".join(f"{a} imports {b}" for a, b in bad)


def test_benchmarks_are_a_package_that_leaves_sys_path_alone():
    # `python -m benchmarks.NAME` from the repository root finds every package: no script edits sys.path to do so.
    init = ROOT / "benchmarks" / "__init__.py"
    assert init.exists(), "benchmarks/ is run as a package (python -m benchmarks.NAME): it needs an __init__.py"
    named = _may_import_line("benchmarks")
    assert named == MAY_IMPORT["benchmarks"], \
        f"benchmarks/__init__.py may import {sorted(named)}; MAY_IMPORT says {sorted(MAY_IMPORT['benchmarks'])}"
    edits = [f"{p.relative_to(ROOT)}:{node.lineno}" for p in _modules("benchmarks").values()
             for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
             if isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name)
             and node.value.id == "sys"]
    assert not edits, f"benchmarks edit sys.path (run them as python -m benchmarks.NAME instead): {edits}"


def _planner_unit(module: str) -> str | None:
    """The unit of PLANNER_MAY_IMPORT a module belongs to: planner.<sub>... -> <sub>, household/pools/llm -> that
    package, the planner package itself -> None (it imports nothing)."""
    parts = module.split(".")
    if parts[0] != "planner":
        return parts[0]
    return parts[1] if len(parts) > 1 else None


def _against_planner_table(edges: set[tuple[str, str]]) -> list[str]:
    """The edges (importing planner module, imported module) that cross units outside PLANNER_MAY_IMPORT."""
    bad = []
    for module, target in sorted(edges):
        src, dst = _planner_unit(module), _planner_unit(target)
        if src is None or dst is None or src == dst or dst not in PLANNER_MAY_IMPORT and dst not in MAY_IMPORT:
            continue
        if dst not in PLANNER_MAY_IMPORT.get(src, frozenset()):
            bad.append(f"{module} imports {target} ({src} may import: {sorted(PLANNER_MAY_IMPORT.get(src, ()))})")
    return bad


def _planner_edges() -> set[tuple[str, str]]:
    """(planner module, module of planner/household/pools/llm it imports anywhere)."""
    packages = ("household", "pools", "llm", "planner")
    known = {m for pkg in packages for m in _modules(pkg)}
    return {(module, target) for module, path in _modules("planner").items()
            for target in _imported(path, module, known) if target.split(".")[0] in packages}


def _planner_units() -> set[str]:
    """planner/'s sub-packages and top-level modules (the units the table must cover)."""
    root = ROOT / "planner"
    return ({p.parent.name for p in root.glob("*/__init__.py")}
            | {p.stem for p in root.glob("*.py") if p.stem != "__init__"})


def test_planner_table_covers_every_unit_and_is_acyclic():
    assert set(PLANNER_MAY_IMPORT) == _planner_units(), "PLANNER_MAY_IMPORT must name every planner sub-package"
    graph = {u: {d for d in deps if d in PLANNER_MAY_IMPORT} for u, deps in PLANNER_MAY_IMPORT.items()}
    cycle = _cycle(graph)
    assert cycle is None, "PLANNER_MAY_IMPORT has a cycle: " + " -> ".join(cycle or [])
    below = {d for deps in PLANNER_MAY_IMPORT.values() for d in deps if d not in PLANNER_MAY_IMPORT}
    assert below <= MAY_IMPORT["planner"], f"planner may import only {sorted(MAY_IMPORT['planner'])}: {below}"


def test_planner_subpackages_import_only_what_the_table_allows():
    bad = _against_planner_table(_planner_edges())
    assert not bad, "imports across planner sub-packages outside PLANNER_MAY_IMPORT: " + "; ".join(bad)


def test_the_planner_table_check_sees_a_violation():
    assert _against_planner_table({("planner.prompts.prompting", "planner.loop.episode")})
    assert _against_planner_table({("planner.scaffold.legal", "pools.records")})
    assert _against_planner_table({("planner.views.rows", "llm.client")})
    assert not _against_planner_table({("planner.search.critic", "llm.constrain")})
    assert not _against_planner_table({("planner.loop.episode", "planner.search.beam"),
                                       ("planner.loop.episode", "planner.loop.replay")})


def _may_import_paragraph(path: Path) -> str:
    """The paragraph of a file's docstring that starts with its "May import:" line (up to the next blank line)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    line = next((ln for ln in doc.splitlines() if ln.startswith("May import:")), None)
    assert line is not None, f"{path.relative_to(ROOT)}: its docstring has no 'May import:' line"
    start = doc.index(line)
    end = doc.find("\n\n", start)
    return doc[start:] if end < 0 else doc[start:end]


def test_each_planner_subpackage_docstring_names_what_it_may_import():
    # The "May import:" line of planner/<sub>/__init__.py: planner.<sub> names, household, pools, llm.
    for init in sorted((ROOT / "planner").glob("*/__init__.py")):
        text = _may_import_paragraph(init)
        named = {m.group(1) or m.group(2) for m in re.finditer(r"\bplanner\.(\w+)|\b(household|pools|llm)\b", text)}
        assert named == set(PLANNER_MAY_IMPORT[init.parent.name]), \
            f"{init.relative_to(ROOT)} says it may import {sorted(named)}; PLANNER_MAY_IMPORT says " \
            f"{sorted(PLANNER_MAY_IMPORT[init.parent.name])}"


def _household_unit(module: str) -> str | None:
    """The unit of HOUSEHOLD_MAY_IMPORT a household module belongs to: household.<sub>... -> <sub> (a sub-package
    or a top-level module), the household package itself -> None."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _against_household_table(edges: set[tuple[str, str]]) -> list[str]:
    """The edges (importing household module, imported household module) that cross units outside
    HOUSEHOLD_MAY_IMPORT."""
    bad = []
    for module, target in sorted(edges):
        src, dst = _household_unit(module), _household_unit(target)
        if src is None or dst is None or src == dst:
            continue
        if dst not in HOUSEHOLD_MAY_IMPORT.get(src, frozenset()):
            bad.append(f"{module} imports {target} ({src} may import: {sorted(HOUSEHOLD_MAY_IMPORT.get(src, ()))})")
    return bad


def _household_edges() -> set[tuple[str, str]]:
    """(household module, household module it imports anywhere)."""
    mods = _modules("household")
    return {(module, target) for module, path in mods.items() for target in _imported(path, module, set(mods))
            if target.split(".")[0] == "household"}


def _household_units() -> dict[str, Path]:
    """household/'s sub-packages and top-level modules (the units the table must cover) -> the file whose docstring
    names what the unit may import."""
    root = ROOT / "household"
    return ({p.parent.name: p for p in root.glob("*/__init__.py")}
            | {p.stem: p for p in root.glob("*.py") if p.stem != "__init__"})


def test_household_table_covers_every_unit_and_is_acyclic():
    assert set(HOUSEHOLD_MAY_IMPORT) == set(_household_units()), \
        "HOUSEHOLD_MAY_IMPORT must name every household sub-package and top-level module"
    cycle = _cycle({u: set(deps) for u, deps in HOUSEHOLD_MAY_IMPORT.items()})
    assert cycle is None, "HOUSEHOLD_MAY_IMPORT has a cycle: " + " -> ".join(cycle or [])
    assert not HOUSEHOLD_MAY_IMPORT["world"], "household.world is the bottom: it imports no other household unit"
    assert "alfworld" not in HOUSEHOLD_MAY_IMPORT["expert"], "household.expert imports nothing of household.alfworld"


def test_household_subpackages_import_only_what_the_table_allows():
    edges = _household_edges()
    assert ("household.expert.env", "household.world.world") in edges, f"household's import graph looks empty: {edges}"
    bad = _against_household_table(edges)
    assert not bad, "imports across household sub-packages outside HOUSEHOLD_MAY_IMPORT: " + "; ".join(bad)


def test_the_household_table_check_sees_a_violation():
    assert _against_household_table({("household.world.world", "household.expert.expert")})
    assert _against_household_table({("household.world.layout", "household.alfworld.importer")})
    assert _against_household_table({("household.expert.stats", "household.alfworld.importer")})
    assert _against_household_table({("household.alfworld.env", "household.backends")})
    assert not _against_household_table({("household.alfworld.crosscheck", "household.expert.expert"),
                                         ("household.expert.scene", "household.world.layout"),
                                         ("household.backends", "household.alfworld.env"),
                                         ("household.world.world", "household.world.goals")})


def test_each_household_unit_docstring_names_what_it_may_import():
    # The "May import:" line of household/<sub>/__init__.py (and of household/backends.py): household.<unit> names.
    assert _may_import_line("household") == set(), "household/__init__.py's 'May import:' line names another package"
    for unit, path in sorted(_household_units().items()):
        named = set(re.findall(r"\bhousehold\.(\w+)", _may_import_paragraph(path)))
        assert named == set(HOUSEHOLD_MAY_IMPORT[unit]), \
            f"{path.relative_to(ROOT)} says it may import {sorted(named)}; HOUSEHOLD_MAY_IMPORT says " \
            f"{sorted(HOUSEHOLD_MAY_IMPORT[unit])}"
