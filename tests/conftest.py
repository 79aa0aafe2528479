"""Fixtures shared by every test suite (keep this small)."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `from llm.scripted import ...` works however pytest is started
    sys.path.insert(0, str(ROOT))

from flows.runtime.workspace import workspace_data_dir  # noqa: E402
from household.world.resources import ENV_VAR, data_dir  # noqa: E402
from llm.scripted import ScriptedEndpoint  # noqa: E402

# The data is read in place: project copies under a temporary folder (and every process they start) read the
# checkout's data directory, not a ../shared/alfred beside the copy.
os.environ.setdefault(ENV_VAR, str(workspace_data_dir() or data_dir()))


@pytest.fixture(scope="session", autouse=True)
def shared_vectors(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One store of sentence vectors for the whole run (every worker, every project copy and the stages they start):
    each stage process that meets only known texts then never loads the encoder (~12 CPU-seconds a load)."""
    from llm.paths import EMBEDDINGS_VAR

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # xdist: the workers' common parent
    os.environ.setdefault(EMBEDDINGS_VAR, str(shared / "vectors"))


@pytest.fixture
def scripted_endpoint() -> Iterator[ScriptedEndpoint]:
    """A started fake OpenAI-compatible endpoint; script it with `.push(...)` (see llm/scripted.py)."""
    with ScriptedEndpoint() as endpoint:
        yield endpoint


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One Prefect server for every stage run of the session (an ephemeral one per process costs ~15 s each)."""
    from flows.runtime.prefect_server import prefect_server as server

    with server(tmp_path_factory.mktemp("prefect")) as url:
        yield url


@pytest.fixture
def inproc_prefect(prefect_server: str) -> Iterator[str]:
    """Point flows run inside the test process at the session's Prefect server."""
    from prefect.settings import PREFECT_API_URL, PREFECT_LOGGING_TO_API_ENABLED, temporary_settings

    # No log shipping: its exit-time flush would find the session's server already gone.
    with temporary_settings(updates={PREFECT_API_URL: prefect_server, PREFECT_LOGGING_TO_API_ENABLED: False}):
        yield prefect_server


# `make test` runs the suite on one worker more than the cores (pytest-xdist, --dist loadscope): a module's tests
# share its fixtures (a pipeline copy, a server, worlds) and may rely on their order, so each module runs whole on one
# worker. The longest modules go first, so that no worker starts one at the end.
FIRST = ("tests/pipeline/test_versions_travel.py", "tests/pipeline/test_dvc_pipeline.py",
         "tests/household/expert/test_cost_to_go.py")


def _rank(item: pytest.Item) -> int:
    try:
        module = item.path.relative_to(ROOT).as_posix()
    except ValueError:  # a test file outside the checkout (a test's own inner pytest run)
        return len(FIRST)
    return FIRST.index(module) if module in FIRST else len(FIRST)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: a module's tests keep their order
