"""Every stage declares in dvc.yaml the project code it imports (else editing that code would not rerun it)."""
from __future__ import annotations

import modulefinder
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
# How a stage is started, not what it computes: the command line, the workspace and params loading, empty
# package markers. Declaring them would rerun the whole pipeline for a new `hindsight` subcommand.
LAUNCH = {"flows/__init__.py", "flows/env.py", "flows/params.py", "flows/cli.py", "flows/cmd_stage.py"}


def imported_files(module_file: Path) -> set[str]:
    """Project source files a module imports, directly or not (function-level imports included)."""
    finder = modulefinder.ModuleFinder(path=[str(ROOT)])  # project code only: third-party imports are not followed
    finder.run_script(str(module_file))
    out = set()
    for mod in finder.modules.values():
        path = Path(mod.__file__).resolve() if mod.__file__ else None
        if path and path.is_relative_to(ROOT) and path != module_file.resolve():
            out.add(path.relative_to(ROOT).as_posix())
    return out


def covered(rel: str, deps: list[str]) -> bool:
    """A dependency names the file or a folder above it."""
    return any(rel == d or rel.startswith(d.rstrip("/") + "/") for d in deps)


def test_every_stage_declares_the_code_it_imports() -> None:
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    missing = {}
    for name, stage in stages.items():
        body = stage.get("do", stage)
        flow = ROOT / "flows" / f"{name}.py"
        assert flow.exists() and f"flows/{name}.py" in body["deps"], f"stage {name}: declare flows/{name}.py"
        files = imported_files(flow)
        assert any(f.startswith("pools/") for f in files), f"stage {name}: import graph looks empty: {files}"
        undeclared = sorted(f for f in files - LAUNCH if not f.endswith("/__init__.py") and not covered(f, body["deps"]))
        if undeclared:
            missing[name] = undeclared
    assert not missing, f"dvc.yaml: stages import code they do not declare: {missing}"


def test_the_check_sees_an_undeclared_import() -> None:
    files = imported_files(ROOT / "flows" / "pool.py")
    assert "pools/jsonl.py" in files and not covered("pools/jsonl.py", ["flows/pool.py", "schemas"])
