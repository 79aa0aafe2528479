"""The full-knowledge expert: emits a task's ground-truth sub-goal sequence (LLM-Planner style) and solves it.

It knows where everything is but speaks the agent's class-level language, so it picks each `Navigation C` by
asking the world where that sub-goal would lead (`Env.resolve_navigation`) and only emits sub-goals that succeed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from household.env import HAND, Env, _Obj
from household.ontology import CONTAINERS, KNIVES, LANDMARKS, SLICED_OF, accepts, place_class
from household.scene import APPLIANCE_OF_TYPE, Scene
from household.tasks import Task

MAX_SEARCH = 24  # class-level navigations the expert may spend to reach one receptacle instance


@dataclass(frozen=True)
class ExpertResult:
    """The expert's plan, whether executing it solved the task, why not, and its low-level step count."""

    plan: list[str] = field(default_factory=list)
    success: bool = False
    reason: str = ""
    low_steps: int = 0


class _Stuck(Exception):
    """The expert cannot continue; the message says why."""


class _Relocate(Exception):
    """Scene settling: this unseen object should start where `Navigation <its receptacle class>` leads."""

    def __init__(self, oid: str, place_id: str) -> None:
        super().__init__(oid, place_id)
        self.oid, self.place_id = oid, place_id


class _Expert:
    def __init__(self, env: Env, relocatable: set[str] | None = None) -> None:
        self.env = env
        self.plan: list[str] = []
        self.relocatable = relocatable or set()

    # -- primitives
    def do(self, sg: str) -> None:
        env = self.env
        if env.done:
            raise _Stuck(f"episode ended ({env.done_reason}) before '{sg}'")
        res = env.step(sg)
        self.plan.append(sg)
        if not res.ok:
            raise _Stuck(f"'{sg}' failed: {res.reason}")

    def finished(self) -> bool:
        return self.env.done

    def goto_place(self, pid: str, obj: _Obj | None = None) -> None:
        env = self.env
        if env._at == pid:
            return
        cls = env._places[pid].cls
        obj_cls = obj.cls if obj is not None else None
        if self.relocatable and obj is not None and obj.id in self.relocatable and obj.parent == pid \
                and obj.id not in env._seen_objs:
            path, reason = env.resolve_navigation(cls)
            if not reason and path and path[-1] != pid and env._places[path[-1]].cls == cls:
                raise _Relocate(obj.id, path[-1])
        for cand in (cls, obj_cls):
            if cand:
                path, reason = env.resolve_navigation(cand)
                if not reason and path and path[-1] == pid:
                    self.do(f"Navigation {cand}")
                    return
        for _ in range(MAX_SEARCH):  # search instance by instance, as an agent would
            path, reason = env.resolve_navigation(cls)
            if reason or not path:
                raise _Stuck(f"cannot reach {pid} ({reason or 'navigation goes nowhere'})")
            self.do(f"Navigation {cls}")
            if env._at == pid:
                return
            if obj_cls:
                path, reason = env.resolve_navigation(obj_cls)
                if not reason and path and path[-1] == pid:
                    self.do(f"Navigation {obj_cls}")
                    return
        raise _Stuck(f"cannot reach {pid} in {MAX_SEARCH} navigations")

    def goto_class(self, cls: str) -> str:
        """Navigate to wherever `Navigation cls` leads (or stay if already at one); returns the place id."""
        env = self.env
        if env._at is not None and env._places[env._at].cls == cls:
            return env._at
        path, reason = env.resolve_navigation(cls)
        if reason or not path:
            raise _Stuck(f"Navigation {cls}: {reason or 'goes nowhere'}")
        self.do(f"Navigation {cls}")
        return env._at  # type: ignore[return-value]

    def reveal(self, o: _Obj) -> list[str]:
        """Open the closed holders around an object (outermost first); returns their classes to close later."""
        env = self.env
        closed = [a for a in env._ancestors(o) if env._is_closed(a)]
        opened = []
        for holder in reversed(closed):
            cls = env._holder_cls(holder)
            self.do(f"OpenObject {cls}")
            opened.append(cls)
        return opened

    def close(self, classes: list[str]) -> None:
        for cls in reversed(classes):
            if not self.finished():
                self.do(f"CloseObject {cls}")

    def pick(self, o: _Obj) -> _Obj:
        env = self.env
        self.goto_place(env._root(o), o)
        opened = self.reveal(o)
        self.do(f"PickupObject {o.cls}")
        held = env._held()
        assert held is not None
        self.close(opened)
        return held

    def put_here(self, recep_cls: str) -> None:
        env = self.env
        held = env._held()
        assert held is not None
        opened = []
        if env._at is not None and env._places[env._at].cls == recep_cls and env._is_closed(env._at):
            self.do(f"OpenObject {recep_cls}")
            opened.append(recep_cls)
        self.do(f"PutObject {held.cls} {recep_cls}")
        self.close(opened)

    def drop_knife(self) -> None:
        """Put the knife down at the nearest open surface that takes it."""
        env = self.env
        held = env._held()
        assert held is not None
        here = env._places[env._at] if env._at else None
        if here is not None and accepts(here.cls, held.cls) and here.cls not in CONTAINERS:
            self.do(f"PutObject {held.cls} {here.cls}")
            return
        for cls in ("CounterTop", "DiningTable", "SinkBasin", "SideTable", "Desk", "CoffeeTable", "Shelf"):
            if accepts(cls, held.cls) and any(p.cls == cls for p in env._places.values()):
                self.goto_class(cls)
                self.do(f"PutObject {held.cls} {cls}")
                return
        raise _Stuck(f"nowhere to put {held.cls} down")

    # -- task pieces
    def role_objects(self, role: str, cls: str) -> list[_Obj]:
        env = self.env
        ids = [i for i in env.scene.roles.get(role, ()) if i in env._objs]
        objs = [env._objs[i] for i in ids]
        others = [o for o in env._objs.values() if o.cls == cls and o.id not in ids and o.parent != HAND]
        # without roles (ALFWorld scenes) take the handiest one: not shut in, then nearest
        others.sort(key=lambda o: (any(env._is_closed(a) for a in env._ancestors(o)), env._dist(env._at, env._root(o))))
        return objs + others

    def first(self, role: str, cls: str) -> _Obj:
        """The first scene object of `cls` playing `role`; _Stuck when the scene has none."""
        found = self.role_objects(role, cls)
        if not found:
            raise _Stuck(f"no {cls} in the scene")
        return found[0]

    def obtain_target(self, exclude_in: str | None = None) -> _Obj:
        """Get the task object in hand (slicing it first when the task wants a slice)."""
        env = self.env
        a = env.task.args
        if a.object_sliced:
            sliced_cls = SLICED_OF[a.object_target]
            pieces = [o for o in env._objs.values() if o.cls == sliced_cls and o.parent != HAND
                      and not (exclude_in and exclude_in in env._ancestors(o))]
            if not pieces:
                knives = [o for k in KNIVES for o in env._objs.values() if o.cls == k]
                if not knives:
                    raise _Stuck("no Knife in the scene")
                self.pick(min(knives, key=lambda k: k.cls != "Knife"))
                target = self.first("object", a.object_target)
                self.goto_place(env._root(target), target)
                opened = self.reveal(target)
                self.do(f"SliceObject {a.object_target}")
                self.close(opened)
                self.drop_knife()
                pieces = [o for o in env._objs.values() if o.cls == sliced_cls]
            return self.pick(pieces[0])
        cands = [o for o in self.role_objects("object", a.object_target)
                 if not (exclude_in and exclude_in in env._ancestors(o))]
        if not cands:
            raise _Stuck(f"no {a.object_target} left to pick up")
        return self.pick(cands[0])

    def appliance_cycle(self, task_type: str) -> None:
        """Heat, cool or clean the held object the way LLM-Planner's gold plans do."""
        env = self.env
        held = env._held()
        assert held is not None
        cls = held.cls
        app = APPLIANCE_OF_TYPE[task_type]
        self.goto_class(app)
        if app == "Microwave":
            seq = ["OpenObject Microwave", f"PutObject {cls} Microwave", "CloseObject Microwave",
                   "ToggleObjectOn Microwave", "ToggleObjectOff Microwave", "OpenObject Microwave",
                   f"PickupObject {cls}", "CloseObject Microwave"]
        elif app == "Fridge":
            seq = ["OpenObject Fridge", f"PutObject {cls} Fridge", "CloseObject Fridge", "OpenObject Fridge",
                   f"PickupObject {cls}", "CloseObject Fridge"]
        else:
            seq = [f"PutObject {cls} SinkBasin", "ToggleObjectOn Faucet", "ToggleObjectOff Faucet",
                   f"PickupObject {cls}"]
        if app in ("Microwave", "Fridge") and not env._is_closed(env._at):  # type: ignore[arg-type]
            seq = seq[1:]
        for sg in seq:
            if self.finished():
                return
            self.do(sg)

    def run(self) -> None:
        env = self.env
        task = env.task
        a = task.args
        tt = task.task_type
        p_cls = place_class(a.parent_target) if a.parent_target else ""
        if tt == "look_at_obj_in_light":
            self.obtain_target()
            if a.toggle_target in LANDMARKS:
                self.goto_class(a.toggle_target)
            else:
                lamp = self.first("toggle", a.toggle_target)
                self.goto_place(env._root(lamp), lamp)
            self.do(f"ToggleObjectOn {a.toggle_target}")
            return
        if tt == "pick_and_place_with_movable_recep":
            self.obtain_target()
            m = self.first("mrecep", a.mrecep_target)
            self.goto_place(env._root(m), m)
            opened = self.reveal(m)
            if env._is_closed(m.id):
                self.do(f"OpenObject {m.cls}")
            self.do(f"PutObject {env._held().cls} {m.cls}")  # type: ignore[union-attr]
            m = self.pick(m)
            self.close(opened)
            self.goto_class(p_cls)
            self.put_here(p_cls)
            return
        self.obtain_target()
        if tt in APPLIANCE_OF_TYPE:
            self.appliance_cycle(tt)
            if self.finished():
                return
        target = self.goto_class(p_cls)
        self.put_here(p_cls)
        if tt == "pick_two_obj_and_place" and not self.finished():
            self.obtain_target(exclude_in=target)
            self.goto_place(target)
            self.put_here(p_cls)


def solve(task: Task, seed: int = 0, scene: Scene | None = None, **env_kwargs: int) -> ExpertResult:
    """Run the expert on a fresh episode; the plan is every sub-goal it executed."""
    env = Env(task, seed=seed, scene=scene, **env_kwargs)
    ex = _Expert(env)
    reason = ""
    try:
        ex.run()
    except _Stuck as exc:
        reason = str(exc)
    except AssertionError:
        reason = "expert lost track of the held object"
    if not reason and not env.success:
        met, total = env.goal_conditions()
        reason = f"plan ended with {met}/{total} goal conditions met"
    return ExpertResult(ex.plan, env.success, reason if not env.success else "", env.low_steps)


def expert_plan(task: Task, seed: int = 0, scene: Scene | None = None) -> list[str]:
    """The expert's canonical sub-goal sequence for a task (see `solve` for whether it succeeds)."""
    return solve(task, seed, scene).plan


def find_relocation(task: Task, scene: Scene, seed: int, movable_ids: set[str]) -> tuple[str, str] | None:
    """Scene settling helper: the first plan object the expert would have to search for, and where it should be."""
    env = Env(task, seed=seed, scene=scene)
    try:
        _Expert(env, relocatable=movable_ids).run()
    except _Relocate as move:
        return move.oid, move.place_id
    except (_Stuck, AssertionError):
        return None
    return None
