import pytest

from household.env import Env
from household.expert import solve
from household.metrics import aggregate, episode_metrics, path_weight
from household.tasks import load_tasks


def test_episode_and_aggregate():
    t = load_tasks("valid_unseen")[0]
    res = solve(t)
    env = Env(t)
    env.step("Fly")  # one wasted sub-goal
    for sg in res.plan:
        env.step(sg)
    m = episode_metrics(env, len(res.plan))
    assert m["success"] and m["gc"] == 1.0 and m["path_len"] == len(res.plan) + 1
    assert m["plw_sr"] == pytest.approx(len(res.plan) / (len(res.plan) + 1))
    fail = episode_metrics(Env(t), 4)
    assert not fail["success"] and fail["gc"] == 0 and fail["plw_sr"] == 0
    agg = aggregate([m, fail])
    assert agg["sr"] == 0.5 and agg["gc"] == pytest.approx(m["gc_met"] / (m["gc_total"] + fail["gc_total"]))
    assert agg["plw_sr"] == pytest.approx(m["plw_sr"] * len(res.plan) / (len(res.plan) + 4))
    assert aggregate([])["episodes"] == 0
    assert path_weight(5, 10) == 0.5 and path_weight(5, 3) == 1.0
