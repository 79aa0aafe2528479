"""One Prefect flow per DVC stage. Each module's `main(item, on_bad_record)` is what `hindsight stage NAME` runs."""
from __future__ import annotations

# DVC stage name -> module in this package. A module is named for what its stage makes where the stage's own
# name would repeat another package's module for something else (household.world.tasks, planner.search.critic,
# pools.analysis.compare).
MODULES: dict[str, str] = {
    "tasks": "task_list",
    "gt_pool": "gt_pool",
    "collect": "collect",
    "reflect": "reflect",
    "complete": "complete",
    "critic": "critic_samples",
    "corrections": "corrections",
    "pool": "hindsight_pool",
    "pool_corrections": "corrections_pool",
    "evaluate": "evaluate",
    "compare": "comparisons",
    "probe_reference": "probe_reference",
    "probe_set": "probe_set",
    "probe": "probe",
    "report": "report",
    "export": "export",
}


def module_name(stage: str) -> str:
    """The dotted module that runs a DVC stage."""
    return f"{__name__}.{MODULES[stage]}"
