"""The world: everything an episode of an ALFRED task is, with no expert in it.

Modules, bottom up (each imports only modules listed before it): resources (the package's files and the data
directory), ontology (classes, affordances); tasks (ALFRED tasks), alfred_import (ALFRED's download to the compact
files), floorplans (places, travel costs), subgoals (the sub-goal language); layout (scene data, a task's unsettled
layout); state (objects, holders and the agent's knowledge in an episode); goals (ALFRED goal conditions);
navigation (where `Navigation C` leads); world (stepping an episode over a prebuilt scene: `World`, `Observation`,
`StepResult`); metrics (SR/GC/PLW of an episode).

May import: nothing of household outside world/.
"""
