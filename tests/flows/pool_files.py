"""A small gt and hindsight pool written as the pool stages write them (records, manifests with the models that wrote
them), and probe picks: what `hindsight pools export` reads, made without the world or an LLM."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from pools.jsonl import write_jsonl
from pools.manifest import build_manifest
from pools.records import Correction, CriticSample, ProbePick, Sample
from pools.versions import PROBE_PICKS, pool_paths

ROOT = Path(__file__).resolve().parents[2]
ARGS = {"object_target": "Apple", "parent_target": "Fridge", "mrecep_target": "", "toggle_target": "",
        "object_state": "cool", "object_sliced": False, "two_objects": False}
TYPE = "pick_cool_then_place_in_recep"
PLAN = ["Navigation Apple", "PickupObject Apple", "Navigation Fridge", "OpenObject Fridge", "PutObject Apple Fridge",
        "CloseObject Fridge", "Stop"]
QWEN = {"model": "qwen2.5-coder-1.5b", "endpoint": "embedded", "id": "embedded:qwen2.5-coder-1.5b@sha256:cc324af070c2"}
# The roles of a hindsight pool's manifest: the practice planner's and the relabeling ones.
ROLES = ("actor_gt", "adapter", "complete", "critic_sample", "reflect")


def gt_records(n: int = 2) -> list[dict[str, Any]]:
    """n expert samples of distinct tasks and a critic sample of the first one's half plan."""
    samples = [Sample.new(kind="gt", task_id=f"trial_gt{i}", task_type=TYPE, instruction=f"Put a cold apple away {i}.",
                          args=ARGS, steps=PLAN, verified=True, source="expert") for i in range(n)]
    critic = CriticSample.new(task_id="trial_gt0", task_type=TYPE, instruction=samples[0].instruction,
                              steps=PLAN[:3], value_num=0, value_den=3, verified=True, source="expert")
    return [s.model_dump() for s in (*samples, critic)]


def hindsight_records() -> list[dict[str, Any]]:
    """A hindsight sample whose plan recovers from a failed step, and a critic sample of the same practice run."""
    steps = ["Navigation Fridge", "PickupObject Apple", *PLAN]
    reasons = ["", "Apple not found"] + [""] * len(PLAN)
    sample = Sample.new(kind="hindsight", task_id="trial_hs", task_type=TYPE, instruction="Cool an apple.", args=ARGS,
                        steps=steps, verified=True, source="ro-1", reasons=reasons)
    critic = CriticSample.new(task_id="trial_hs", task_type=TYPE, instruction="Cool an apple.", steps=steps[:2],
                              value_num=0, value_den=3, verified=True, source="ro-1")
    return [sample.model_dump(), critic.model_dump()]


def correction_record() -> dict[str, Any]:
    """The expert's correction of the practice run after its refused pickup: it walks to the apple."""
    return Correction.new(task_id="trial_hs", task_type=TYPE, instruction="Cool an apple.", args=ARGS, source="ro-1",
                          steps=["Navigation Fridge", "PickupObject Apple"], reasons=["", "Apple not found"],
                          label="refused", d=6, optimal=["Navigation Apple"], shown="Navigation Apple",
                          shown_by="task", robot_next="OpenObject Fridge").model_dump()


def write_pools(repo: Path, gt: list[dict[str, Any]], hindsight: list[dict[str, Any]],
                params: dict[str, Any] | None = None, model: dict[str, str] = QWEN) -> None:
    """Both pools and their manifests, as stages gt_pool and pool write them (`model`: of every LLM role)."""
    pool_params = {"relabel": {"keep_unverified": False, "pool_clean": True},
                   "practice": {"rollouts": 1, "by_planner": {"none": {"rollouts": 1, "succeeded": 0}}},
                   "material": {"recovery": 1, "clean": 0}}
    for pool, records, used, models in (("gt", gt, params or {"pools": {"gt_per_type": 2}}, None),
                                        ("hindsight", hindsight, pool_params, {r: model for r in ROLES})):
        data, manifest = pool_paths(pool)
        rows = sorted(records, key=lambda r: r["id"])
        write_jsonl(repo / data, rows, "sample")
        (repo / manifest).write_text(json.dumps(build_manifest(pool, rows, "sample", used, models)))


def write_picks(repo: Path) -> None:
    """Two configurations' picks at two states of one task."""
    picks = [ProbePick.new(state_id=f"st{i}", config=c, task_id="trial_p", task_type=TYPE, kind="recovery",
                           pick="Navigation Fridge", optimal=bool(i), progress=i, regret=1 - i, chance=0.5).model_dump()
             for c in ("actor_gt", "actor_hind") for i in range(2)]
    write_jsonl(repo / PROBE_PICKS, picks, "probe_pick")


def copy_prompts(repo: Path) -> None:
    """The prompt templates, as a commit of the project holds them."""
    (repo / "planner" / "prompts").mkdir(parents=True, exist_ok=True)
    for template in (ROOT / "planner" / "prompts").glob("*.txt"):
        shutil.copy2(template, repo / "planner" / "prompts" / template.name)
