import pytest

from household.expert.env import Env
from household.expert.expert import solve
from household.world.metrics import episode_metrics, path_weight
from household.world.tasks import load_tasks


def test_episode_metrics():
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
    assert (m["gc_met"], m["expert_len"]) == (m["gc_total"], len(res.plan)) and fail["gc_met"] < fail["gc_total"]
    assert path_weight(5, 10) == 0.5 and path_weight(5, 3) == 1.0
