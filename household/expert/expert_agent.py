"""The expert's way of acting: a full-knowledge agent that speaks the agent's class-level language.

It knows where everything is, so it picks each `Navigation C` by asking the world where that sub-goal would lead
(`World.resolve_navigation`) and only emits sub-goals that succeed. `household.expert.expert` runs it on a task's scene;
`household.expert.scene` uses it to settle a layout (`find_relocation`).
"""
from __future__ import annotations

from household.world.layout import APPLIANCE_OF_TYPE, Scene
from household.world.ontology import CONTAINERS, KNIVES, LANDMARKS, SLICED_OF, accepts, place_class
from household.world.state import HAND, Obj
from household.world.tasks import Task
from household.world.world import World

MAX_SEARCH = 24  # class-level navigations the expert may spend to reach one receptacle instance

class Stuck(Exception):
    """The expert cannot continue; the message says why."""


class Relocate(Exception):
    """Scene settling: this unseen object should start where `Navigation <its receptacle class>` leads."""

    def __init__(self, oid: str, place_id: str) -> None:
        super().__init__(oid, place_id)
        self.oid, self.place_id = oid, place_id


class ExpertAgent:
    """Acts in a World with full knowledge of it; `plan` collects every sub-goal it executed."""

    def __init__(self, env: World, relocatable: set[str] | None = None) -> None:
        self.env = env
        self.plan: list[str] = []
        self.relocatable = relocatable or set()

    # -- primitives
    def do(self, sg: str) -> None:
        env = self.env
        if env.done:
            raise Stuck(f"episode ended ({env.done_reason}) before '{sg}'")
        res = env.step(sg)
        self.plan.append(sg)
        if not res.ok:
            raise Stuck(f"'{sg}' failed: {res.reason}")

    def finished(self) -> bool:
        return self.env.done

    def goto_place(self, pid: str, obj: Obj | None = None) -> None:
        env = self.env
        st = env.state
        if st.at == pid:
            return
        cls = st.places[pid].cls
        obj_cls = obj.cls if obj is not None else None
        if self.relocatable and obj is not None and obj.id in self.relocatable and obj.parent == pid \
                and obj.id not in st.seen_objs:
            path, reason = env.resolve_navigation(cls)
            if not reason and path and path[-1] != pid and st.places[path[-1]].cls == cls:
                raise Relocate(obj.id, path[-1])
        for cand in (cls, obj_cls):
            if cand:
                path, reason = env.resolve_navigation(cand)
                if not reason and path and path[-1] == pid:
                    self.do(f"Navigation {cand}")
                    return
        for _ in range(MAX_SEARCH):  # search instance by instance, as an agent would
            path, reason = env.resolve_navigation(cls)
            if reason or not path:
                raise Stuck(f"cannot reach {pid} ({reason or 'navigation goes nowhere'})")
            self.do(f"Navigation {cls}")
            if st.at == pid:
                return
            if obj_cls:
                path, reason = env.resolve_navigation(obj_cls)
                if not reason and path and path[-1] == pid:
                    self.do(f"Navigation {obj_cls}")
                    return
        raise Stuck(f"cannot reach {pid} in {MAX_SEARCH} navigations")

    def goto_class(self, cls: str) -> str:
        """Navigate to wherever `Navigation cls` leads (or stay if already at one); returns the place id."""
        env = self.env
        st = env.state
        if st.at is not None and st.places[st.at].cls == cls:
            return st.at
        path, reason = env.resolve_navigation(cls)
        if reason or not path:
            raise Stuck(f"Navigation {cls}: {reason or 'goes nowhere'}")
        self.do(f"Navigation {cls}")
        return st.at  # type: ignore[return-value]

    def reveal(self, o: Obj) -> list[str]:
        """Open the closed holders around an object (outermost first); returns their classes to close later."""
        st = self.env.state
        closed = [a for a in st.ancestors(o) if st.is_closed(a)]
        opened = []
        for holder in reversed(closed):
            cls = st.holder_cls(holder)
            self.do(f"OpenObject {cls}")
            opened.append(cls)
        return opened

    def close(self, classes: list[str]) -> None:
        for cls in reversed(classes):
            if not self.finished():
                self.do(f"CloseObject {cls}")

    def pick(self, o: Obj) -> Obj:
        st = self.env.state
        self.goto_place(st.root(o), o)
        opened = self.reveal(o)
        self.do(f"PickupObject {o.cls}")
        held = st.held()
        assert held is not None
        self.close(opened)
        return held

    def put_here(self, recep_cls: str) -> None:
        st = self.env.state
        held = st.held()
        assert held is not None
        opened = []
        if st.at is not None and st.places[st.at].cls == recep_cls and st.is_closed(st.at):
            self.do(f"OpenObject {recep_cls}")
            opened.append(recep_cls)
        self.do(f"PutObject {held.cls} {recep_cls}")
        self.close(opened)

    def drop_knife(self) -> None:
        """Put the knife down at the nearest open surface that takes it."""
        st = self.env.state
        held = st.held()
        assert held is not None
        here = st.places[st.at] if st.at else None
        if here is not None and accepts(here.cls, held.cls) and here.cls not in CONTAINERS:
            self.do(f"PutObject {held.cls} {here.cls}")
            return
        for cls in ("CounterTop", "DiningTable", "SinkBasin", "SideTable", "Desk", "CoffeeTable", "Shelf"):
            if accepts(cls, held.cls) and any(p.cls == cls for p in st.places.values()):
                self.goto_class(cls)
                self.do(f"PutObject {held.cls} {cls}")
                return
        raise Stuck(f"nowhere to put {held.cls} down")

    # -- task pieces
    def role_objects(self, role: str, cls: str) -> list[Obj]:
        env = self.env
        st = env.state
        ids = [i for i in env.scene.roles.get(role, ()) if i in st.objs]
        objs = [st.objs[i] for i in ids]
        others = [o for o in st.objs.values() if o.cls == cls and o.id not in ids and o.parent != HAND]
        # without roles (ALFWorld scenes) take the handiest one: not shut in, then nearest
        others.sort(key=lambda o: (any(st.is_closed(a) for a in st.ancestors(o)), env.nav.dist(st.at, st.root(o))))
        return objs + others

    def first(self, role: str, cls: str) -> Obj:
        """The first scene object of `cls` playing `role`; Stuck when the scene has none."""
        found = self.role_objects(role, cls)
        if not found:
            raise Stuck(f"no {cls} in the scene")
        return found[0]

    def obtain_target(self, exclude_in: str | None = None) -> Obj:
        """Get the task object in hand (slicing it first when the task wants a slice)."""
        env = self.env
        st = env.state
        a = env.task.args
        if a.object_sliced:
            sliced_cls = SLICED_OF[a.object_target]
            pieces = [o for o in st.objs.values() if o.cls == sliced_cls and o.parent != HAND
                      and not (exclude_in and exclude_in in st.ancestors(o))]
            if not pieces:
                knives = [o for k in KNIVES for o in st.objs.values() if o.cls == k]
                if not knives:
                    raise Stuck("no Knife in the scene")
                self.pick(min(knives, key=lambda k: k.cls != "Knife"))
                target = self.first("object", a.object_target)
                self.goto_place(st.root(target), target)
                opened = self.reveal(target)
                self.do(f"SliceObject {a.object_target}")
                self.close(opened)
                self.drop_knife()
                pieces = [o for o in st.objs.values() if o.cls == sliced_cls]
            return self.pick(pieces[0])
        cands = [o for o in self.role_objects("object", a.object_target)
                 if not (exclude_in and exclude_in in st.ancestors(o))]
        if not cands:
            raise Stuck(f"no {a.object_target} left to pick up")
        return self.pick(cands[0])

    def appliance_cycle(self, task_type: str) -> None:
        """Heat, cool or clean the held object the way LLM-Planner's gold plans do."""
        st = self.env.state
        held = st.held()
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
        if app in ("Microwave", "Fridge") and not st.is_closed(st.at):  # type: ignore[arg-type]
            seq = seq[1:]
        for sg in seq:
            if self.finished():
                return
            self.do(sg)

    def run(self) -> None:
        env = self.env
        st = env.state
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
                self.goto_place(st.root(lamp), lamp)
            self.do(f"ToggleObjectOn {a.toggle_target}")
            return
        if tt == "pick_and_place_with_movable_recep":
            self.obtain_target()
            m = self.first("mrecep", a.mrecep_target)
            self.goto_place(st.root(m), m)
            opened = self.reveal(m)
            if st.is_closed(m.id):
                self.do(f"OpenObject {m.cls}")
            self.do(f"PutObject {st.held().cls} {m.cls}")  # type: ignore[union-attr]
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


def find_relocation(task: Task, scene: Scene, seed: int, movable_ids: set[str]) -> tuple[str, str] | None:
    """Scene settling helper: the first plan object the expert would have to search for, and where it should be."""
    env = World(task, scene, seed=seed)
    try:
        ExpertAgent(env, relocatable=movable_ids).run()
    except Relocate as move:
        return move.oid, move.place_id
    except (Stuck, AssertionError):
        return None
    return None
