"""Reliability suite: shared Prefect server, in-process flow settings, the fault table, and the slow gate."""
from __future__ import annotations

import os
import pytest

from tests.pipeline.conftest import project  # noqa: F401 - the same git+DVC project copy as the pipeline tests
from testing.harness import TABLE

SLOW_ENV = "RELIABILITY_SLOW"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep `make test` fast: slow reliability tests run only with -m slow or RELIABILITY_SLOW=1."""
    wanted = "slow" in (config.getoption("markexpr") or "") or os.environ.get(SLOW_ENV) == "1"
    if wanted:
        return
    skip = pytest.mark.skip(reason=f"slow reliability test: run with -m slow or {SLOW_ENV}=1")
    for item in items:
        if "tests/reliability/" in str(item.path).replace(os.sep, "/") and item.get_closest_marker("slow"):
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    """Print the fault table measured by this session's reliability tests."""
    if TABLE.rows:
        terminalreporter.write_sep("=", "reliability fault table")
        for line in TABLE.render().splitlines():
            terminalreporter.write_line(line)
