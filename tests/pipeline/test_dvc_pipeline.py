"""The whole pipeline through real `dvc repro` and real Prefect on a tiny profile (scripted LLM endpoint).

One copy of the project per module: the first test reproduces it, the others change it and put it back
(test_versions_travel.py has a copy of its own, so that it runs on another worker).
What reruns is read from `dvc repro`'s own output ("Running stage 'x'") or from `dvc status --json` (the stages
whose declared code, data or params changed: what the next `dvc repro` runs first).
"""
from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from planner.variants import PRESETS
from pools.jsonl import read_json, read_jsonl
from tests.pipeline.conftest import FAIL_TYPE, TASK_TYPES, VERIFY_TYPE

pytestmark = pytest.mark.slow

OUTPUTS = {
    "data/tasks.jsonl": "task",
    "data/pools/gt.jsonl": "sample",
    "data/relabel/rollouts.jsonl": "rollout",
    "data/relabel/reflections.jsonl": "reflection",
    "data/relabel/completions.jsonl": "completion",
    "data/relabel/critic_samples.jsonl": "critic_sample",
    "data/pools/hindsight.jsonl": "sample",
    "data/eval/hindsight.jsonl": "rollout",
    "data/eval/llm_planner.jsonl": "rollout",
    "data/eval/expert.jsonl": "rollout",
}
EVAL = {"evaluate@hindsight", "evaluate@llm_planner", "evaluate@expert"}
READS_HINDSIGHT = {"evaluate@hindsight"}  # the variants whose `pool` is hindsight (llm_planner, expert: gt)
RESULTS = {"compare@0", "report"}                                # read the evaluations (compare: hindsight vs llm_planner)
PROBE = {"probe_reference", "probe_set", "probe"}                # what a pool is worth at decisions
POOLS = {"tasks", "gt_pool", "collect", "reflect", "complete", "critic", "corrections", "pool",  # to the hindsight pool
         "pool_corrections"}  # and to the same pool with the corrections (the probe's pick)
ALL = POOLS | EVAL | RESULTS | PROBE | {"export"}
MANIFESTS = {"pool", "pool_corrections"}  # the hindsight pools: the stages that write their manifests
# every stage that steps the world (pool: its samples replayed for the pool's quality)
WORLD = {"gt_pool", "collect", "complete", "critic", "corrections", "pool", "pool_corrections"} | EVAL | PROBE
LLM = {"collect", "reflect", "complete", "critic"} | EVAL | {"probe_reference", "probe"}  # every stage that calls the LLM
RELABEL_PROMPTS = {"reflect", "complete", "critic"}              # the relabeling calls

# What each parameter changes: the stages that read it (the next `dvc repro` starts with exactly these).
# Every key of params.yaml must be here: a new key needs a line saying which stages read it.
SECTION_PLANNER = {"collect", "probe_reference", "probe"} | EVAL | {"report"}  # the stages declaring `planner`
RERUNS: dict[str, set[str]] = {
    "data.dir": {"tasks"},  # the folder of ${data.dir}/... deps: DVC hashes the data there
    "world.seed": {"tasks"} | WORLD,
    "world.max_fails": WORLD,
    "world.max_steps": WORLD,
    "world.explore_budget": WORLD,
    "world.backend": WORLD | {"report"},  # the report shows the published rows beside an ALFWorld run
    "world.alfworld_games": WORLD,
    "llm.endpoint": LLM | MANIFESTS | {"report"},   # a pool records the model that made it in its manifest
    "llm.model": LLM | MANIFESTS | {"report"},
    "llm.roles": LLM | MANIFESTS | {"report"},
    "tasks.splits": {"tasks"},
    "tasks.task_types": {"tasks"},
    "pools.gt_split": {"gt_pool"},
    "pools.gt_per_type": {"gt_pool"},
    "collect.variant": {"collect"},
    "collect.per_type": {"collect"},
    "collect.max_subgoals": {"collect"},
    "relabel.think_tokens": {"reflect"},
    "relabel.complete_steps": {"complete"},
    "relabel.complete_tokens": {"complete"},
    "relabel.repair_rounds": {"complete"},
    "relabel.repair_temperature": {"complete"},
    "relabel.completion": {"complete"},
    "relabel.complete_classes": {"complete"},
    "relabel.complete_guide": {"complete"},
    "relabel.critic_examples": {"critic"},
    "relabel.critic_outcome": {"critic"},
    "planner.critic_tokens": SECTION_PLANNER | {"critic"},  # the critic-sample answer's cap too
    "relabel.keep_unverified": MANIFESTS,
    "relabel.pool_clean": MANIFESTS,
    "relabel.corrections": {"pool"},  # pool_corrections pools them always
    "relabel.completer": {"complete"} | MANIFESTS,  # recorded in the manifest when not the paper's
    "relabel.trim_loops": {"complete"},
    "relabel.show_expert": RELABEL_PROMPTS,
    "relabel.collapse_repeats": RELABEL_PROMPTS,
    "evaluate.variants": {"evaluate@no_hindsight", "report"},  # a variant added: only its evaluation runs
    "evaluate.task_set": EVAL | {"report"},
    "evaluate.splits": EVAL | {"report"},
    "evaluate.per_type": EVAL | {"report"},
    "evaluate.max_tasks": EVAL | {"report"},
    "evaluate.alfworld_per_type": EVAL | {"report"},
    "evaluate.world": EVAL | {"report"},
    "evaluate.compare": {"compare@1", "report"},  # a pair added: only its comparison runs
    "evaluate.bootstrap": RESULTS | {"probe", "export"},  # export: the probe figures' intervals in the card
    "evaluate.bootstrap_seed": RESULTS | {"probe", "export"},
    "probe.split": {"probe_reference", "probe_set"},
    "probe.per_type": {"probe_reference", "probe_set"},
    "probe.seed": {"probe_reference", "probe_set"},
    "probe.reference_tasks": {"probe_reference"},
    "probe.reference_max_subgoals": {"probe_reference"},
    "probe.states_per_task": {"probe_set"},
    "probe.on_policy_per_task": {"probe_set"},
    "probe.configs": {"probe"},
    "probe.full_step_states": {"probe"},
    "pipeline.on_bad_record": ALL - {"tasks", "report", "export"},  # every stage that reads a pipeline file (export:
                                                                   # the pools as `pools diff` reads them, strictly)
    "pipeline.max_failure_share": LLM | {"probe_set", "corrections"},
    # How items run (one at a time, threads, Dask): the output is the same whatever runs them, so no stage reads it.
    "pipeline.workers": set(),
    "pipeline.task_runner": set(),
    "pipeline.dask_address": set(),
}
SECTION_RERUNS = {  # every other key of these sections is read by every stage that declares the whole section
    "world": WORLD,
    "tasks": {"tasks"},
    "pools": {"gt_pool"},
    "collect": {"collect"},
    "llm": LLM | {"report"},
    "retrieval": {"collect", "complete", "probe_reference", "probe"} | EVAL | {"report"},
    "planner": SECTION_PLANNER,
}
# One code file per stage (its flow), and shared code: every stage that imports it.
CODE_RERUNS: dict[str, set[str]] = {
    "flows/stages/tasks.py": {"tasks"},
    "flows/stages/gt_pool.py": {"gt_pool"},
    "flows/stages/collect.py": {"collect"},
    "flows/stages/reflect.py": {"reflect"},
    "flows/stages/complete.py": {"complete"},
    "flows/stages/critic.py": {"critic"},
    "flows/stages/corrections.py": {"corrections"},
    "flows/stages/pool.py": {"pool"},
    "flows/stages/pooling.py": MANIFESTS,
    "flows/stages/pool_corrections.py": {"pool_corrections"},
    "flows/stages/evaluate.py": EVAL,
    "flows/stages/alfworld_games.py": {"collect", "report"} | EVAL,  # the ALFWorld backend's practice tasks and games
    "flows/stages/compare.py": RESULTS | {"export"},  # export: its bootstrap params
    "flows/stages/report.py": {"report"},
    "flows/stages/report_html.py": {"report"},
    "household/expert/env.py": ALL - {"compare@0"},
    "planner/relabel/stages.py": ALL - {"tasks"} - RESULTS,
    "pools/jsonl.py": ALL,
    # Every stage is a declaration (flows/runtime/declare.py) run by the stage engine, items or not.
    "flows/runtime/declare.py": ALL,
    "flows/runtime/stage.py": ALL,
    "flows/runtime/execution.py": ALL,
    # The LLM stages declare the stage engine whole (flows/runtime: the `hindsight stage` process runs all of it);
    # the others name the files they import, which are neither of these two.
    "flows/runtime/items.py": LLM,
    "flows/runtime/llm_stage.py": LLM,
    "flows/stages/export.py": {"export"},
}


def ran_stages(output: str) -> set[str]:
    """Stages `dvc repro` ran, from its own output."""
    return set(re.findall(r"Running stage '([^']+)'", output))


def skipped_stages(output: str) -> set[str]:
    """Stages `dvc repro` found unchanged."""
    return set(re.findall(r"Stage '([^']+)' didn't change, skipping", output))


def changed_stages(project: Any) -> set[str]:
    """Stages whose declared code, data or params changed since the last run (`dvc status --json`)."""
    out = project.run("dvc", "status", "--json").stdout
    return set(json.loads(out[out.index("{"):]))


_PARSED: dict[tuple[str, str], Any] = {}  # (YAML text, path) -> what DVC's parser made of it


def status_in_process(project: Any) -> set[str]:
    """The same as `changed_stages` (DVC's own status, what `dvc status --json` prints), without a process start.

    DVC's YAML parse runs once per text: a status reads params.yaml again for every stage (3/4 of its time), and a
    parse is a pure function of the text, so a copy of the first one is what DVC would get."""
    import dvc.utils.serialize as serialize
    from dvc.repo import Repo
    from dvc.utils import strictyaml
    from dvc.utils.serialize import _yaml

    parse = _yaml.parse_yaml

    def once(text: str, path: Any, typ: str = "safe") -> Any:
        if typ != "safe":
            return parse(text, path, typ)
        if (text, str(path)) not in _PARSED:
            _PARSED[text, str(path)] = parse(text, path, typ)
        return copy.deepcopy(_PARSED[text, str(path)])

    with pytest.MonkeyPatch.context() as patch:
        for module in (_yaml, serialize, strictyaml):  # each holds its own name for the parser
            patch.setattr(module, "parse_yaml", once)
        with Repo(str(project.path)) as repo:
            # Stage names are addressed relative to the working directory ('../proj/dvc.yaml:tasks'): keep the name.
            return {name.rsplit(":", 1)[-1] for name in repo.status()}


def keys_to_change(params: dict[str, Any]) -> list[str]:
    """Every key that RERUNS names or no section default covers, and one more key of each section."""
    keys = []
    for section, values in params.items():
        covered = False  # a key of the section that only the section default covers has been picked
        for name in values:
            key = f"{section}.{name}"
            if key in RERUNS or section not in SECTION_RERUNS:
                keys.append(key)
            elif not covered:
                keys.append(key)
                covered = True
    return keys


def mutate(key: str, value: Any) -> Any:
    """A different value of the same kind (the stages never run with it: only `dvc status` reads it)."""
    if key == "evaluate.variants":
        return {**value, "no_hindsight": PRESETS["no_hindsight"]}
    if key == "evaluate.compare":
        return [*value, {"a": "expert", "b": "llm_planner"}]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value / 2 if value else 0.25
    if value is None:
        return 1
    if isinstance(value, str):
        return value + "-changed"
    if isinstance(value, list):
        return value[:-1] if len(value) > 1 else [*value, "changed"]
    if isinstance(value, dict):
        return {**value, "changed": {"model": "changed"}}
    raise TypeError(f"{key}: no mutation for {type(value).__name__}")


def expected_reruns(key: str) -> set[str] | None:
    """The stages a change of `key` must rerun (RERUNS, else its section's readers); None: nobody said."""
    return RERUNS[key] if key in RERUNS else SECTION_RERUNS.get(key.split(".")[0])


def test_repro_runs_every_stage_and_pools_only_what_verifies(module_project) -> None:
    first = module_project.run("dvc", "repro")
    assert ran_stages(first.stdout) == ALL, first.stdout[-3000:]
    for rel, schema in OUTPUTS.items():
        assert read_jsonl(module_project.path / rel, schema).records, rel
    # the scripted practice runs may hold no step that fails to lower the cost-to-go: the file may be empty
    read_jsonl(module_project.path / "data/relabel/corrections.jsonl", "correction")
    gt = read_json(module_project.path / "data/pools/gt.manifest.json", "manifest")
    assert set(gt["by_task_type"]) == set(TASK_TYPES)
    assert gt["records"] > 0

    # One practice task per type; the scripted endpoint completes one with its expert plan, the other without
    # the step that reaches the goal (see conftest). Only the one that reaches the goal on replay is pooled.
    rollouts = read_jsonl(module_project.path / "data/relabel/rollouts.jsonl", "rollout").records
    practice = {r["task_type"]: r["task_id"] for r in rollouts}
    assert set(practice) == {VERIFY_TYPE, FAIL_TYPE} and len(rollouts) == 2
    good, bad = practice[VERIFY_TYPE], practice[FAIL_TYPE]
    completions = read_jsonl(module_project.path / "data/relabel/completions.jsonl", "completion").records
    assert {c["task_id"]: c["verified"] for c in completions} == {good: True, bad: False}
    assert {c["task_id"]: c["sample"]["verified"] for c in completions} == {good: True, bad: False}
    critics = read_jsonl(module_project.path / "data/relabel/critic_samples.jsonl", "critic_sample").records
    assert {c["task_id"]: c["verified"] for c in critics} == {good: True, bad: False}
    pooled = read_jsonl(module_project.path / "data/pools/hindsight.jsonl", "sample").records
    assert sorted((r["kind"], r["task_id"]) for r in pooled) == [("critic", good), ("hindsight", good)]
    assert all(r["verified"] for r in pooled)
    hs_manifest = read_json(module_project.path / "data/pools/hindsight.manifest.json", "manifest")
    assert hs_manifest["records"] == 2 and hs_manifest["verified_share"] == 1.0
    # The endpoint was asked to complete and value both practice tasks (the failing one maybe more than once:
    # repair rounds), and the verified one was done in its first round (one stepwise pick per step added).
    calls = module_project.script.calls
    done = next(c for c in completions if c["task_id"] == good)
    assert len(done["rounds"]) == 1 and calls[("complete", VERIFY_TYPE)] == len(done["rounds"][0]["added"]), \
        (dict(calls), done["rounds"])
    assert calls[("complete", FAIL_TYPE)] >= 1 and calls[("critic_sample", FAIL_TYPE)] == 1, dict(calls)
    assert calls[("?", "")] == 0, f"prompts no template matched: {dict(calls)}"

    # Headline metrics: one small file per variant and split; the rest in details/eval/<variant>.json.
    expert = read_json(module_project.path / "metrics/eval/expert/valid_seen.json", "eval_metrics")
    assert expert["sr"] == 1.0 and expert["gc"] == 1.0 and expert["episodes"] == 2
    hs = read_json(module_project.path / "metrics/eval/hindsight/valid_seen.json", "eval_metrics")
    assert hs["calls/subgoal"] > 0 and hs["episodes"] == 2
    details = read_json(module_project.path / "details/eval/hindsight.json", "eval_details")
    assert set(details["by_split"]["valid_seen"]["by_type"]) == set(TASK_TYPES)
    compared = read_json(module_project.path / "metrics/compare/hindsight_vs_llm_planner.json", "compare")
    assert compared["tasks"] == 2 and set(compared["all"]["table"]) == {"both", "only_a", "only_b", "neither"}
    page = (module_project.path / "report/index.html").read_text(encoding="utf-8")
    assert 'id="variants-table"' in page and 'id="sr-by-type"' in page and page.count('class="episode"') == 6

    # The probe: states of both kinds, every configuration's picks and figures, Actor_hind vs Actor_gt paired.
    states = read_jsonl(module_project.path / "data/probe/states.jsonl", "probe_state").records
    assert {s["kind"] for s in states} == {"recovery", "on_policy"} and all(len(s["legal"]) >= 2 for s in states)
    for config in ("actor_gt", "actor_hind", "random", "follow_empty", "follow_gt", "follow_hind", "follow_corr",
                   "follow_empty_true", "follow_gt_true", "follow_hind_true", "follow_corr_true"):
        figures = read_json(module_project.path / f"metrics/probe/{config}.json", "probe_metrics")
        assert figures["states"] == len(states) and 0 <= figures["optimal"] <= 1, figures
    read_json(module_project.path / "metrics/probe/actor_hind_vs_actor_gt.json", "probe_compare")
    read_json(module_project.path / "metrics/probe/follow_corr_vs_follow_gt.json", "probe_compare")
    # The follower says how it reached each pick; with no pool, always by its fallback.
    picks = read_jsonl(module_project.path / "data/probe/picks.jsonl", "probe_pick").records
    assert {p["how"] for p in picks if p["config"].startswith("follow_empty")} == {"fallback"}
    assert {p["how"] for p in picks if p["config"].startswith("follow_gt")} <= {"exact", "nearest", "fallback"}
    assert {p["how"] for p in picks if p["config"].startswith("follow_gt")} & {"exact", "nearest"}
    assert {p["how"] for p in picks if p["config"].startswith("actor_")} == {""}
    shown = module_project.run("hindsight", "compare", "--probe", "actor_hind", "actor_gt").stdout
    assert f"{len(states)} probe states both answered" in shown and "task-level sign-flip p" in shown, shown
    assert "state-level McNemar p" in shown, shown

    # DVC sees the metrics each evaluate stage wrote, with the values on disk; no stage bookkeeping among them
    # (details/stages/, `hindsight timing`).
    shown = json.loads(module_project.run("dvc", "metrics", "show", "--json").stdout)
    files = next(iter(shown.values()))["data"]
    assert {f"metrics/eval/{v}/valid_seen.json" for v in ("hindsight", "llm_planner", "expert")} <= set(files)
    assert not [f for f in files if f.startswith("metrics/stages/")], files
    assert files["metrics/eval/expert/valid_seen.json"]["data"]["sr"] == 1.0
    assert files["metrics/eval/hindsight/valid_seen.json"]["data"] == hs
    timing = json.loads(module_project.run("hindsight", "timing", "--json").stdout)
    assert timing["stages"]["pool"]["items"] == timing["stages"]["pool"]["ok"] > 0, timing
    # Headline numbers only: a short, fixed set of keys shared across files, whatever the run. The probe's headline,
    # a row per file: each configuration's optimal rate (random's with its exact one), each pair's difference with
    # its task-level p, so that `dvc exp show` sets pool versions side by side.
    keys = {k for f in files.values() for k in f["data"]}
    assert keys == {"episodes", "sr", "gc", "plw_sr", "plw_gc", "calls/subgoal", "llm_decided", "progress",
                    "optimal", "chance", "diff", "p"}, keys
    # Each pool's quality: its own kind's share of progress steps, the headline of the manifest's labels.
    for name in ("gt", "hindsight"):
        man = read_json(module_project.path / f"data/pools/{name}.manifest.json", "manifest")
        q = man["quality"][name]
        assert files[f"metrics/pools/{name}.json"]["data"] == {"progress": q["progress"]}
        assert q["samples"] == man["by_kind"].get(name, 0) and set(q["by_sample"]) == \
            {r["id"] for r in read_jsonl(module_project.path / f"data/pools/{name}.jsonl", "sample").records
             if r["kind"] == name}
    assert files["metrics/pools/gt.json"]["data"]["progress"] > 0.5  # the expert's plans: mostly shortest steps
    for config in ("actor_gt", "actor_hind", "random", "follow_gt", "follow_hind", "follow_corr"):
        figures = read_json(module_project.path / f"metrics/probe/{config}.json", "probe_metrics")
        row = files[f"metrics/picks/{config}.json"]["data"]
        assert row == {"optimal": figures["optimal"], **({"chance": figures["chance"]} if config == "random" else {})}
    for a, b in (("actor_hind", "actor_gt"), ("follow_corr", "follow_gt"), ("follow_hind", "follow_gt")):
        pair = read_json(module_project.path / f"metrics/probe/{a}_vs_{b}.json", "probe_compare")
        assert files[f"metrics/picks/{a}_vs_{b}.json"]["data"] == {"diff": pair["optimal_diff"], "p": pair["p"]}
    dropped = read_json(module_project.path / "data/probe/dropped.json", "probe_dropped")
    assert set(dropped) == {"recovery", "on_policy"}
    assert set(dropped["recovery"]) == {"ended", "one_option", "no_better"}
    table = module_project.run("dvc", "metrics", "show").stdout
    # The shared keys' 12 columns and the longest metric path (a variant's split file).
    assert max(len(line) for line in table.splitlines()) <= 200, table
    # The export: both pools as a dataset, a row per sample in the actor and critic views.
    card = (module_project.path / "data/export/README.md").read_text(encoding="utf-8")
    assert f"`hindsight` pool: {hs_manifest['records']} records" in card
    assert f"`gt` pool: {gt['records']} records" in card
    import polars as pl

    exported = sum(pl.read_parquet(module_project.path / f"data/export/{v}/train.parquet").height
                   for v in ("actor", "critic"))
    assert exported == gt["records"] + hs_manifest["records"]
    # The plot files still render (dvc plots show / diff against the committed state).
    module_project.run("dvc", "plots", "show", "--json")
    module_project.run("dvc", "plots", "diff", "HEAD", "--json")


def test_noop_repro_runs_no_stage(module_project) -> None:
    again = module_project.run("dvc", "repro")
    assert ran_stages(again.stdout) == set(), again.stdout[-3000:]
    assert skipped_stages(again.stdout) == ALL, again.stdout[-3000:]
    assert changed_stages(module_project) == set()


def test_each_param_and_stage_code_reruns_exactly_the_stages_that_read_it(module_project) -> None:
    assert changed_stages(module_project) == set() == status_in_process(module_project)
    original = (module_project.path / "params.yaml").read_text()
    params = module_project.params()
    keys = keys_to_change(params)
    assert {k.split(".")[0] for k in keys} >= {"world", "llm", "retrieval", "planner", "tasks", "pools", "collect",
                                               "relabel", "evaluate", "pipeline"}
    wrong = {}

    def check(what: str, got: set[str], want: set[str] | None) -> None:
        if got != want:
            wrong[what] = ("not in RERUNS: add it with the stages that read it" if want is None else
                           f"also reran {sorted(got - want)}, missed {sorted(want - got)}")

    for i, key in enumerate(keys):
        section, name = key.split(".")
        module_project.set_param(key, mutate(key, params[section][name]))
        try:
            # The CLI's JSON once (the in-process status must agree), then in process: ~1 s less per check.
            got = changed_stages(module_project) if i == 0 else status_in_process(module_project)
            assert i or got == status_in_process(module_project)
        finally:
            (module_project.path / "params.yaml").write_text(original)
        check(key, got, expected_reruns(key))
    # One variant's definition changed: only its evaluation (and the report, which reads the evaluate section).
    module_project.set_param("evaluate.variants.llm_planner.planner", {"scaffold": "full"})
    try:
        check("evaluate.variants.llm_planner", status_in_process(module_project), {"evaluate@llm_planner", "report"})
    finally:
        (module_project.path / "params.yaml").write_text(original)
    for rel, stages in CODE_RERUNS.items():
        file = module_project.path / rel
        before = file.read_bytes()
        file.write_bytes(before + b"\n# a change\n")
        try:
            got = status_in_process(module_project)
        finally:
            file.write_bytes(before)
        check(rel, got, stages)
    assert not wrong, "\n".join(f"{k}: {v}" for k, v in wrong.items())
    assert changed_stages(module_project) == set()


def test_exp_show_only_changed_lists_what_changed_not_the_clock(module_project) -> None:
    # Measured seconds are not DVC metrics (they differ on every run), so the experiment shows what was set
    # and what it changed, never a clock; `hindsight timing` still has the seconds. (One more sub-goal may change
    # the episodes, hence calls/subgoal and the outputs' hashes: those columns are dropped for the width check.)
    # Last in the module: the experiment leaves its params in the workspace.
    module_project.run("git", "add", "-A")
    module_project.run("git", "commit", "-qm", "baseline")
    module_project.run("dvc", "exp", "run", "-n", "longer", "-S", "planner.max_subgoals=7", timeout=1800)
    # Markdown: every column at full width (the terminal table would squeeze them into the screen with '…'). The data
    # read in place (${data.dir}/...) is dropped too: DVC names an absolute dep outside the workspace
    # differently in the workspace and in a commit.
    table = module_project.run("dvc", "exp", "show", "--only-changed", "--md", "--drop",
                               "^(data|details)/|.*(alfred_compact|ontology|floorplans).*").stdout
    lines = [line for line in table.splitlines() if line.strip()]
    headers = [h.strip() for h in lines[0].strip("|").split("|")]
    assert "planner.max_subgoals" in headers and "longer" in table, table
    assert not re.search(r"seconds|\bs/subgoal", table), table  # calls/subgoal is a count, not a clock
    assert max(len(line) for line in lines) <= 160, table
    print(f"\ndvc exp show --only-changed --md ({max(len(line) for line in lines)} columns):\n{table}")
    # The probe's headline (metrics/picks/, a row per file) sets the pool versions of the workspace and the
    # experiment side by side: DVC names a column <file>:<key> where files share the key, and keeps a name by its start.
    probe = module_project.run("dvc", "exp", "show", "--md", "--drop", ".*", "--keep",
                               "Experiment|metrics/picks/").stdout
    header = probe.splitlines()[0]
    assert all(f"metrics/picks/{k}" in header for k in ("actor_gt.json:optimal", "actor_hind.json:optimal",
                                                          "random.json:optimal", "follow_corr_vs_follow_gt.json:diff",
                                                          "actor_hind_vs_actor_gt.json:p")), probe
    assert "longer" in probe, probe
    print(module_project.run("dvc", "metrics", "show").stdout)
    timing = json.loads(module_project.run("hindsight", "timing", "--json").stdout)
    assert timing["stages"]["collect"]["seconds"] > 0 and timing["variants"]["hindsight"]["timed"] == 2
