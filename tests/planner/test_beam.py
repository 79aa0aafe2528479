"""Beam search over scripted actors and critics."""
from planner.search.beam import beam_search, split_width
from planner.search.generator import Belief, belief_step


def _actor(table):
    def propose(node, n):
        return table.get(node.actions, [])[:n]
    return propose


def test_split_width():
    assert split_width(2, 2) == [1, 1]
    assert split_width(3, 2) == [2, 1]
    assert split_width(4, 1) == [4]
    assert split_width(1, 2) == [1, 0]


def test_returns_first_action_of_best_rollout():
    gt = _actor({(): ["Navigation Apple"], ("Navigation Apple",): ["PickupObject Apple"],
                 ("Navigation Fridge",): ["OpenObject Fridge"]})
    hind = _actor({(): ["Navigation Fridge"], ("Navigation Apple",): ["Navigation Fridge"],
                   ("Navigation Fridge",): ["PickupObject Apple"]})
    values = {("Navigation Fridge", "OpenObject Fridge"): 0.9, ("Navigation Apple", "PickupObject Apple"): 0.5}
    scored = []

    def critic(nodes):
        scored.append([n.actions for n in nodes])
        return [values.get(n.actions, 0.1) for n in nodes]

    res = beam_search(Belief(), [("actor_gt", gt), ("actor_hind", hind)], belief_step, critic, beam=2, width=2,
                      depth=1)
    assert res.action == "Navigation Fridge"
    assert len(scored) == 1 and len(scored[0]) == 4  # one critic call scores all final rollouts
    assert {c["subgoal"]: c["value"] for c in res.candidates} == {"Navigation Apple": 0.5, "Navigation Fridge": 0.9}


def test_width_split_between_actors():
    asked = []

    def actor(name):
        def propose(node, n):
            asked.append((name, n))
            return [f"Navigation {name}{i}" for i in range(n)]
        return propose

    beam_search(Belief(), [("A", actor("A")), ("B", actor("B"))], belief_step, lambda ns: [0.0] * len(ns),
                beam=2, width=4, depth=0)
    assert asked == [("A", 2), ("B", 2)]


def test_beam_prunes_to_b_per_depth():
    gt = _actor({(): ["Navigation A", "Navigation B", "Navigation C"],
                 ("Navigation A",): ["Stop"], ("Navigation B",): ["Stop"], ("Navigation C",): ["Stop"]})
    order = {"Navigation A": 0.1, "Navigation B": 0.8, "Navigation C": 0.5}
    calls = []

    def critic(nodes):
        calls.append(len(nodes))
        return [order[n.actions[0]] + (0.01 if len(n.actions) > 1 else 0) for n in nodes]

    res = beam_search(Belief(), [("gt", gt)], belief_step, critic, beam=2, width=3, depth=1)
    assert calls == [3, 2]  # 3 pruned to B=2, then the 2 survivors' extensions scored
    assert res.action == "Navigation B"
    assert all(n.actions[0] != "Navigation A" for n in res.rollouts)


def test_forced_choice_needs_no_critic():
    same = _actor({(): ["Navigation Apple"]})
    res = beam_search(Belief(), [("gt", same), ("hind", same)], belief_step,
                      lambda ns: (_ for _ in ()).throw(AssertionError("critic called")), beam=2, width=2, depth=1)
    assert res.action == "Navigation Apple" and res.forced


def test_no_proposals_returns_none():
    res = beam_search(Belief(), [("gt", _actor({}))], belief_step, lambda ns: [], beam=2, width=2, depth=1)
    assert res.action is None


def test_unparsed_values_rank_last():
    gt = _actor({(): ["Navigation A", "Navigation B"]})
    res = beam_search(Belief(), [("gt", gt)], belief_step, lambda ns: [None, 0.0], beam=2, width=2, depth=0)
    assert res.action == "Navigation B"
