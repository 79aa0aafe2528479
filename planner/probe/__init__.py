"""The probe: what a pool is worth where the paper says it acts, at decisions. The decision states with their legal
sets and the expert's cost-to-go (states), the picks made there with their score (picks), and a pool's own
quality read by the same cost-to-go, without the LLM (quality).

May import: planner.adapter, planner.follow, planner.retrieval, planner.search, planner.loop, planner.scaffold,
planner.config, household, pools.
"""
