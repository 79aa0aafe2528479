"""README's Results table: one row of headline figures per measurement, read from the kept files HEADLINES names
(their commits stay in docs/results.md).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.earlier import EARLIER
from benchmarks.kept import (HELD_OUT, KEPT, ROOT, kept_kind, kind_of, load_ledger, load_test_manifest, outcome_rows,
                             set_name)
from benchmarks.tables import by_agent, ci, optimal, pct, planner_name
from household.alfworld.published import REACT_AT_OUR_SIZE
from household.world.tasks import in_task_set
from planner.agents import AGENTS
from pools.analysis.probe_metrics import diff_text
from pools.analysis.stats import wilson


# README's Results: a table of headline figures between these markers, written with docs/results.md; commits stay
# in docs/results.md. Each row reads the kept files HEADLINES names: a newer measurement of the same thing replaces
# the name (tests/test_results_page.py fails while README's table differs from what they give).
README = ROOT / "README.md"


README_BEGIN, README_END = "<!-- results:begin -->", "<!-- results:end -->"


ALFWORLD_BENCH = "planner-alfworld-..-shared-alfworld-json_2.1.1-valid_unseen-alfworld-all"  # bench_planner --alfworld
HEADLINES = {
    "scaffold": "planner-valid_unseen-heldout-0e3cc98",
    "paper": "planner-valid_unseen-heldout-b08b86a",
    "big_pool": "planner-valid_unseen-heldout-8e967b8",
    "probe": "run-ee383ae",  # the default pipeline's probe (bench_probe at 3670b78 is superseded)
    "probe_dev": "probe-valid_unseen-dev-ee383ae",  # bench_probe on the dev set, where pool design tunes
    "ladder_test": "ladder-test-cd6ff5f",  # the whole ladder on the frozen test set
    "pick_episodes": "planner-valid_unseen-heldout-48fbc60",  # the ladder's dev pick in episodes
    "curve": "curve-paper-e8180de",
    "alfworld": "planner-alfworld-household-data-alfworld_samples-alfworld-all-3ec97e8",
    "household": "planner-alfworld-household-data-alfworld_samples-household-all-3ec97e8",
    "crosscheck": "crosscheck-3games-3ec97e8",
    "run": "run-2b227b4",
    "alfworld_games": "run-b368628",  # the agents on ALFWorld's unseen games (profiles/alfworld.yaml)
    "alfworld_games_134": "run-b368628-134",  # all 134 for ReAct and the best configuration on the 48
    "follow_test": "probe-test-1cdc90e",  # the follower (planner/follow) on the frozen test set
    "follow_episodes": "planner-valid_unseen-heldout-63a69f1",  # the follower as the planner's actor
    # ALFWorld's games under the text view against the scene's map, and the follower on the 134 (bench_planner)
    "alfworld_views": f"{ALFWORLD_BENCH}-2f2d4d3-views",
    "alfworld_follow": f"{ALFWORLD_BENCH}-2f2d4d3-follow",
    "alfworld_scaffold_text": f"{ALFWORLD_BENCH}-2f2d4d3-text134",
}


def _solved(q: dict[str, Any]) -> str:
    return f"{q['successes']}/{q['episodes']}"


def _pair_p(d: dict[str, Any], a: str, b: str) -> str:
    p = next(x for x in d["paired"] if set(x["names"]) == {a, b})
    return f"McNemar p = {p['mcnemar_p']:.2f}"


def _probe(d: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(each configuration's figures, Actor_hind against Actor_gt) of a kept bench_probe output or pipeline run."""
    if kind_of(d) == "run":
        return {k: v for k, v in d["probe"].items() if "_vs_" not in k}, d["probe"]["actor_hind_vs_actor_gt"]
    return d["configs"], next(p for p in d["paired"] if p.get("b") == "actor_gt")


def follow_rows(probe: dict[str, Any], episodes: dict[str, Any], paper: dict[str, Any], scaffold: dict[str, Any]
                ) -> list[tuple[str, str]]:
    """README's rows of the follower (an LLM-free reader of a pool): its optimal picks on the test set by pool beside
    the LLM readers' range there (the test ledger's ladder rows), and its episodes beside the paper's planner and the
    scaffold on the same tasks."""
    c = probe["configs"]
    llm = [r["optimal"] for r in (json.loads(x) for x in (KEPT / "test-ledger.jsonl").read_text().splitlines() if x)
           if r["bench"] == "bench_ladder"]

    def rate(name: str) -> str:
        return f"{c[name]['optimal']:.0%}"
    v = episodes["variants"]
    return [(f"What a pool is worth to a reader that follows it: the follower on the frozen test set "
             f"({probe['states']} states of {probe['tasks']} held-out tasks), optimal picks",
             f"true arguments: gt {rate('follow_gt_true')}, gt + hindsight {rate('follow_hind_true')}, + corrections "
             f"{rate('follow_corr_true')}, no pool {rate('follow_empty_true')}; the adapter's: gt {rate('follow_gt')}, "
             f"+ corrections {rate('follow_corr')} (the LLM readers there, every ladder run: {min(llm):.0%} to "
             f"{max(llm):.0%})"),
            (f"The follower as the planner's actor, {v['follow']['episodes']} held-out valid_unseen tasks",
             f"gt + hindsight {_solved(v['follow'])}, gt alone {_solved(v['follow_gt'])} (the paper's planner "
             f"{_solved(paper['variants']['hindsight'])}, the scaffold "
             f"{_solved(scaffold['variants']['scaffold_no_hindsight'])} on the same tasks)")]


def headline_rows(k: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """(what was measured, its headline figures), one per row of README's table."""
    sc, pa, big, pr, cu = (k[HEADLINES[n]] for n in ("scaffold", "paper", "big_pool", "probe", "curve"))
    first = sc["floors"]["first/full"]
    v = pa["variants"]
    cf, gt_pair = _probe(pr)
    dev = k[HEADLINES["probe_dev"]]
    dc, dev_pair = _probe(dev)
    where = "the default pipeline's probe" if kind_of(pr) == "run" else "bench_probe, the default pool"
    where = f"set *{set_name(pr)}*, {where}"
    points = sorted(cu["points"].items(), key=lambda kv: int(kv[0]))
    curve = ", ".join(f"{n} runs {pt['figures']['actor_hind']['optimal']:.0%}" for n, pt in points)
    tasks = f"{sc['tasks']} held-out {sc['split']} tasks"
    rows = [
        (f"The scaffold's rules alone (true arguments, first legal sub-goal, no LLM), {tasks}",
         f"{_solved(first)}, the rules leaving the LLM {first['llm_decided']:.0%} of sub-goals"),
        ("The scaffold with the LLM, the same tasks",
         f"{_solved(sc['variants']['scaffold_no_hindsight'])} without hindsight, "
         f"{_solved(sc['variants']['scaffold_hindsight'])} with it "
         f"({_pair_p(sc, 'scaffold_hindsight', 'scaffold_no_hindsight')})"),
        ("The paper's planner (the LLM chooses every sub-goal), the same tasks",
         f"{_solved(v['no_hindsight'])} without hindsight, {_solved(v['hindsight'])} with the default "
         f"{pa['hindsight_examples']}-sample pool ({_pair_p(pa, 'hindsight', 'no_hindsight')}); LLM-free floors "
         f"{_solved(sc['floors']['first/none'])} (first legal), {_solved(sc['floors']['random/none'])} (random)"),
        (f"The paper's planner at paper scale (profiles/paper.yaml), the same tasks: a "
         f"{big['hindsight_pools']['big']}-sample hindsight pool against none",
         f"{_solved(big['variants']['hindsight@big'])} with the pool, {_solved(big['variants']['hindsight@empty'])} "
         f"without ({_pair_p(big, 'hindsight@big', 'hindsight@empty')})"),
        (f"The probe: optimal picks at {gt_pair['states']} decision states of {gt_pair['tasks']} held-out probe "
         f"tasks ({where})",
         f"Actor_gt {optimal(cf['actor_gt'])}, Actor_hind {optimal(cf['actor_hind'])}, random "
         f"{optimal(cf['random'])} (exact {pct(cf['random'].get('chance'))}); Actor_hind - Actor_gt "
         f"{diff_text(gt_pair)}"),
        (f"The probe on set *dev* (where pool design tunes, not a held-out figure): {dev['states']} recovery "
         f"states of {dev['tasks']} dev tasks",
         f"Actor_gt {optimal(dc['actor_gt'])}, Actor_hind {optimal(dc['actor_hind'])}, Actor_hind emptied "
         f"{optimal(dc['actor_hind_empty'])}, random exact {pct(dc['random'].get('chance'))}; Actor_hind - "
         f"Actor_gt {diff_text(dev_pair)}"),
        ("The learning curve: Actor_hind's optimal picks after N practice runs of the paper's planner "
         "(profiles/paper.yaml; set *pipeline*; the probe's d before d walked as the robot does, not rerun)",
         f"{curve}; 35 runs against none {diff_text(cu['points']['35']['figures']['vs_0'])}"),
        ("What a sample holds: each change against its point's own pool (the same probe as the curve)",
         "; ".join(f"`{name.split('@')[0]}` at {var['runs']} runs {diff_text(var['figures']['actor_hind_vs_base'])}"
                   for name, var in (cu.get("variations") or {}).items())),
    ]
    rows += test_set_rows()
    rows.append(ladder_test_row(k[HEADLINES["ladder_test"]]))
    rows.append(pick_episodes_row(k[HEADLINES["pick_episodes"]]))
    rows += follow_rows(*(k[HEADLINES[n]] for n in ("follow_test", "follow_episodes", "paper", "scaffold")))
    rows += [alfworld_games_row(k[HEADLINES[n]]) for n in ("alfworld_games", "alfworld_games_134")]
    rows.append(alfworld_bench_row(k[HEADLINES["alfworld_views"]], "What the agent's actions read on ALFWorld's "
                                   "games: the text alone (`world.alfworld_view: text`, the protocol) or the scene's "
                                   "map as before (`scene`)"))
    rows.append(alfworld_bench_row(k[HEADLINES["alfworld_scaffold_text"]], "The scaffold on all of ALFWorld's "
                                   "games under the protocol (text view; gt 14, no hindsight pool)"))
    rows.append(alfworld_bench_row(k[HEADLINES["alfworld_follow"]], "The follower as the planner's only actor on "
                                   "ALFWorld's games (text view; gt 140, the default run's hindsight and corrections)"))
    alf, hh, cc = (k[HEADLINES[n]] for n in ("alfworld", "household", "crosscheck"))
    qa, qh, o = next(iter(alf["variants"].values())), next(iter(hh["variants"].values())), cc["observations"]
    rows.append((f"Our world against ALFWorld's engine, {cc['games']} ALFWorld sample games",
                 f"the default planner solves {_solved(qa)} there and {_solved(qh)} in ours (GC {qa['gc']:.2f} and "
                 f"{qh['gc']:.2f}); what the agent is shown agrees on {o['steps_agree']}/{o['steps']} expert steps "
                 f"and {o['wrong_agree']}/{o['wrong_steps']} seeded wrong ones"))
    run = k[HEADLINES["run"]]
    practice = run["pool"]["practice"]
    rows.append(("A cold `make run` from a fresh clone on 2 cores, setup included",
                 f"{run['wall_minutes']:.1f} min; its pool: {practice['rollouts']} practice runs, "
                 f"{sum(run['pool']['material'].values())} hindsight samples"))
    return rows + [r["headline"] for r in EARLIER if "headline" in r]


def pick_episodes_row(d: dict[str, Any]) -> tuple[str, str]:
    """README's row for the probe's pick in episodes: the pool with the expert's corrections against the same planner
    with no practice pool and with the default pool, on the same tasks."""
    v, n = d["variants"], d["hindsight_pools"]
    pick, empty, default = (f"hindsight@{k}" for k in ("corrections", "empty", "default"))
    return (f"The probe's pick in episodes (the dev set's pick: the expert's corrections pooled), the paper's planner "
            f"on {d['tasks']} held-out {d['split']} tasks: its pool ({n['corrections']} examples for Actor_hind), no "
            f"practice pool, the default pool ({n['default']})",
            f"{_solved(v[pick])} with corrections, {_solved(v[empty])} without a pool ({_pair_p(d, pick, empty)}), "
            f"{_solved(v[default])} with the default pool ({_pair_p(d, pick, default)}); GC {v[pick]['gc']:.2f}, "
            f"{v[empty]['gc']:.2f}, {v[default]['gc']:.2f}; the LLM decided {v[pick]['llm_decided']:.0%}, "
            f"{v[empty]['llm_decided']:.0%}, {v[default]['llm_decided']:.0%} of executed sub-goals")


def alfworld_games_row(d: dict[str, Any]) -> tuple[str, str]:
    """README's row for the agents on ALFWorld's unseen games: each agent's SR with its interval, beside the published
    ReAct row at a comparable size."""
    games, per = max(len(g) for g in d["games"].values()), d["evaluate"].get("alfworld_per_type")

    def held(name: str) -> str:
        rows = outcome_rows(d, name, HELD_OUT)
        won = sum(r["success"] for r in rows or [])
        return "" if not rows else f" (held out: {won}/{len(rows)}, {won / len(rows):.0%})"

    names = by_agent(d, d["details"])
    agents = "; ".join(f"{planner_name(d, name)} ({name}) {x['all']['sr']:.0%}{ci(x['all'].get('sr_ci'))}"
                       f"{held(name)}, {x['seconds_per_game']:.0f} s a game"
                       for name, x in ((n, d["details"][n]) for n in names))
    if not any(kept_kind(d, n) == "react_published" for n in names):
        agents += f"; {AGENTS['react_published']}: not played on these games"
    published = REACT_AT_OUR_SIZE.sr
    chosen = f"{per} per type, seeded" if per else "all"
    return (f"ALFWorld's unseen games as the field plays them (its engine and goal, 50 actions), {games} games "
            f"({chosen}; held out: outside the dev set), our 1.5B model",
            f"{agents} (published ReAct with Qwen2.5-1.5B-Instruct on the 134: {published:.1%}, not checked here; "
            f"another harness, unconstrained)")


def alfworld_bench_row(d: dict[str, Any], what: str) -> tuple[str, str]:
    """README's row for a kept bench_planner run on ALFWorld's games: each variant's games won with its 95% Wilson
    interval, outside the dev set too, and each pair's games won by one side only."""
    def won(rows: list[dict[str, Any]], interval: bool = True) -> str:
        k, n = sum(r["success"] for r in rows), len(rows)
        return f"{k}/{n} ({k / n:.0%}){ci(wilson(k, n)) if interval else ''}"

    eps = d["episodes"]
    agents = "; ".join(f"{planner_name(d, n)} ({n}) {won(eps[n])} (held out: "
                       f"{won([r for r in eps[n] if in_task_set(r['task_id'], HELD_OUT)], False)})"
                       for n in by_agent(d, eps))
    pairs = "; ".join(f"{a} vs {b}: won by one side only {p['table']['only_a']} and {p['table']['only_b']}, McNemar "
                      f"p = {p['mcnemar_p']:.2f}" for p in d["paired"] for a, b in [p["names"]])
    figures = "; ".join(x for x in (agents, pairs) if x)
    return f"{what}, {max(len(r) for r in eps.values())} games, our 1.5B model", figures


def ladder_test_row(d: dict[str, Any]) -> tuple[str, str]:
    """README's row for the ladder on the test set: each rung's Actor_hind on recovery states against its emptied
    self."""
    rungs = "; ".join(f"{name} {r['figures']['actor_hind']['by_kind']['recovery']['optimal']:.0%} "
                      f"({diff_text(r['vs_empty']['recovery'])})" for name, r in d["rungs"].items())
    return (f"The ladder on set *test* (frozen; nothing tuned on it): the paper's planner's Actor_hind, one change per "
            f"rung, on {d['kinds']['recovery']} recovery states of {d['tasks']} held-out valid_unseen tasks, against "
            f"its emptied self (target: +10 points and 40%)", rungs)


def test_set_rows(folder: Path = KEPT) -> list[tuple[str, str]]:
    """README's row for the frozen test set: its size, what building it cost, and how many configurations have been
    run on it."""
    m = load_test_manifest()
    if m is None:
        return []
    ref, runs = m["reference"], load_ledger(folder)
    kinds = ", ".join(f"{k} {v}" for k, v in m["by_kind"].items())
    return [(f"The probe's set *test* (frozen, nothing tuned on it): {len(m['tasks'])} held-out {m['split']} tasks, "
             f"{m['per_type']} per type",
             f"{m['states']} states ({kinds}); built once: {len(ref['episodes'])} reference episodes on the LLM "
             f"{ref['seconds'] / 60:.1f} min, the states without it {m['build_seconds'] / 60:.1f} min; "
             f"{len(runs)} configuration runs on it so far, every one in docs/results.md")]


def readme_table(kept: dict[str, dict[str, Any]]) -> str:
    """README's Results table: what was measured and its headline figures (their commits: docs/results.md)."""
    lines = ["| measured | headline figures |", "|---|---|"]
    return "\n".join(lines + [f"| {what} | {figures} |" for what, figures in headline_rows(kept)]) + "\n"


def with_readme_table(readme: str, table: str) -> str:
    """`readme` with the text between README_BEGIN and README_END replaced by `table`."""
    start, end = readme.index(README_BEGIN) + len(README_BEGIN), readme.index(README_END)
    return readme[:start] + "\n" + table + readme[end:]
