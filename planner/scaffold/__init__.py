"""The scaffold's rules, beyond the paper: the registry of deviations and the scaffold switch (deviations), the legal
set as a chain of filters over what the agent observed (legal), and the goal gate's named rules (gate).

May import: household.
Nothing of planner/: scaffold/ is at the bottom of it, beside prompts/.
"""
