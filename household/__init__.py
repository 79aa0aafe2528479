"""The symbolic, partially observable ALFRED world: tasks, scenes, sub-goal execution, expert and metrics.

Modules: ontology (classes, affordances), tasks (ALFRED tasks), floorplans (places, travel costs), scene (initial
scenes), subgoals (the sub-goal language), env (the simulator), goals (ALFRED goal conditions), expert (ground-truth
plans), metrics (SR/GC/PLW), alfworld (ALFWorld importer), stats (split statistics).
"""
