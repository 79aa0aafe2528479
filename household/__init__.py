"""The symbolic, partially observable ALFRED world, in three layers (sub-packages, bottom up) and one factory:

    world/      the world itself: data, ontology, tasks, floorplans, the sub-goal language, scenes and layouts, the
                episode state, goal conditions, navigation, stepping an episode over a prebuilt scene, metrics
    expert/     the expert and what stands on it: its choices, a task's scene settled with it, `Env` (a world that
                builds its scene), ground-truth plans, the cost-to-go d, split statistics
    alfworld/   ALFWorld: its games imported as our tasks and scenes, the backend over its own engine, the crosscheck
                of the two worlds, statistics over its games
    backends.py which world an episode runs in (params.yaml `world.backend`): the `EpisodeEnv` interface both
                implement and the factory `open_env(task, backend, games, ...)`, as ALFWorld picks its `env.type`

Imports point down: world/ imports nothing of household/ outside itself, expert/ imports world/, alfworld/ imports
world/ and expert/, backends.py all three. Each sub-package's __init__ names what it may import; tests/test_structure.py
(HOUSEHOLD_MAY_IMPORT) checks it, and that there is no cycle. Tests mirror the packages (tests/household/<sub>/).

May import: nothing outside itself (the bottom layer of the project).
"""
