"""The symbolic, partially observable ALFRED world: tasks, scenes, sub-goal execution, expert and metrics.

Modules, bottom up (each imports only modules listed before it; tests/test_structure.py checks there is no cycle):
resources (the package's files and the data directory), ontology (classes, affordances); tasks (ALFRED tasks),
alfred_import (ALFRED's download to the compact files), floorplans (places, travel costs), subgoals (the sub-goal language); layout (scene data, a task's unsettled layout); state (objects, holders
and the agent's knowledge in an episode); goals (ALFRED goal conditions); navigation (where `Navigation C` leads);
world (stepping an episode over a prebuilt scene); expert_agent (the expert's choices); scene (a task's scene,
settled with the expert); env (`Env`: a World that builds its scene when none is given); expert (ground-truth
plans); metrics (SR/GC/PLW); alfworld (ALFWorld importer); stats (split statistics).
"""
