"""Every stage declares in dvc.yaml the project code it imports (else editing that code would not rerun it)."""
from __future__ import annotations

import modulefinder
from pathlib import Path

import yaml

from flows.stages import module_name

ROOT = Path(__file__).resolve().parents[2]
# How a stage is started, not what it computes: the command line, the workspace and params loading, package
# markers (flows/stages/__init__.py maps stage names to modules). Declaring them would rerun the whole pipeline
# for a new `hindsight` subcommand.
# household/world/resources.py says where the data directory is (workspace.py exports it); the data itself is a dep of
# `tasks` (dvc.yaml: ${data.dir}/...), and the stages that read the world declare household whole.
# flows/runtime/declared.py reads dvc.yaml itself (paths, params keys), whose every change DVC already tracks.
LAUNCH = {"flows/runtime/workspace.py", "flows/runtime/params.py", "flows/runtime/declared.py", "flows/cli/main.py",
          "flows/cli/cmd_stage.py", "household/world/resources.py"}


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


def stage_file(stage: str) -> str:
    """The flow file of a DVC stage, workspace-relative."""
    return module_name(stage).replace(".", "/") + ".py"


def covered(rel: str, deps: list[str]) -> bool:
    """A dependency names the file or a folder above it."""
    return any(rel == d or rel.startswith(d.rstrip("/") + "/") for d in deps)


def test_every_stage_declares_the_code_it_imports() -> None:
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    missing = {}
    for name, stage in stages.items():
        body = stage.get("do", stage)
        rel = stage_file(name)
        flow = ROOT / rel
        assert flow.exists() and rel in body["deps"], f"stage {name}: declare {rel}"
        files = imported_files(flow)
        assert any(f.startswith("pools/") for f in files), f"stage {name}: import graph looks empty: {files}"
        undeclared = sorted(f for f in files - LAUNCH if not f.endswith("/__init__.py") and not covered(f, body["deps"]))
        if undeclared:
            missing[name] = undeclared
    assert not missing, f"dvc.yaml: stages import code they do not declare: {missing}"


def test_the_check_sees_an_undeclared_import() -> None:
    files = imported_files(ROOT / stage_file("pool"))
    assert "pools/jsonl.py" in files and not covered("pools/jsonl.py", ["flows/stages/hindsight_pool.py", "schemas"])
