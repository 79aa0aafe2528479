"""The expert, and what needs it: the full-knowledge agent that plans in the robot's own words, over the world.

Modules, bottom up: expert_agent (the expert's choices); scene (a task's scene, its seeded layout settled with the
expert); env (`Env`: a World that builds its scene when none is given); expert (ground-truth plans: `solve`,
`expert_plan`); cost_to_go (the expert's cost-to-go d: the fewest sub-goals to the goal from any state); stats
(split statistics: tasks, annotations, how the expert does).

May import: household.world.
"""
