"""Prefect flows (one per DVC stage) and the `hindsight` command line."""
from flows.runtime.workspace import configure as _configure

# Must run before any Prefect import so its home and telemetry settings apply.
_configure()
