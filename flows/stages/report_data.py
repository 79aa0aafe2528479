"""What the report shows, as records: gathered by flows/stages/report.py, rendered by flows/stages/report_html.py
(both import it; neither imports the other's module for its types)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class VariantView:
    """One evaluated variant: its episodes and their rates (overall and per split) with 95% intervals."""

    name: str
    rollouts: list[dict[str, Any]]
    rates: dict[str, dict[str, Any]]  # 'all' and each split -> alfred_rates + cost + speed + ci
    by_type: dict[str, dict[str, Any]]  # task type -> alfred_rates (all splits together)
    planner: str = ""  # the planner its episodes ran: 'paper' (scaffold none), 'scaffold' (full), 'expert'


@dataclass
class ReportData:
    """Everything the page shows."""

    splits: list[str]
    variants: list[VariantView]
    comparisons: list[dict[str, Any]]
    pools: list[dict[str, Any]]  # manifests
    truth: dict[str, dict[str, Any]]  # task id -> the seven true arguments
    settings: dict[str, Any]  # what produced the run (models per role, planner and evaluation settings)
    bootstrap: dict[str, int]
    notes: list[str] = field(default_factory=list)  # what is missing and why
    task_set: str = ""  # the evaluated tasks: which set (evaluate.task_set) of which splits
    probe: list[dict[str, Any]] = field(default_factory=list)  # metrics/probe/<config>.json
    probe_pairs: list[dict[str, Any]] = field(default_factory=list)  # metrics/probe/<a>_vs_<b>.json
    curve: dict[str, Any] | None = None  # the newest kept bench_pool_curve output (benchmarks/results/curve-*.json)
    ladder: dict[str, Any] | None = None  # the newest kept bench_ladder output (benchmarks/results/ladder-*.json)
    # On ALFWorld's games (world.backend: alfworld): the published rows (household.alfworld.published) ours sit beside
    published: list[dict[str, Any]] = field(default_factory=list)
